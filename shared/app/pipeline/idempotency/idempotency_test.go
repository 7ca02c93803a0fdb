package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestRequestHashEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b string
	}{
		{"reordered keys", `{"a":1,"b":2}`, `{"b":2,"a":1}`},
		{"white space", `{"a":1,"b":[1,2]}`, " {\n\t\"a\" : 1 ,\r\n \"b\" : [ 1 , 2 ] }\n"},
		{"nested objects reordered", `{"x":{"b":[1,{"d":1,"c":2}],"a":null},"y":true}`, `{"y":true,"x":{"a":null,"b":[1,{"c":2,"d":1}]}}`},
		{"escaped and literal characters", `{"a":"<é>"}`, `{"a":"\u003c\u00e9\u003e"}`},
		{"trailing new line", `{"a":1}`, "{\"a\":1}\n"},
		{"duplicate key, last wins", `{"a":2}`, `{"a":1,"a":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a, b := RequestHash([]byte(tt.a)), RequestHash([]byte(tt.b)); a != b {
				t.Errorf("RequestHash(%q) = %s; RequestHash(%q) = %s; want equal", tt.a, a, tt.b, b)
			}
		})
	}
}

func TestRequestHashDifferent(t *testing.T) {
	tests := []struct {
		name string
		a, b string
	}{
		{"different value", `{"a":1}`, `{"a":2}`},
		{"string and number", `{"a":"1"}`, `{"a":1}`},
		{"different key", `{"a":1}`, `{"b":1}`},
		{"extra key", `{"a":1}`, `{"a":1,"b":null}`},
		{"array order", `{"a":[1,2]}`, `{"a":[2,1]}`},
		{"nested value", `{"x":{"y":"a"}}`, `{"x":{"y":"b"}}`},
		{"case of a value", `{"email":"a@b.co"}`, `{"email":"A@b.co"}`},
		// Both are the same float64; UseNumber keeps them apart.
		{"large integers", `{"n":12345678901234567890}`, `{"n":12345678901234567891}`},
		{"long decimals", `{"n":0.10000000000000000001}`, `{"n":0.10000000000000000002}`},
		{"JSON and non-JSON", `{"a":1}`, `{"a":1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a, b := RequestHash([]byte(tt.a)), RequestHash([]byte(tt.b)); a == b {
				t.Errorf("RequestHash(%q) = RequestHash(%q) = %s; want different", tt.a, tt.b, a)
			}
		})
	}
}

func TestRequestHashNonJSONHashesBytes(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"empty", ""},
		{"form encoded", "name=Ada&email=a%40b.co"},
		{"truncated object", `{"a":1`},
		{"trailing data", `{"a":1} {"b":2}`},
		{"trailing garbage", `{"a":1}]`},
		{"bare word", "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := RequestHash([]byte(tt.body)), sha256Hex([]byte(tt.body)); got != want {
				t.Errorf("RequestHash(%q) = %s; want sha256 of the bytes %s", tt.body, got, want)
			}
		})
	}
	t.Run("white space matters outside JSON", func(t *testing.T) {
		if RequestHash([]byte("a b")) == RequestHash([]byte("a  b")) {
			t.Error("RequestHash gave two different non-JSON bodies the same hash")
		}
	})
	t.Run("JSON is canonicalised", func(t *testing.T) {
		body := `{ "b":1, "a":2 }`
		if got, want := RequestHash([]byte(body)), sha256Hex([]byte(`{"a":2,"b":1}`)); got != want {
			t.Errorf("RequestHash(%q) = %s; want sha256 of its canonical form %s", body, got, want)
		}
	})
}

func TestValidateKey(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		wantErr bool
	}{
		{"empty", "", true},
		{"one character", "k", false},
		{"uuid", "3f2b8c1e-8f4a-4b7e-9c1d-2a6b5e4f3d21", false},
		{"255 bytes", strings.Repeat("k", 255), false},
		{"256 bytes", strings.Repeat("k", 256), true},
		// The limit is in bytes: 128 two-byte runes are 256 bytes.
		{"128 two-byte runes", strings.Repeat("é", 128), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateKey(tt.key)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ValidateKey(%d bytes) = %v; want error %v", len(tt.key), err, tt.wantErr)
			}
			if err == nil {
				return
			}
			e := errcode.As(err)
			if e == nil || e.Code != errcode.ValidationFailed {
				t.Fatalf("ValidateKey error = %v; want a validation_failed *errcode.Error", err)
			}
			fields, _ := e.Details["fields"].(map[string]any)
			if _, ok := fields["Idempotency-Key"]; !ok || len(fields) != 1 {
				t.Errorf("details.fields = %v; want only Idempotency-Key", fields)
			}
		})
	}
}

func TestScopeKeyHash(t *testing.T) {
	a := Scope{PartnerID: "ptn_1", Mode: "test", Operation: "createLead", Key: "k1"}
	b := a
	b.Key = "k2"
	if got := a.KeyHash(); got != sha256Hex([]byte("k1")) {
		t.Errorf("KeyHash() = %s; want sha256 of the key", got)
	}
	if a.KeyHash() == b.KeyHash() {
		t.Errorf("KeyHash of %q and %q are equal; want different", a.Key, b.Key)
	}
	long := Scope{Key: strings.Repeat("x", MaxKeyLen)}
	if got := len(long.KeyHash()); got != 64 {
		t.Errorf("len(KeyHash()) for a %d-byte key = %d; want 64", MaxKeyLen, got)
	}
}

// FuzzRequestHash: any body hashes without panicking, to 64 hex digits, and
// a JSON body hashes like its re-encoding (key order and spacing removed).
func FuzzRequestHash(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2,{"c":null}]}`, `{}`, `[]`, `"x"`, `not json`, ``, `{"a":1} trailing`, `{"n":12345678901234567890}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		h := RequestHash(body)
		if len(h) != 64 {
			t.Fatalf("hash %q is not 64 hex digits", h)
		}
		var v map[string]any
		if json.Unmarshal(body, &v) == nil && v != nil {
			re, err := json.Marshal(v)
			if err == nil && RequestHash(re) != h && !hasNumber(v) {
				t.Errorf("%q and its re-encoding %q hash differently", body, re)
			}
		}
	})
}

// hasNumber reports whether v holds a JSON number anywhere: re-encoding
// through float64 may change a number's text, which RequestHash keeps.
func hasNumber(v any) bool {
	switch x := v.(type) {
	case float64:
		return true
	case map[string]any:
		for _, e := range x {
			if hasNumber(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasNumber(e) {
				return true
			}
		}
	}
	return false
}
