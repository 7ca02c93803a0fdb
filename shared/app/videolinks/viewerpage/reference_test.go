package viewerpage

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// The pages were html/template templates until they became templ
// components; testdata/reference keeps those templates, so the fuzz target
// below can check that the components build the same document for any
// data.

// referenceTemplates are the old template files, parsed once.
var referenceTemplates = sync.OnceValues(func() (*template.Template, error) {
	return template.ParseFiles("testdata/reference/page.html", "testdata/reference/error.html")
})

// renderReference renders the old template file (page.html or error.html)
// with data, as the package did with html/template.
func renderReference(t *testing.T, file string, data any) []byte {
	t.Helper()
	tmpl, err := referenceTemplates()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, file, data); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return b.Bytes()
}

// referencePage is the data the old page.html took.
type referencePage struct {
	CSS template.CSS
	JS  template.JS
	pageView
}

// referenceError is the data the old error.html took.
type referenceError struct {
	CSS            template.CSS
	Title, Message string
}

// dom flattens an HTML document, as golang.org/x/net/html parses it, into
// one line per element start, element end and text: attributes in their
// order, text with white space runs collapsed, white-space-only text left
// out. src attributes, and text, are normalised where html/template and
// templ legitimately write the same datum differently (see canonicalSrc
// and canonicalText).
func dom(t *testing.T, doc []byte) []string {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			var b strings.Builder
			b.WriteString("<" + n.Data)
			for _, a := range n.Attr {
				v := a.Val
				if a.Key == "src" {
					v = canonicalSrc(v)
				}
				fmt.Fprintf(&b, " %s=%q", a.Key, v)
			}
			out = append(out, b.String()+">")
		case html.TextNode:
			if s := canonicalText(n.Data); strings.TrimSpace(s) != "" {
				out = append(out, "text "+strings.Join(strings.FieldsFunc(s, isHTMLSpace), " ")+edges(s))
			}
		case html.DoctypeNode:
			out = append(out, "<!doctype "+n.Data+">")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode {
			out = append(out, "</"+n.Data+">")
		}
	}
	walk(root)
	return out
}

func isHTMLSpace(r rune) bool { return strings.ContainsRune(" \t\n\f\r", r) }

// edges marks text that begins or ends with white space, which a reader
// sees as a space between words: collapsing runs must not hide a lost one.
func edges(s string) string {
	var m string
	if isHTMLSpace(rune(s[0])) {
		m += " [lead]"
	}
	if isHTMLSpace(rune(s[len(s)-1])) {
		m += " [trail]"
	}
	return m
}

// canonicalText drops U+FFFD: html/template writes a NUL in text as
// U+FFFD, templ writes the NUL, which an HTML parser drops from body text.
func canonicalText(s string) string { return strings.ReplaceAll(s, "\uFFFD", "") }

// canonicalSrc normalises the two ways the pages' engines write an address:
//   - html/template percent-encodes every byte a URL may not hold (a
//     browser does the same before it sends the request); templ writes the
//     address as it is, HTML-escaped. Both are brought to html/template's
//     encoding, with NUL and U+FFFD alike (a parser reads a NUL in an
//     attribute as U+FFFD).
//   - a refused address is "#ZgotmplZ" from html/template and
//     "about:invalid#TemplFailedSanitizationURL" from templ; templ also lets
//     tel:, ftp: and ftps: addresses through, which html/template refuses
//     and which a <source> cannot play either. All of these read "refused".
func canonicalSrc(v string) string {
	if v == "#ZgotmplZ" || v == "about:invalid#TemplFailedSanitizationURL" {
		return "refused"
	}
	if scheme, _, ok := strings.Cut(v, ":"); ok && !strings.Contains(scheme, "/") {
		switch strings.ToLower(scheme) {
		case "tel", "ftp", "ftps":
			return "refused"
		}
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~!#$&*+,/:;=?@[]%", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return strings.ReplaceAll(b.String(), "%00", "%ef%bf%bd")
}

// sameDOM fails t unless the two documents parse to the same elements,
// attributes and text.
func sameDOM(t *testing.T, reference, got []byte) {
	t.Helper()
	want, have := dom(t, reference), dom(t, got)
	for i := range max(len(want), len(have)) {
		var w, h string
		if i < len(want) {
			w = want[i]
		}
		if i < len(have) {
			h = have[i]
		}
		if w != h {
			t.Fatalf("node %d: templ %q; html/template %q\ntempl:\n%s\nhtml/template:\n%s", i, h, w, got, reference)
		}
	}
}

// FuzzPageMatchesHTMLTemplate renders the page and the error page with
// fuzzed text (company, rooms, clip addresses and types, title, message)
// through the templ components and through the old html/template files,
// and requires the same document.
func FuzzPageMatchesHTMLTemplate(f *testing.F) {
	hostile := []string{
		"</script><script>alert(1)</script>", `" onmouseover="x`, "javascript:alert(1)", "{{.CSS}}", "{{",
		"Wohnzimmer – Küche 🏠", "", "  ", "a\x00b", "tel:123", "https://m/1?a=1&b=2#t=3", "&amp; &lt;", "\xff\xfe",
	}
	for i, s := range hostile {
		f.Add(s, hostile[(i+1)%len(hostile)], hostile[(i+2)%len(hostile)], "video/mp4", s, mediaOrigin+"/clips/2.mov?X-Amz-Signature=ef", "Video/QuickTime", uint8(i%4), int64(i)*int64(time.Second), s, hostile[(i+3)%len(hostile)])
	}
	f.Add("Demo Movers", "Living room", mediaOrigin+"/clips/1.mp4?X-Amz-Signature=ab&X-Amz-Expires=600", "video/mp4", "Kitchen",
		mediaOrigin+"/clips/2.webm?X-Amz-Signature=cd", "video/webm;codecs=vp8,opus", uint8(3), int64(65*time.Second),
		"This video link is no longer available", "It has expired.")
	f.Fuzz(func(t *testing.T, company, room1, url1, type1, room2, url2, type2 string, clips uint8, duration int64, title, message string) {
		p := Page{
			Company: company,
			Clips: []Clip{
				{Room: room1, URL: url1, ContentType: type1, Duration: time.Duration(duration)},
				{Room: room2, URL: url2, ContentType: type2},
				{Room: room1 + room2, URL: url1 + url2, ContentType: type2, Duration: time.Duration(duration) / 3},
			}[:clips%4],
			LinkExpiresAt: time.Unix(duration%(1<<35), 0),
			AddressTTL:    time.Duration(duration),
			MediaOrigin:   mediaOrigin,
		}
		css := template.CSS(loadAssets().CSS)
		sameDOM(t, renderReference(t, "page.html", referencePage{css, template.JS(loadAssets().JS), newPageView(p)}), Render(p).Body)
		got, err := render(errorDocument(title, message))
		if err != nil {
			t.Fatal(err)
		}
		sameDOM(t, renderReference(t, "error.html", referenceError{css, title, message}), got)
	})
}
