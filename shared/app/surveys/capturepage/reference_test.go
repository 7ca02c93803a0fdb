package capturepage

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// The pages were html/template templates until they became templ
// components; the old templates are kept, for this test only, in
// testdata/reference, and the templ pages must build the same DOM from the
// same data, whatever the data.

var (
	referencePage  = template.Must(template.ParseFiles("testdata/reference/page.html"))
	referenceError = template.Must(template.ParseFiles("testdata/reference/error.html"))
)

// referenceView is the data the old page.html read: the inline assets as
// html/template's trusted types, and the view's fields.
type referenceView struct {
	CSS template.CSS
	JS  template.JS
	pageView
}

func renderReferencePage(t testing.TB, v pageView) []byte {
	t.Helper()
	a := loadAssets()
	var b bytes.Buffer
	if err := referencePage.Execute(&b, referenceView{template.CSS(a.CSS), template.JS(a.JS), v}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func renderReferenceError(t testing.TB, v errorView) []byte {
	t.Helper()
	var b bytes.Buffer
	err := referenceError.Execute(&b, struct {
		CSS template.CSS
		errorView
	}{template.CSS(loadAssets().CSS), v})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// domLines is the DOM that browsers build of body, one line per node:
// elements with their attributes sorted by name, text with its runs of
// white space collapsed, white-space-only text left out. Two differences
// that nobody sees are normalised: U+FFFD is dropped from text (html/template
// writes a NUL in text as U+FFFD, templ writes it as it is and the parser
// drops it), and the survey-data JSON is trimmed (templ.JSONScript's
// encoder ends it with a newline).
func domLines(t testing.TB, body []byte) []string {
	t.Helper()
	// Without scripting, as a browser whose JavaScript is off reads it: with
	// it, <noscript> holds its markup as raw text that nobody sees, where
	// html/template's &#43; for + is not the same text as templ's +.
	doc, err := html.ParseWithOptions(bytes.NewReader(body), html.ParseOptionEnableScripting(false))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node, depth int, jsonData bool)
	walk = func(n *html.Node, depth int, jsonData bool) {
		pad := strings.Repeat(" ", depth)
		switch n.Type {
		case html.ElementNode:
			attrs := make([]string, 0, len(n.Attr))
			for _, a := range n.Attr {
				attrs = append(attrs, fmt.Sprintf("%s:%s=%q", a.Namespace, a.Key, a.Val))
			}
			slices.Sort(attrs)
			out = append(out, pad+"<"+n.Data+" "+strings.Join(attrs, " ")+">")
			jsonData = n.Data == "script" && attr(n, "id") == "survey-data"
		case html.TextNode:
			text := collapse(strings.ReplaceAll(n.Data, "\uFFFD", ""))
			if jsonData {
				text = strings.TrimSpace(n.Data)
			}
			if text != "" && text != " " {
				out = append(out, pad+fmt.Sprintf("%q", text))
			}
		case html.DoctypeNode:
			out = append(out, "<!doctype "+n.Data+">")
		case html.CommentNode:
			out = append(out, pad+"<!--"+n.Data+"-->")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1, jsonData)
		}
	}
	walk(doc, 0, false)
	return out
}

// collapse replaces each run of HTML white space in s by one space.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\f', '\r':
			space = true
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteByte(c)
		}
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// sameDOM fails the test at the first node where got and want differ.
func sameDOM(t testing.TB, got, want []byte) {
	t.Helper()
	g, w := domLines(t, got), domLines(t, want)
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("DOM differs at node %d:\ngot  %s\nwant %s", i, gl, wl)
		}
	}
}

func TestPagesMatchTheHTMLTemplateReference(t *testing.T) {
	p := samplePage()
	sameDOM(t, Render(p).Body, renderReferencePage(t, viewOf(p)))
	p.Clips, p.Rooms, p.Items, p.Checklist = nil, nil, nil, nil
	sameDOM(t, Render(p).Body, renderReferencePage(t, viewOf(p)))
	for _, status := range []int{404, 409, 410, 500} {
		for _, company := range []string{"", "Demo Movers"} {
			sameDOM(t, ErrorPage(status, company).Body, renderReferenceError(t, errorViewOf(status, company)))
		}
	}
}

// FuzzPageMatchesHTMLTemplate renders the capture page and an error page
// of fuzzed strings with templ and with the old html/template templates,
// and requires the same DOM.
func FuzzPageMatchesHTMLTemplate(f *testing.F) {
	for _, s := range []string{
		"", "Demo Movers", `</script><script>alert(1)</script>`, `" onmouseover="x`, `' onfocus='x`,
		"javascript:alert(1)", "{{", "{{.Company}}", "}}", "<!--", "-->", "</style>", "&amp; &lt;",
		"Déménagements Côté ✓ 引越し", "\u2028\u2029", "a\x00b", "A+B & C's", "\xff\xfe", "  spaced\n\tout  ", "${x}", "`",
	} {
		f.Add(s, s, s, s, s, 409)
	}
	f.Add("Demo Movers", "Living room", "sofa_3_seat", "Sofa, 3 seats", "/v1-capture/tok", 404)
	f.Fuzz(func(t *testing.T, company, room, key, name, api string, status int) {
		p := Page{
			Company:        company,
			APIBase:        api,
			UploadOrigin:   api,
			Rooms:          []string{room, "Kitchen"},
			Items:          []Item{{Key: key, Name: name}, {Key: "sofa_3_seat", Name: name}},
			Clips:          []Clip{{ID: key, Room: room, Verdict: name, Reason: name}},
			Checklist:      map[string]map[string]int{room: {key: 1}},
			ClipsMax:       20,
			MaxClipBytes:   500 << 20,
			MaxClipSeconds: 600,
			ExpiresAt:      time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC),
		}
		sameDOM(t, Render(p).Body, renderReferencePage(t, viewOf(p)))
		sameDOM(t, ErrorPage(status, company).Body, renderReferenceError(t, errorViewOf(status, company)))
	})
}
