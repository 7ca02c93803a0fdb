package lead

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

func gzipped(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatalf("gzip: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return b.String()
}

// nested returns n levels of open, then inner, then n levels of close.
func nested(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// TestParseCreateBodyErrors checks that each way a body can fail to be one
// JSON object gets its own message: invalid_json (422) with the words that
// tell the cases apart and, where there is one, details.offset.
func TestParseCreateBodyErrors(t *testing.T) {
	const noOffset = -1
	tests := []struct {
		name   string
		body   string
		want   []string // substrings of the message
		offset int      // details.offset, or noOffset when there must be none
		detail map[string]any
	}{
		{"10,000 nested arrays", nested("[", "", "]", 10000), []string{"nested too deeply", "at most 32 levels", "byte offset 32"}, 32, map[string]any{"max_depth": MaxDepth}},
		{"10,000 nested objects", nested(`{"a":`, "1", "}", 10000), []string{"nested too deeply", "at most 32 levels", "byte offset 160"}, 160, nil},
		{"10,000 nested arrays, unclosed", strings.Repeat("[", 10000), []string{"nested too deeply"}, 32, nil},
		{"33 levels inside a lead", `{"email":"a@b.co","x":` + nested("[", "", "]", 32) + `}`, []string{"nested too deeply"}, 22 + 31, nil},
		{"UTF-8 byte order mark", "\xef\xbb\xbf{\"email\":\"a@b.co\"}", []string{"byte order mark", "without a byte order mark"}, 0, nil},
		{"UTF-16 byte order mark", "\xff\xfe{\x00}\x00", []string{"UTF-16 byte order mark", "UTF-8"}, 0, nil},
		{"raw NUL in a string", "{\"email\":\"a\x00b\"}", []string{"control character U+0000", "must be escaped", "byte offset 11"}, 11, nil},
		{"raw BEL in a string", "{\"customer_name\":\"Ada\x07\"}", []string{"control character U+0007", "must be escaped", "byte offset 21"}, 21, nil},
		{"raw tab in a string", "{\"customer_name\":\"A\tda\"}", []string{"control character U+0009 (tab)", "must be escaped"}, 19, nil},
		{"raw line feed in a string", "{\"from_address\":\"1 Main St\nBoston\"}", []string{"control character U+000A (line feed)", "must be escaped"}, 26, nil},
		{"gzip body", gzipped(t, `{"email":"a@b.co"}`), []string{"not UTF-8 JSON text", "gzip-compressed", "1f 8b", "uncompressed"}, 0, map[string]any{"compression": "gzip"}},
		{"zstd body", "\x28\xb5\x2f\xfd\x00\x58\x61\x00", []string{"not UTF-8 JSON text", "zstd-compressed"}, 0, map[string]any{"compression": "zstd"}},
		{"binary body", "\x89PNG\r\n\x1a\n", []string{"not UTF-8 JSON text", "0x89", "does not look compressed"}, 0, nil},
		{"Latin-1 body", "{\"customer_name\":\"Ren\xe9\"", []string{"not UTF-8 JSON text", "0xe9", "byte offset 21"}, 21, nil},
		{"missing colon", `{"email" "a@b.co"}`, []string{"not valid JSON", `unexpected character '"'`, "byte offset 9"}, 9, nil},
		{"form encoded", "name=Ada", []string{"not valid JSON", "unexpected character 'a'", "byte offset 1"}, 1, nil},
		{"single quotes", `{'email':'a@b.co'}`, []string{"not valid JSON", "double quotes", "byte offset 1"}, 1, nil},
		{"trailing comma", `{"email":"a@b.co",}`, []string{"not valid JSON", "trailing comma", "byte offset 18"}, 18, nil},
		{"trailing comma in array", `{"special_items":["a", ]}`, []string{"trailing comma", "byte offset 23"}, 23, nil},
		{"truncated", `{"email":"a@b.co"`, []string{"not valid JSON", "ends at byte offset 17", "before the JSON value is complete"}, 17, nil},
		{"empty", "", []string{"empty"}, noOffset, nil},
		{"white space only", " \r\n\t", []string{"empty"}, noOffset, nil},
		{"array", `[{"email":"a@b.co"}]`, []string{"must be a JSON object, not an array"}, noOffset, nil},
		{"string", `"ada@example.com"`, []string{"must be a JSON object, not a string"}, noOffset, nil},
		{"number", `42`, []string{"must be a JSON object, not a number"}, noOffset, nil},
		{"boolean", `true`, []string{"must be a JSON object, not a boolean"}, noOffset, nil},
		{"null", ` null `, []string{"must be a JSON object, not null"}, noOffset, nil},
		{"two objects", `{"email":"a@b.co"} {}`, []string{"exactly one JSON object", "byte offset 19"}, 19, nil},
		{"trailing bracket", `{"email":"a@b.co"}]`, []string{"exactly one JSON object", "byte offset 18"}, 18, nil},
		{"trailing NUL", "{\"email\":\"a@b.co\"}\n\x00", []string{"exactly one JSON object", "byte offset 19"}, 19, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := parseFailure(t, tt.body)
			if e.Code != errcode.InvalidJSON || errcode.Status(e.Code) != 422 {
				t.Fatalf("code %q (status %d), message %q; want invalid_json (422)", e.Code, errcode.Status(e.Code), e.Message)
			}
			for _, w := range tt.want {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message %q; want it to contain %q", e.Message, w)
				}
			}
			got, has := e.Details["offset"]
			switch {
			case tt.offset == noOffset && has:
				t.Errorf("details.offset = %v; want none", got)
			case tt.offset != noOffset && got != tt.offset:
				t.Errorf("details.offset = %#v; want %d", got, tt.offset)
			}
			for k, v := range tt.detail {
				if e.Details[k] != v {
					t.Errorf("details.%s = %#v; want %#v", k, e.Details[k], v)
				}
			}
		})
	}
}

// TestParseCreateDepthLimit checks the edge of MaxDepth and that brackets
// inside strings do not count.
func TestParseCreateDepthLimit(t *testing.T) {
	t.Run("32 levels reach validation", func(t *testing.T) {
		e, fields := parseFailure(t, `{"email":"a@b.co","x":`+nested("[", "", "]", 31)+`}`)
		if e.Code != errcode.ValidationFailed || fields["x"] != "unknown property" {
			t.Errorf("code %q, fields %v; want validation_failed naming x as unknown", e.Code, fields)
		}
	})
	t.Run("brackets in strings", func(t *testing.T) {
		body := `{"email":"a@b.co","source":"` + strings.Repeat(`[{\"`, 40) + `"}`
		in, err := ParseCreate([]byte(body))
		if err != nil || in.Source != strings.Repeat(`[{"`, 40) {
			t.Errorf("ParseCreate(%q) = %+v, %v; want accepted with the brackets in source", body, in, err)
		}
	})
}

func TestDepthExceeded(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		limit int
		want  int
	}{
		{"flat", `{"a":1}`, 1, -1},
		{"at limit", `{"a":[1]}`, 2, -1},
		{"over limit", `{"a":[1]}`, 1, 5},
		{"escaped quote keeps string open", `{"a":"\"[["}`, 1, -1},
		{"escaped backslash closes string", `{"a":"\\",  "b":[1]}`, 1, 16},
		{"closing brings it back", `[[],[],[[]]]`, 2, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := depthExceeded([]byte(tt.body), tt.limit); got != tt.want {
				t.Errorf("depthExceeded(%q, %d) = %d; want %d", tt.body, tt.limit, got, tt.want)
			}
		})
	}
}

// FuzzDecodeObject checks the body checks alone: they never panic, every
// failure is an invalid_json *errcode.Error (a 4xx) whose details.offset lies
// inside the body, and every success is exactly one JSON object of UTF-8
// text nested at most MaxDepth deep.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{
		`{"email":"a@b.co"}`, `{"a":[1,{"b":null}]}`, `{}`, ``, ` `, `[]`, `"x"`, `1`, `null`,
		`{"a":1} {}`, `{"a":1}]`, `{"a":1,}`, `{'a':1}`, `{"a":1`, "{\"a\":\"\x00\"}",
		"\xef\xbb\xbf{}", "\xff\xfe{}", "\x1f\x8b\x08\x00", "\x28\xb5\x2f\xfd", "x\x9c", "{\"a\":\"\xe9\"}",
		nested("[", "", "]", 33), nested(`{"a":`, "1", "}", 40), strings.Repeat("[", 200),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		raw, err := DecodeObject(body)
		if err != nil {
			e := errcode.As(err)
			if e == nil {
				t.Fatalf("DecodeObject(%q) error %v; want an *errcode.Error", body, err)
			}
			if e.Code != errcode.InvalidJSON || errcode.Status(e.Code)/100 != 4 {
				t.Errorf("DecodeObject(%q) code %q (status %d); want invalid_json, a 4xx", body, e.Code, errcode.Status(e.Code))
			}
			if e.Message == "" || e.Cause != nil {
				t.Errorf("DecodeObject(%q) message %q, cause %v; want a message and no internal cause", body, e.Message, e.Cause)
			}
			if off, ok := e.Details["offset"]; ok {
				if n, isInt := off.(int); !isInt || n < 0 || n > len(body) {
					t.Errorf("DecodeObject(%q) details.offset = %#v; want an int in [0, %d]", body, off, len(body))
				}
			}
			return
		}
		trimmed := bytes.TrimSpace(body)
		if raw == nil || !json.Valid(body) || len(trimmed) == 0 || trimmed[0] != '{' {
			t.Errorf("DecodeObject(%q) = %v, nil; want exactly one valid JSON object", body, raw)
		}
		if at := depthExceeded(body, MaxDepth); at >= 0 {
			t.Errorf("DecodeObject(%q) accepted a body nested past %d at offset %d", body, MaxDepth, at)
		}
		if bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) {
			t.Errorf("DecodeObject(%q) accepted a byte order mark", body)
		}
	})
}
