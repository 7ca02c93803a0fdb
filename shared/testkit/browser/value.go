package browser

import (
	"encoding/json"
	"errors"

	"github.com/chromedp/cdproto/runtime"
)

// jsonString encodes s as the JSON value of a protocol call argument.
func jsonString(s string) ([]byte, error) { return json.Marshal(s) }

// decodeValue decodes a by-value result of a protocol call into v.
func decodeValue(o *runtime.RemoteObject, v any) error {
	if o == nil || len(o.Value) == 0 {
		return errors.New("no value")
	}
	return json.Unmarshal(o.Value, v)
}

// decodeJSON decodes a JSON value of the protocol into v, leaving v as it
// is when the value is absent or of another type.
func decodeJSON(b []byte, v any) {
	if len(b) > 0 {
		_ = json.Unmarshal(b, v)
	}
}
