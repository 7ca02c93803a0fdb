package lead

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// parseFailure parses body, which must fail, and returns the error and its
// details.fields (nil for invalid_json).
func parseFailure(t *testing.T, body string) (*errcode.Error, map[string]any) {
	t.Helper()
	in, err := ParseCreate([]byte(body))
	if err == nil {
		t.Fatalf("ParseCreate(%.200q) = %+v, nil; want an error", body, in)
	}
	if !reflect.DeepEqual(in, CreateInput{}) {
		t.Errorf("ParseCreate(%.200q) input = %+v with an error; want the zero CreateInput", body, in)
	}
	e := errcode.As(err)
	if e == nil {
		t.Fatalf("ParseCreate(%.200q) error %v; want an *errcode.Error", body, err)
	}
	fields, _ := e.Details["fields"].(map[string]any)
	return e, fields
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestParseCreateAccepts(t *testing.T) {
	tests := []struct {
		name string
		body string
		want CreateInput
	}{
		{"email only", `{"email":"ada@example.com"}`, CreateInput{Email: "ada@example.com"}},
		{"phone only, E.164", `{"phone":"+15551234567"}`, CreateInput{Phone: "+15551234567"}},
		{"phone, national form", `{"phone":"(555) 123-4567"}`, CreateInput{Phone: "(555) 123-4567"}},
		{"phone, dotted", `{"phone":"555.123.4567"}`, CreateInput{Phone: "555.123.4567"}},
		{"phone, 7 digits", `{"phone":"555-1234"}`, CreateInput{Phone: "555-1234"}},
		{"phone, 15 digits", `{"phone":"+123456789012345"}`, CreateInput{Phone: "+123456789012345"}},
		{"customer_name only", `{"customer_name":"Ada"}`, CreateInput{CustomerName: "Ada"}},
		{"name alias", `{"name":"Ada"}`, CreateInput{CustomerName: "Ada"}},
		{"name equal to customer_name", `{"name":"Ada","customer_name":"Ada"}`, CreateInput{CustomerName: "Ada"}},
		{"name equal after trimming", `{"name":" Ada","customer_name":"Ada  "}`, CreateInput{CustomerName: "Ada"}},
		{"blank name with customer_name", `{"name":"  ","customer_name":"Ada"}`, CreateInput{CustomerName: "Ada"}},
		{"null name with customer_name", `{"name":null,"customer_name":"Ada"}`, CreateInput{CustomerName: "Ada"}},
		{"name with blank customer_name", `{"name":"Ada","customer_name":""}`, CreateInput{CustomerName: "Ada"}},
		{"values are trimmed", "{\"customer_name\":\"\\t Ada \\n\",\"source\":\" web \"}", CreateInput{CustomerName: "Ada", Source: "web"}},
		{"nulls count as absent", `{"email":"ada@example.com","phone":null,"move_date":null,"special_items":null,"customer_name":null}`, CreateInput{Email: "ada@example.com"}},
		{"blanks count as absent", `{"email":"ada@example.com","phone":"   ","move_date":"","from_address":" ","special_items":[]}`, CreateInput{Email: "ada@example.com"}},
		{"leap day", `{"email":"a@b.co","move_date":"2028-02-29"}`, CreateInput{Email: "a@b.co", MoveDate: "2028-02-29"}},
		{"special items trimmed, blanks dropped", `{"email":"a@b.co","special_items":[" piano ","","  ","safe"]}`, CreateInput{Email: "a@b.co", SpecialItems: []string{"piano", "safe"}}},
		{"special items all blank", `{"email":"a@b.co","special_items":["", " "]}`, CreateInput{Email: "a@b.co"}},
		{"special items, 50", `{"email":"a@b.co","special_items":[` + strings.Repeat(`"x",`, 49) + `"x"]}`, CreateInput{Email: "a@b.co", SpecialItems: slices.Repeat([]string{"x"}, 50)}},
		{"white space around the object", " \n{\"email\":\"a@b.co\"}\n\t ", CreateInput{Email: "a@b.co"}},
		{"duplicate key, last wins", `{"email":"bad","email":"a@b.co"}`, CreateInput{Email: "a@b.co"}},
		{"escaped key", `{"em\u0061il":"a@b.co"}`, CreateInput{Email: "a@b.co"}},
		{"escaped value", `{"customer_name":"Ad\u00e9"}`, CreateInput{CustomerName: "Adé"}},
		{
			"all fields",
			`{"customer_name":"Ada","email":"ada@example.com","phone":"+15551234567","from_address":"1 Main St, New York, NY 10001","to_address":"2 Elm St, Boston, MA 02108","home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano","safe"],"source":"web-form"}`,
			CreateInput{
				CustomerName: "Ada", Email: "ada@example.com", Phone: "+15551234567",
				FromAddress: "1 Main St, New York, NY 10001", ToAddress: "2 Elm St, Boston, MA 02108",
				HomeSize: "2 bedroom", MoveDate: "2027-01-15", SpecialItems: []string{"piano", "safe"}, Source: "web-form",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCreate([]byte(tt.body))
			if err != nil {
				t.Fatalf("ParseCreate(%q) error %v; want %+v", tt.body, err, tt.want)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseCreate(%q) = %+v; want %+v", tt.body, got, tt.want)
			}
		})
	}
}

// TestParseCreateLengths checks every limit at its edge, counted in runes
// (é is two bytes) after trimming.
// longDomain returns a domain of two 63-octet labels, a label of n octets and
// ".com": 132+n octets, every label within the 63-octet limit.
func longDomain(n int) string {
	return strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", n) + ".com"
}

func TestParseCreateLengths(t *testing.T) {
	tests := []struct {
		field string
		max   int
		other string // a contact field so the body is otherwise valid
	}{
		{"customer_name", 200, `"email":"a@b.co"`},
		{"name", 200, `"email":"a@b.co"`},
		{"from_address", 500, `"email":"a@b.co"`},
		{"to_address", 500, `"email":"a@b.co"`},
		{"home_size", 200, `"email":"a@b.co"`},
		{"source", 200, `"email":"a@b.co"`},
	}
	for _, tt := range tests {
		t.Run(tt.field+" at limit", func(t *testing.T) {
			v := strings.Repeat("é", tt.max)
			body := `{` + tt.other + `,"` + tt.field + `":"  ` + v + `  "}`
			if _, err := ParseCreate([]byte(body)); err != nil {
				t.Errorf("%s of %d runes (%d bytes): %v; want accepted", tt.field, tt.max, len(v), err)
			}
		})
		t.Run(tt.field+" over limit", func(t *testing.T) {
			body := `{` + tt.other + `,"` + tt.field + `":"` + strings.Repeat("é", tt.max+1) + `"}`
			_, fields := parseFailure(t, body)
			reason, _ := fields[tt.field].(string)
			if !strings.Contains(reason, "at most") || !strings.Contains(reason, "(got "+strconv.Itoa(tt.max+1)+")") {
				t.Errorf("details.fields[%s] = %q; want a length reason counting %d characters", tt.field, reason, tt.max+1)
			}
		})
	}
	t.Run("email at 254", func(t *testing.T) {
		email := strings.Repeat("a", 64) + "@" + longDomain(57) // 254
		if got, err := ParseCreate([]byte(`{"email":"` + email + `"}`)); err != nil || got.Email != email {
			t.Errorf("254-character email: %+v, %v; want accepted", got, err)
		}
	})
	t.Run("email at 255", func(t *testing.T) {
		email := strings.Repeat("a", 64) + "@" + longDomain(58) // 255
		_, fields := parseFailure(t, `{"email":"`+email+`"}`)
		if _, ok := fields["email"]; !ok {
			t.Errorf("details.fields = %v; want email", fields)
		}
	})
	t.Run("phone at 32", func(t *testing.T) {
		phone := "+1 555 123 4567" + strings.Repeat(" ", 16) + "8" // 32
		if _, err := ParseCreate([]byte(`{"phone":"` + phone + `"}`)); err != nil {
			t.Errorf("32-character phone: %v; want accepted", err)
		}
	})
	t.Run("phone at 33", func(t *testing.T) {
		phone := "+1 555 123 4567" + strings.Repeat(" ", 17) + "8"
		_, fields := parseFailure(t, `{"phone":"`+phone+`"}`)
		if _, ok := fields["phone"]; !ok {
			t.Errorf("details.fields = %v; want phone", fields)
		}
	})
	t.Run("special item at 200 runes", func(t *testing.T) {
		if _, err := ParseCreate([]byte(`{"email":"a@b.co","special_items":["` + strings.Repeat("é", 200) + `"]}`)); err != nil {
			t.Errorf("200-rune special item: %v; want accepted", err)
		}
	})
}

func TestParseCreateValidationFailed(t *testing.T) {
	long := strings.Repeat("x", 201)
	tests := []struct {
		name   string
		body   string
		fields []string // exactly the fields details.fields must name
	}{
		{"empty object", `{}`, []string{"customer_name"}},
		{"no contact field", `{"from_address":"1 Main St"}`, []string{"customer_name"}},
		{"only blanks", `{"customer_name":"  ","email":"","phone":null}`, []string{"customer_name"}},
		{"only special items", `{"special_items":["piano"]}`, []string{"customer_name"}},
		{"unknown properties all named", `{"email":"a@b.co","colour":"red","Size":1,"EMAIL":"x","":0}`, []string{"", "EMAIL", "Size", "colour"}},
		{"unknown property alone", `{"nickname":"Ada"}`, []string{"nickname"}},
		{"customer_name number", `{"customer_name":42}`, []string{"customer_name"}},
		{"email boolean", `{"email":true}`, []string{"email"}},
		{"phone number", `{"phone":5551234567}`, []string{"phone"}},
		{"from_address object", `{"email":"a@b.co","from_address":{}}`, []string{"from_address"}},
		{"to_address array", `{"email":"a@b.co","to_address":["x"]}`, []string{"to_address"}},
		{"home_size number", `{"email":"a@b.co","home_size":3}`, []string{"home_size"}},
		{"move_date number", `{"email":"a@b.co","move_date":20260101}`, []string{"move_date"}},
		{"source boolean", `{"email":"a@b.co","source":false}`, []string{"source"}},
		{"name number", `{"name":1}`, []string{"name"}},
		{"name too long", `{"name":"` + long + `"}`, []string{"name"}},
		{"name differs from customer_name", `{"name":"Ada","customer_name":"Grace"}`, []string{"name"}},
		{"name differs only in case", `{"name":"ada","customer_name":"Ada"}`, []string{"name"}},
		{"customer_name too long", `{"customer_name":"` + long + `"}`, []string{"customer_name"}},
		{"bad email", `{"email":"not-an-email"}`, []string{"email"}},
		{"email with display name", `{"email":"Ada <ada@example.com>"}`, []string{"email"}},
		{"email in angle brackets", `{"email":"<ada@example.com>"}`, []string{"email"}},
		{"email without dotted domain", `{"email":"ada@localhost"}`, []string{"email"}},
		{"email domain starts with dot", `{"email":"ada@.example.com"}`, []string{"email"}},
		{"email domain ends with dot", `{"email":"ada@example.com."}`, []string{"email"}},
		{"email with two at signs", `{"email":"ada@@example.com"}`, []string{"email"}},
		{"email with space", `{"email":"ada lovelace@example.com"}`, []string{"email"}},
		{"email without local part", `{"email":"@example.com"}`, []string{"email"}},
		{"phone with letters", `{"phone":"call me"}`, []string{"phone"}},
		{"phone with extension", `{"phone":"555-123-4567 ext 2"}`, []string{"phone"}},
		{"phone plus inside", `{"phone":"1+5551234567"}`, []string{"phone"}},
		{"phone two pluses", `{"phone":"++15551234567"}`, []string{"phone"}},
		{"phone 6 digits", `{"phone":"555-123"}`, []string{"phone"}},
		{"phone 16 digits", `{"phone":"+1234567890123456"}`, []string{"phone"}},
		{"phone plus only", `{"phone":"+"}`, []string{"phone"}},
		{"move_date words", `{"email":"a@b.co","move_date":"next week"}`, []string{"move_date"}},
		{"move_date impossible day", `{"email":"a@b.co","move_date":"2026-02-30"}`, []string{"move_date"}},
		{"move_date not a leap year", `{"email":"a@b.co","move_date":"2026-02-29"}`, []string{"move_date"}},
		{"move_date month 13", `{"email":"a@b.co","move_date":"2026-13-01"}`, []string{"move_date"}},
		{"move_date unpadded", `{"email":"a@b.co","move_date":"2026-3-1"}`, []string{"move_date"}},
		{"move_date slashes", `{"email":"a@b.co","move_date":"2026/03/01"}`, []string{"move_date"}},
		{"move_date day first", `{"email":"a@b.co","move_date":"01-03-2026"}`, []string{"move_date"}},
		{"move_date with time", `{"email":"a@b.co","move_date":"2026-03-01T10:00:00Z"}`, []string{"move_date"}},
		{"special_items string", `{"email":"a@b.co","special_items":"piano"}`, []string{"special_items"}},
		{"special_items object", `{"email":"a@b.co","special_items":{"a":"piano"}}`, []string{"special_items"}},
		{"special_items number item", `{"email":"a@b.co","special_items":["piano",3]}`, []string{"special_items"}},
		{"special_items null item", `{"email":"a@b.co","special_items":["piano",null]}`, []string{"special_items"}},
		{"special_items nested array", `{"email":"a@b.co","special_items":[["piano"]]}`, []string{"special_items"}},
		{"special_items 51", `{"email":"a@b.co","special_items":[` + strings.Repeat(`"x",`, 50) + `"x"]}`, []string{"special_items"}},
		{"special_items 51 blanks", `{"email":"a@b.co","special_items":[` + strings.Repeat(`"",`, 50) + `""]}`, []string{"special_items"}},
		{"special item too long", `{"email":"a@b.co","special_items":["` + long + `"]}`, []string{"special_items"}},
		// The contact rule is reported only when nothing else failed.
		{"type error without contact", `{"from_address":1}`, []string{"from_address"}},
		{"several failures at once", `{"email":"x","move_date":"2026-02-31","zzz":1,"special_items":5}`, []string{"email", "move_date", "special_items", "zzz"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, fields := parseFailure(t, tt.body)
			if e.Code != errcode.ValidationFailed {
				t.Fatalf("code %q; want validation_failed", e.Code)
			}
			if got := keys(fields); !slices.Equal(got, tt.fields) {
				t.Errorf("details.fields names %q; want %q (%v)", got, tt.fields, fields)
			}
			for f, reason := range fields {
				if s, _ := reason.(string); s == "" {
					t.Errorf("details.fields[%q] = %#v; want a reason", f, reason)
				}
			}
		})
	}
}

func TestParseCreateSpecialItemsReasonNamesItem(t *testing.T) {
	_, fields := parseFailure(t, `{"email":"a@b.co","special_items":["piano","ok",7]}`)
	if reason, _ := fields["special_items"].(string); !strings.HasPrefix(reason, "item 2 ") {
		t.Errorf("details.fields.special_items = %q; want it to name item 2", reason)
	}
}

func TestParseCreateInvalidJSON(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"empty", ""},
		{"white space", "  \n "},
		{"form encoded", "name=Ada"},
		{"top-level array", `[{"email":"a@b.co"}]`},
		{"empty array", `[]`},
		{"top-level null", `null`},
		{"top-level number", `1`},
		{"top-level string", `"ada@example.com"`},
		{"top-level boolean", `true`},
		{"trailing object", `{"email":"a@b.co"} {}`},
		{"trailing null", `{"email":"a@b.co"} null`},
		{"trailing bracket", `{"email":"a@b.co"}]`},
		{"trailing word", `{"email":"a@b.co"}x`},
		{"truncated", `{"email":"a@b.co"`},
		{"trailing comma", `{"email":"a@b.co",}`},
		{"single quotes", `{'email':'a@b.co'}`},
		{"unquoted key", `{email:"a@b.co"}`},
		{"NUL after object", "{\"email\":\"a@b.co\"}\x00"},
		{"raw control character in string", "{\"email\":\"a@b\x01.co\"}"},
		{"byte order mark", "\xef\xbb\xbf{\"email\":\"a@b.co\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, fields := parseFailure(t, tt.body)
			if e.Code != errcode.InvalidJSON {
				t.Errorf("code %q (fields %v); want invalid_json", e.Code, fields)
			}
			if e.Message == "" {
				t.Error("message is empty")
			}
		})
	}
}

// TestParseCreateRejectsInvalidUTF8 expects the "must be valid UTF-8"
// reason stringValue has for invalid bytes. encoding/json replaces them with
// U+FFFD before stringValue checks, so the check never fires and the
// client's bytes are silently changed.
func TestParseCreateRejectsInvalidUTF8(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"customer_name", "{\"customer_name\":\"Ada\xff\"}", "customer_name"},
		{"from_address", "{\"email\":\"a@b.co\",\"from_address\":\"1 Main \xc3\x28 St\"}", "from_address"},
		{"special item", "{\"email\":\"a@b.co\",\"special_items\":[\"pi\xe2\x82ano\"]}", "special_items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseCreate([]byte(tt.body))
			if err == nil {
				t.Fatalf("ParseCreate(%q) = %+v, nil; want validation_failed naming %s (invalid UTF-8 was replaced by U+FFFD)", tt.body, in, tt.field)
			}
			e := errcode.As(err)
			fields, _ := e.Details["fields"].(map[string]any)
			if _, ok := fields[tt.field]; !ok || e.Code != errcode.ValidationFailed {
				t.Errorf("ParseCreate(%q) error %v; want validation_failed naming %s", tt.body, err, tt.field)
			}
		})
	}
}

// limits maps each string field of CreateInput to its limit in runes.
var limits = []struct {
	name string
	get  func(CreateInput) string
	max  int
}{
	{"customer_name", func(c CreateInput) string { return c.CustomerName }, maxNameLen},
	{"email", func(c CreateInput) string { return c.Email }, maxEmailLen},
	{"phone", func(c CreateInput) string { return c.Phone }, maxPhoneLen},
	{"from_address", func(c CreateInput) string { return c.FromAddress }, maxAddressLen},
	{"to_address", func(c CreateInput) string { return c.ToAddress }, maxAddressLen},
	{"home_size", func(c CreateInput) string { return c.HomeSize }, maxShortLen},
	{"move_date", func(c CreateInput) string { return c.MoveDate }, 10},
	{"source", func(c CreateInput) string { return c.Source }, maxShortLen},
}

func FuzzParseCreate(f *testing.F) {
	for _, s := range []string{
		`{"email":"ada@example.com"}`,
		`{"name":"Ada","customer_name":"Ada","phone":"+15551234567"}`,
		`{"customer_name":"Ada","email":"ada@example.com","phone":"+15551234567","from_address":"1 Main St, New York, NY 10001","to_address":"2 Elm St, Boston, MA 02108","home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano","safe"],"source":"web-form"}`,
		`{"email":"a@b.co","colour":"red"}`,
		`{"email":"a@b.co","special_items":["", " x ", null]}`,
		`{"phone":"(555) 123-4567","move_date":"2028-02-29"}`,
		`{"customer_name":"` + strings.Repeat("é", 201) + `"}`,
		`{"email":"a@b.co"} {}`,
		`[]`, `null`, `1`, `""`, ``, `{`,
		"{\"customer_name\":\"Ada\xff\"}",
		"{\"customer_name\":\"\\ud800\"}",
		`{"customer_name":"  \u00a0Ada\u2003 "}`,
		`{"a":{"b":{"c":[[[[[[[[[[1]]]]]]]]]]}}}`,
		`{"customer_name":"\u200b\u200b"}`,
		`{"email":"a@b.co","from_address":"1 Main St\r\nBoston\tMA","source":"x\u202ey"}`,
		`{"email":"\"john doe\"@example.com","phone":"\u0007"}`,
		`{"email":"user@[IPv6:2001:db8::1]","special_items":["\u2066x"]}`,
		"\xef\xbb\xbf{}",
		"\x1f\x8b\x08\x00",
		"{\"customer_name\":\"a\x00\"}",
		strings.Repeat("[", 40),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseCreate(body)
		if err != nil {
			e := errcode.As(err)
			if e == nil {
				t.Fatalf("ParseCreate(%q) error %v; want an *errcode.Error", body, err)
			}
			if st := errcode.Status(e.Code); st < 400 || st > 499 {
				t.Errorf("ParseCreate(%q) code %q answers %d; want a 4xx", body, e.Code, st)
			}
			switch e.Code {
			case errcode.InvalidJSON:
			case errcode.ValidationFailed:
				if fields, _ := e.Details["fields"].(map[string]any); len(fields) == 0 {
					t.Errorf("ParseCreate(%q): validation_failed without details.fields", body)
				}
			default:
				t.Errorf("ParseCreate(%q) code %q; want validation_failed or invalid_json", body, e.Code)
			}
			if !errors.Is(err, e) {
				t.Errorf("ParseCreate(%q) error is not its *errcode.Error", body)
			}
			return
		}
		if in.CustomerName == "" && in.Email == "" && in.Phone == "" {
			t.Errorf("ParseCreate(%q) = %+v; want one of customer_name, email, phone", body, in)
		}
		for _, l := range limits {
			v := l.get(in)
			if n := utf8.RuneCountInString(v); n > l.max {
				t.Errorf("ParseCreate(%q): %s has %d runes; want at most %d", body, l.name, n, l.max)
			}
			if v != strings.TrimSpace(v) || !utf8.ValidString(v) {
				t.Errorf("ParseCreate(%q): %s = %q; want trimmed valid UTF-8", body, l.name, v)
			}
			multiline := l.name == "from_address" || l.name == "to_address"
			checkStoredText(t, body, l.name, v, multiline)
		}
		if in.Email != "" && CheckEmail(in.Email) != "" {
			t.Errorf("ParseCreate(%q): email %q fails CheckEmail", body, in.Email)
		}
		if in.Phone != "" && checkPhone(in.Phone) != "" {
			t.Errorf("ParseCreate(%q): phone %q fails checkPhone", body, in.Phone)
		}
		if in.MoveDate != "" && checkDate(in.MoveDate) != "" {
			t.Errorf("ParseCreate(%q): move_date %q fails checkDate", body, in.MoveDate)
		}
		if len(in.SpecialItems) > maxSpecialItems || (in.SpecialItems != nil && len(in.SpecialItems) == 0) {
			t.Errorf("ParseCreate(%q): %d special items (nil %v); want 1 to %d, or nil", body, len(in.SpecialItems), in.SpecialItems == nil, maxSpecialItems)
		}
		for i, s := range in.SpecialItems {
			if s == "" || s != strings.TrimSpace(s) || utf8.RuneCountInString(s) > maxSpecialItemLen {
				t.Errorf("ParseCreate(%q): special item %d = %q; want non-empty, trimmed, at most %d runes", body, i, s, maxSpecialItemLen)
			}
			checkStoredText(t, body, "special_items", s, false)
		}
	})
}

// checkStoredText fails t when v, a value ParseCreate accepted for field,
// holds a character it must refuse or is blank: no control character but LF
// (and that only in a multi-line field), no bidi override, something visible.
func checkStoredText(t *testing.T, body []byte, field, v string, multiline bool) {
	t.Helper()
	if v != "" && invisibleOnly(v) {
		t.Errorf("ParseCreate(%q): %s = %q is blank; want it absent", body, field, v)
	}
	for _, r := range v {
		if (unicode.Is(unicode.Cc, r) && !(multiline && r == '\n')) || unicode.Is(bidiOverrides, r) || (!multiline && isLineBreak(r)) {
			t.Errorf("ParseCreate(%q): %s = %q holds %U", body, field, v, r)
		}
	}
}
