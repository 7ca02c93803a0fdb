package htmlpage

import (
	"bytes"
	"html"
	"html/template"
	"io"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

func TestHash(t *testing.T) {
	for in, want := range map[string]string{
		// The example of the CSP Level 3 specification (§ 2.3.1,
		// "hash-source"), and the SHA-256 of nothing.
		"alert('Hello, world.');": "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='",
		"":                        "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
	} {
		if got := Hash(in); got != want {
			t.Errorf("Hash(%q) = %s; want %s", in, got, want)
		}
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"\x00": "\uFFFD",
		`"`:    "&#34;",
		"&":    "&amp;",
		"'":    "&#39;",
		"+":    "&#43;",
		"<":    "&lt;",
		">":    "&gt;",
		// Everything else is left as it is, invalid UTF-8 included.
		"":                            "",
		"Demo Movers":                 "Demo Movers",
		"Déménagements 日本 \U0001F69A": "Déménagements 日本 \U0001F69A",
		"a=b `c` /d\r\n\t;,#%":        "a=b `c` /d\r\n\t;,#%",
		"\xff\xfe":                    "\xff\xfe",
		"&amp;":                       "&amp;amp;",
		`</script><a href="x" onclick='y'>1+1</a>` + "\x00": "&lt;/script&gt;&lt;a href=&#34;x&#34; onclick=&#39;y&#39;&gt;1&#43;1&lt;/a&gt;\uFFFD",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q; want %q", in, got, want)
		}
	}
}

// asTemplate is the markup html/template makes of a value in text, in
// RCDATA (<title>) and in a quoted attribute: Escape must give the same.
var asTemplate = template.Must(template.New("").Parse(`<title>{{.}}</title><p title="{{.}}" data-x='{{.}}'>{{.}}</p>`))

// readBack parses markup as the body of a page and returns its text and the
// values of its attributes, as a browser reads them.
func readBack(t *testing.T, markup string) (text string, attrs []string) {
	t.Helper()
	z := xhtml.NewTokenizer(strings.NewReader(markup))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("tokenize %q: %v", markup, z.Err())
			}
			return text, attrs
		case xhtml.TextToken:
			text += string(z.Text())
		case xhtml.StartTagToken, xhtml.EndTagToken:
			for _, a := range z.Token().Attr {
				attrs = append(attrs, a.Val)
			}
		default:
			t.Fatalf("%q holds a token other than text and tags: %v", markup, z.Token())
		}
	}
}

// FuzzEscape: whatever s, Escape(s) is what html/template writes for it,
// and a browser reads it back, as text and as a quoted attribute value, as
// s itself, but for what the HTML parser does to any input (NUL read as
// U+FFFD, CR LF and CR read as LF).
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"Demo Movers", "", "\x00", `"'&+<>`, "</title><script>alert(1)</script>", "a\r\nb\rc", "&amp;", "&#34", "\xff", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Escape works a byte at a time, so a long input shows nothing a
		// short one does not; it only makes the fuzzer's minimizing of a
		// new input, by default up to a minute, take up a short run.
		if len(s) > 512 {
			t.Skip()
		}
		e := Escape(s)
		var b bytes.Buffer
		if err := asTemplate.Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		if want := `<title>` + e + `</title><p title="` + e + `" data-x='` + e + `'>` + e + `</p>`; b.String() != want {
			t.Fatalf("Escape(%q) = %q; html/template writes %q", s, e, b.String())
		}
		want := strings.ReplaceAll(s, "\x00", "\uFFFD")
		if got := html.UnescapeString(e); got != want {
			t.Fatalf("html.UnescapeString(Escape(%q)) = %q; want %q", s, got, want)
		}
		want = strings.ReplaceAll(strings.ReplaceAll(want, "\r\n", "\n"), "\r", "\n")
		text, attrs := readBack(t, e+`<p title="`+e+`" data-x='`+e+`'>`)
		if text != want {
			t.Fatalf("Escape(%q) = %q reads back as text %q; want %q", s, e, text, want)
		}
		if len(attrs) != 2 || attrs[0] != want || attrs[1] != want {
			t.Fatalf("Escape(%q) = %q reads back as attribute values %q; want %q twice", s, e, attrs, want)
		}
	})
}
