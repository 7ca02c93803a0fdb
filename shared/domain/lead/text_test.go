package lead

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// textFields lists every string the body can carry, each with the rest of a
// body that is valid without it, and a JSON value builder.
var textFields = []struct {
	name  string // the key of details.fields
	other string // the rest of a valid body
	value func(s string) string
}{
	{"customer_name", `"email":"a@b.co"`, func(s string) string { return `"customer_name":` + s }},
	{"name", `"email":"a@b.co"`, func(s string) string { return `"name":` + s }},
	{"email", `"phone":"+15551234567"`, func(s string) string { return `"email":` + s }},
	{"phone", `"email":"a@b.co"`, func(s string) string { return `"phone":` + s }},
	{"from_address", `"email":"a@b.co"`, func(s string) string { return `"from_address":` + s }},
	{"to_address", `"email":"a@b.co"`, func(s string) string { return `"to_address":` + s }},
	{"home_size", `"email":"a@b.co"`, func(s string) string { return `"home_size":` + s }},
	{"move_date", `"email":"a@b.co"`, func(s string) string { return `"move_date":` + s }},
	{"source", `"email":"a@b.co"`, func(s string) string { return `"source":` + s }},
	{"special_items", `"email":"a@b.co"`, func(s string) string { return `"special_items":["piano",` + s + `]` }},
}

// TestParseCreateRejectsControlAndBidiCharacters sends each refused character
// escaped inside every string field and checks the reason names it.
func TestParseCreateRejectsControlAndBidiCharacters(t *testing.T) {
	refused := []struct {
		r    rune
		kind string
	}{
		{0x00, "control character"}, {0x07, "control character"}, {0x0B, "control character"},
		{0x1B, "control character"}, {0x7F, "control character"}, {0x80, "control character"},
		{0x85, "control character"}, {0x9F, "control character"},
		{0x202A, "bidirectional formatting character"}, {0x202D, "bidirectional formatting character"},
		{0x202E, "bidirectional formatting character"}, {0x2066, "bidirectional formatting character"},
		{0x2069, "bidirectional formatting character"},
	}
	for _, f := range textFields {
		for _, c := range refused {
			t.Run(fmt.Sprintf("%s U+%04X", f.name, c.r), func(t *testing.T) {
				body := `{` + f.other + `,` + f.value(fmt.Sprintf(`"1\u%04x2"`, c.r)) + `}`
				e, fields := parseFailure(t, body)
				reason, _ := fields[f.name].(string)
				want := fmt.Sprintf("contains the %s U+%04X", c.kind, c.r)
				if e.Code != errcode.ValidationFailed || !strings.Contains(reason, want) {
					t.Errorf("ParseCreate(%s): code %q, fields %v; want validation_failed with details.fields[%s] containing %q", body, e.Code, fields, f.name, want)
				}
			})
		}
	}
}

// TestParseCreateLineBreaks checks the choice ParseCreate documents: tabs and
// line breaks only in from_address and to_address, normalised there.
func TestParseCreateLineBreaks(t *testing.T) {
	for _, f := range textFields {
		multiline := f.name == "from_address" || f.name == "to_address"
		for _, brk := range []string{`\t`, `\n`, `\r`, `\r\n`, `\u2028`, `\u2029`} {
			t.Run(f.name+" "+brk, func(t *testing.T) {
				body := `{` + f.other + `,` + f.value(`"1`+brk+`2"`) + `}`
				in, err := ParseCreate([]byte(body))
				if multiline {
					if err != nil {
						t.Fatalf("ParseCreate(%s) error %v; want accepted", body, err)
					}
					want := "1\n2"
					if brk == `\t` {
						want = "1 2"
					}
					if got := in.FromAddress + in.ToAddress; got != want {
						t.Errorf("ParseCreate(%s) address %q; want %q", body, got, want)
					}
					return
				}
				_, fields := parseFailure(t, body)
				reason, _ := fields[f.name].(string)
				if !strings.Contains(reason, "only from_address and to_address may hold tabs or line breaks") {
					t.Errorf("ParseCreate(%s) details.fields[%s] = %q; want it refused as a tab or line break", body, f.name, reason)
				}
			})
		}
	}
	t.Run("textarea address", func(t *testing.T) {
		body := `{"email":"a@b.co","from_address":"  1 Main St\r\nApt 2\rBoston,\tMA\u2028USA \r\n","to_address":"2 Elm St\nNew York"}`
		in, err := ParseCreate([]byte(body))
		want := CreateInput{Email: "a@b.co", FromAddress: "1 Main St\nApt 2\nBoston, MA\nUSA", ToAddress: "2 Elm St\nNew York"}
		if err != nil || !reflect.DeepEqual(in, want) {
			t.Errorf("ParseCreate(%s) = %+v, %v; want %+v", body, in, err, want)
		}
	})
	t.Run("address length counted after CRLF becomes LF", func(t *testing.T) {
		v := strings.Repeat("a", 250) + `\r\n` + strings.Repeat("b", 249) // 501 characters sent, 500 stored
		if _, err := ParseCreate([]byte(`{"email":"a@b.co","from_address":"` + v + `"}`)); err != nil {
			t.Errorf("address of 500 characters after normalising: %v; want accepted", err)
		}
	})
}

// TestParseCreateInvisibleIsBlank checks that a string of only invisible
// characters counts as absent.
func TestParseCreateInvisibleIsBlank(t *testing.T) {
	blanks := []string{
		`\u200b\u200b`, `\u200c`, `\u200d`, `\u2060`, `\ufeff`, `\u00ad`, ` \u200b \u00a0\u3000 `,
		`\u3164`, `\ufe0f`, `\u2061\u180e`,
	}
	for _, b := range blanks {
		t.Run("customer_name "+b, func(t *testing.T) {
			_, fields := parseFailure(t, `{"customer_name":"`+b+`"}`)
			if reason, _ := fields["customer_name"].(string); !strings.Contains(reason, "at least one of customer_name (or name), email, phone is required") {
				t.Errorf("details.fields = %v; want the contact rule, the name being blank", fields)
			}
		})
		t.Run("fields "+b, func(t *testing.T) {
			body := `{"email":"a@b.co","name":"` + b + `","phone":"` + b + `","from_address":"` + b + `\r\n` + b + `","home_size":"` + b + `","move_date":"` + b + `","source":"` + b + `","special_items":["` + b + `","piano"]}`
			in, err := ParseCreate([]byte(body))
			want := CreateInput{Email: "a@b.co", SpecialItems: []string{"piano"}}
			if err != nil || !reflect.DeepEqual(in, want) {
				t.Errorf("ParseCreate(%s) = %+v, %v; want %+v", body, in, err, want)
			}
		})
	}
	t.Run("visible text with invisible characters is kept", func(t *testing.T) {
		in, err := ParseCreate([]byte(`{"customer_name":"Ada\u200b","source":"\u05e9\u05dc\u05d5\u05dd\u200f"}`))
		if err != nil || in.CustomerName != "Ada\u200b" || in.Source != "שלום\u200f" {
			t.Errorf("got %+v, %v; want the values as sent", in, err)
		}
	})
}

// TestBidiOverrides checks the hand-written table against Unicode's
// Bidi_Control property: the nine embeddings, overrides and isolates, and
// none of the marks.
func TestBidiOverrides(t *testing.T) {
	var got []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.Is(bidiOverrides, r) {
			got = append(got, r)
			if !unicode.Is(unicode.Bidi_Control, r) {
				t.Errorf("U+%04X is in bidiOverrides but not Bidi_Control", r)
			}
		}
	}
	want := []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bidiOverrides = %U; want %U", got, want)
	}
}
