package surveys

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/errcode"
)

// FuzzCaptureBodies: the parsers of getSurveyLink's body and the capture
// page's clip request never panic, and refuse with a 4xx error code.
func FuzzCaptureBodies(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"delivery":"link"}`, `{"delivery":"sms"}`, `{"delivery":null}`, `[]`, `"link"`, `{"a":1}`,
		`{"clip_id":"9b2f1d2e-3c4b-4a5d-8e6f-7a8b9c0d1e2f","room":"Kitchen","size":10,"content_type":"video/mp4"}`,
		`{"clip_id":1}`, `{"size":1e400}`, `{} {}`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(what string, err error) {
			if err == nil {
				return
			}
			e := errcode.As(err)
			if e == nil || errcode.Status(e.Code) < 400 || errcode.Status(e.Code) >= 500 {
				t.Fatalf("%s(%q) = %v; want a 4xx errcode", what, body, err)
			}
		}
		check("parseLinkBody", parseLinkBody(body))
		var req clipRequest
		check("strictJSON", strictJSON(body, &req))
	})
}
