// Package htmltest holds what the tests of the service's HTML pages
// (shared/app/surveys/capturepage, shared/app/videolinks/viewerpage) share: a tokenizer that reads a
// page into its elements and fails on broken nesting, lookups over them,
// the checks of the headers and Content-Security-Policy every page answer
// carries, and, for the tests that open a page in headless Chromium, a
// console watcher, a phone-sized tab and screenshots.
//
// Only _test.go files import it: it links golang.org/x/net/html and
// chromedp, which no function binary carries.
package htmltest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// Element is an element of a parsed page with its text content (the text
// of every element inside it too).
type Element struct {
	Tag   string
	Attrs map[string]string
	Text  string
}

// void are the elements that have no end tag.
var void = map[string]bool{"meta": true, "input": true, "br": true, "img": true, "link": true, "hr": true, "source": true}

// Parse tokenizes an HTML document, failing the test on any end tag that
// does not close the element open at that point (void elements need none),
// on an element left open at the end, on an attribute given twice and on a
// missing <!doctype html>, and returns every element in document order.
func Parse(t testing.TB, body []byte) []Element {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	var stack []int
	var els []Element
	sawDoctype := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("tokenize: %v", z.Err())
			}
			if len(stack) != 0 {
				t.Fatalf("elements left open at the end: %v", openTags(els, stack))
			}
			if !sawDoctype {
				t.Error("no <!doctype html>")
			}
			return els
		case html.DoctypeToken:
			sawDoctype = true
		case html.StartTagToken, html.SelfClosingTagToken:
			raw := bytes.Clone(z.Raw())
			tok := z.Token()
			e := Element{Tag: tok.Data, Attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.Attrs[a.Key] = a.Val
			}
			if name := repeatedAttr(raw); name != "" {
				t.Errorf("<%s> has attribute %q twice", tok.Data, name)
			}
			els = append(els, e)
			if tt == html.StartTagToken && !void[tok.Data] {
				stack = append(stack, len(els)-1)
			}
		case html.EndTagToken:
			tok := z.Token()
			if len(stack) == 0 || els[stack[len(stack)-1]].Tag != tok.Data {
				t.Fatalf("</%s> closes nothing open (open: %v)", tok.Data, openTags(els, stack))
			}
			stack = stack[:len(stack)-1]
		case html.TextToken:
			text := string(z.Text())
			for _, i := range stack {
				els[i].Text += text
			}
		}
	}
}

func openTags(els []Element, stack []int) []string {
	var s []string
	for _, i := range stack {
		s = append(s, els[i].Tag)
	}
	return s
}

// IDs returns the ids of els, failing the test for each id that more than
// one element has.
func IDs(t testing.TB, els []Element) map[string]bool {
	t.Helper()
	n := map[string]int{}
	for _, e := range els {
		if id, ok := e.Attrs["id"]; ok {
			n[id]++
		}
	}
	ids := make(map[string]bool, len(n))
	for id, k := range n {
		if k > 1 {
			t.Errorf("id %q used %d times", id, k)
		}
		ids[id] = true
	}
	return ids
}

// ByClass returns the elements whose class list holds class.
func ByClass(els []Element, class string) []Element {
	var out []Element
	for _, e := range els {
		for _, c := range strings.Fields(e.Attrs["class"]) {
			if c == class {
				out = append(out, e)
			}
		}
	}
	return out
}

// VisibleText is the text of the page's body with runs of white space
// collapsed, roughly what a person reads.
func VisibleText(t testing.TB, body []byte) string {
	t.Helper()
	for _, e := range Parse(t, body) {
		if e.Tag == "body" {
			return strings.Join(strings.Fields(e.Text), " ")
		}
	}
	t.Fatal("no <body>")
	return ""
}

// HashOf is the CSP source expression that allows an inline element whose
// text is s. It is worked out here, not by htmlpage.Hash, so that a page's
// test does not check the page's code against itself.
func HashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// Directive returns the sources of one directive of a
// Content-Security-Policy, nil when the policy lacks it.
func Directive(csp, name string) []string {
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) > 0 && f[0] == name {
			return f[1:]
		}
	}
	return nil
}

// SecurityHeaders are the headers, with their values, of every answer of
// every page.
var SecurityHeaders = map[string]string{
	"Content-Type":           "text/html; charset=utf-8",
	"Referrer-Policy":        "no-referrer",
	"Cache-Control":          "no-store",
	"X-Robots-Tag":           "noindex",
	"X-Content-Type-Options": "nosniff",
}

// BaseDirectives are the directives the Content-Security-Policy of every
// page holds: nothing by default, and no <base>, form or framing.
var BaseDirectives = []string{"default-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"}

// CheckHeaders checks the headers h of a page answer: SecurityHeaders and
// want, each with its value, and a Content-Security-Policy that holds
// BaseDirectives and directives, and no 'unsafe-…' source nor a wildcard.
func CheckHeaders(t testing.TB, h, want map[string]string, directives ...string) {
	t.Helper()
	for _, m := range []map[string]string{SecurityHeaders, want} {
		for k, v := range m {
			if h[k] != v {
				t.Errorf("%s = %q; want %q", k, h[k], v)
			}
		}
	}
	csp := h["Content-Security-Policy"]
	for _, d := range slices.Concat(BaseDirectives, directives) {
		if !strings.Contains(csp, d) {
			t.Errorf("CSP lacks %q: %s", d, csp)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "*") {
		t.Errorf("CSP allows too much: %s", csp)
	}
}

// CheckNoInlineAttrs fails the test for each element with a style
// attribute or an inline event handler (on…), which a policy that allows
// inline code only by hash blocks.
func CheckNoInlineAttrs(t testing.TB, els []Element) {
	t.Helper()
	for _, e := range els {
		if _, ok := e.Attrs["style"]; ok {
			t.Errorf("<%s> has a style attribute, which the policy blocks", e.Tag)
		}
		for k := range e.Attrs {
			if strings.HasPrefix(k, "on") {
				t.Errorf("<%s> has an inline handler %s, which the policy blocks", e.Tag, k)
			}
		}
	}
}

// repeatedAttr returns the first attribute name given twice in the raw
// start tag raw, or "". The tokenizer (golang.org/x/net/html since v0.3x)
// keeps only an attribute's first occurrence, as browsers do, so a
// template's repeated attribute (whose later value the page silently
// loses) is found here, by the HTML tokenizer's attribute-name rules: names
// end at whitespace, '/', '>' or '=', values are quoted or end at
// whitespace or '>', and names compare lower-cased.
func repeatedAttr(raw []byte) string {
	s := string(raw)
	i := strings.IndexAny(s, " \t\n\f\r/>") // past "<tagname"
	if i < 0 {
		return ""
	}
	seen := map[string]bool{}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	for i < len(s) {
		for i < len(s) && (isSpace(s[i]) || s[i] == '/') {
			i++
		}
		if i >= len(s) || s[i] == '>' {
			break
		}
		start := i
		for i++; i < len(s) && !isSpace(s[i]) && s[i] != '/' && s[i] != '>' && s[i] != '='; i++ {
		}
		name := strings.ToLower(s[start:i])
		if seen[name] {
			return name
		}
		seen[name] = true
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			continue
		}
		for i++; i < len(s) && isSpace(s[i]); i++ {
		}
		if i < len(s) && (s[i] == '"' || s[i] == '\'') {
			q := s[i]
			end := strings.IndexByte(s[i+1:], q)
			if end < 0 {
				break
			}
			i += end + 2
			continue
		}
		for i < len(s) && !isSpace(s[i]) && s[i] != '>' {
			i++
		}
	}
	return ""
}
