package quotepage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// The pages were html/template templates before they became templ
// components (their binaries kept every method of every linked type). The
// old templates are kept in testdata/reference, and the tests here render
// the same views with both and require the same DOM.

// referenceTemplates are the old page.html with its sections, and
// error.html.
func referenceTemplates(t testing.TB) (page, errorPage *template.Template) {
	t.Helper()
	dir := "testdata/reference/"
	// pngURL is the signed copy's signature as a data: URL, marked safe as templ.SafeURL does.
	funcs := template.FuncMap{"pngURL": func(b []byte) template.URL { return template.URL(pngURL(b)) }}
	page, err := template.New("page.html").Funcs(funcs).ParseFiles(dir+"page.html", dir+"done.html", dir+"closed.html", dir+"sign.html", dir+"accept.html")
	if err != nil {
		t.Fatal(err)
	}
	errorPage, err = template.ParseFiles(dir + "error.html")
	if err != nil {
		t.Fatal(err)
	}
	return page, errorPage
}

// referencePageData is v as page.html read it: every field by name, the
// assets typed as html/template's verbatim CSS and JS, and the status
// block's class as a string.
func referencePageData(v pageView) map[string]any {
	m := map[string]any{}
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		m[rv.Type().Field(i).Name] = rv.Field(i).Interface()
	}
	m["CSS"], m["JS"] = template.CSS(v.CSS), template.JS(v.JS)
	m["DepositStatusClass"] = ""
	if v.DepositStatusOK {
		m["DepositStatusClass"] = "is-ok"
	}
	return m
}

func executeReference(t testing.TB, tmpl *template.Template, data any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		t.Fatalf("reference template: %v", err)
	}
	return b.Bytes()
}

// sameDOM fails unless got and want parse (as a browser would) into the
// same tree: the same elements, attributes and values, and text, its
// white space runs collapsed and white-space-only text ignored (and a
// class attribute's names as a list: the old template left a space after
// the last; and text without U+FFFD, see domOf). Inline
// <style> and <script> text is compared exactly; the JSON data block as
// JSON (html/template and templ escape it differently). A URL attribute is
// compared as html/template normalises it, and a URL either one refused
// is one value (see urlOf).
func sameDOM(t *testing.T, name string, got, want []byte) {
	t.Helper()
	g, w := domOf(t, got), domOf(t, want)
	if slices.Equal(g, w) {
		return
	}
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			t.Fatalf("%s: templ and html/template differ at node %d:\ntempl:         %s\nhtml/template: %s", name, i, g[i], w[i])
		}
	}
	t.Fatalf("%s: templ has %d nodes, html/template %d", name, len(g), len(w))
}

func domOf(t *testing.T, body []byte) []string {
	t.Helper()
	// Without scripting, as the tree a reader without JavaScript gets:
	// <noscript> holds elements, not raw text.
	doc, err := html.ParseWithOptions(bytes.NewReader(body), html.ParseOptionEnableScripting(false))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.DoctypeNode:
			out = append(out, "doctype "+n.Data)
		case html.CommentNode:
			out = append(out, "comment "+n.Data)
		case html.TextNode:
			p := n.Parent
			switch {
			case p.Data == "script" && attrOf(p, "type") == "application/json":
				out = append(out, "json "+canonicalJSON(t, n.Data))
			case p.Data == "script" || p.Data == "style":
				out = append(out, "raw "+n.Data)
			default:
				// A NUL in text: html/template writes U+FFFD, templ the
				// NUL, which the parser (as a browser) drops.
				if s := collapse(strings.ReplaceAll(n.Data, "\uFFFD", "")); strings.Trim(s, " ") != "" {
					out = append(out, "text "+strconv.Quote(s))
				}
			}
		case html.ElementNode:
			var attrs []string
			for _, a := range n.Attr {
				v := a.Val
				switch a.Key {
				case "href":
					v = urlOf(v)
				case "class":
					v = strings.Join(strings.Fields(v), " ") // a list of names
				}
				attrs = append(attrs, a.Namespace+a.Key+"="+strconv.Quote(v))
			}
			slices.Sort(attrs)
			out = append(out, "<"+n.Data+" "+strings.Join(attrs, " ")+">")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode {
			out = append(out, "</"+n.Data+">")
		}
	}
	walk(doc)
	return out
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// collapse makes each run of HTML white space one space.
func collapse(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if strings.ContainsRune(" \t\n\f\r", r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

func canonicalJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("data block is not JSON: %v\n%s", err, s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// refusedURL stands for a URL a sanitiser replaced: html/template writes
// #ZgotmplZ, templ about:invalid#TemplFailedSanitizationURL.
const refusedURL = "(refused URL)"

// urlOf is a URL attribute as html/template writes it: both markers of a
// refused URL are one, and so is a URL of a scheme that templ allows and
// html/template does not (tel, ftp, ftps: none runs a script); other
// values are percent-encoded as html/template's normaliser does (the
// browser follows either spelling to the same address), without tabs and
// line breaks: html/template encodes them, templ writes them and the
// browser's URL parser drops them (checkoutURL lets none through).
func urlOf(s string) string {
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "", "%09", "", "%0a", "", "%0d", "").Replace(s)
	// A NUL: html/template writes %00, templ the NUL, which the parser
	// (as a browser) makes U+FFFD; so U+FFFD counts as a NUL.
	s = strings.ReplaceAll(s, "\uFFFD", "\x00")
	if s == "#ZgotmplZ" || s == "about:invalid#TemplFailedSanitizationURL" {
		return refusedURL
	}
	if i := strings.IndexByte(s, ':'); i >= 0 && !strings.Contains(s[:i], "/") {
		switch strings.ToLower(s[:i]) {
		case "tel", "ftp", "ftps":
			return refusedURL
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		validEscape := c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2])
		if validEscape || strings.IndexByte("!#$&*+,/:;=?@[]-._~", c) >= 0 || isHexDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return strings.ReplaceAll(b.String(), "%ef%bf%bd", "%00")
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// filler fills every string of a value with one of four fuzzed strings in
// turn, and its booleans, numbers, pointers and slices from fuzzed bits.
type filler struct {
	strs [4]string
	bits uint64
	n    int
}

func (f *filler) str() string { s := f.strs[f.n%len(f.strs)]; f.n++; return s }

func (f *filler) bit() bool {
	b := f.bits&1 == 1
	f.bits = f.bits>>1 | f.bits<<63
	return b
}

func (f *filler) small() int { return int(f.bits>>3) % 3 }

func (f *filler) fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.str())
	case reflect.Bool:
		v.SetBool(f.bit())
	case reflect.Int64:
		v.SetInt(int64(f.bits % 1e9))
		f.bit()
	case reflect.Pointer:
		if f.bit() {
			v.Set(reflect.New(v.Type().Elem()))
			f.fill(v.Elem())
		}
	case reflect.Slice:
		n := f.small()
		f.bit()
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			f.fill(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(int64(f.bits%4e9), 0)))
			f.bit()
			return
		}
		for i := range v.NumField() {
			f.fill(v.Field(i))
		}
	}
}

// pick is one of choices, by fuzzed bits.
func pick[T any](f *filler, choices ...T) T {
	i := int(f.bits % uint64(len(choices)))
	f.bit()
	f.bit()
	f.bit()
	return choices[i]
}

// fuzzedViews are the page view and the error page's view made of the
// fuzzed values: with fromPage, the view Render makes of a fuzzed Page;
// otherwise a view whose every field is fuzzed, so the checkout address
// is one checkoutURL never let through.
func fuzzedViews(strs [4]string, bits uint64, fromPage bool) (pageView, messageView) {
	a := loadAssets()
	f := &filler{strs: strs, bits: bits}
	var v pageView
	if fromPage {
		var p Page
		f.fill(reflect.ValueOf(&p).Elem())
		p.EstimateType = pick(f, NonBinding, Binding, BindingNotToExceed, p.EstimateType)
		p.Stage = pick(f, StageOpen, StageAccepted, StageSigned, StageExpired, StageSuperseded, p.Stage)
		p.DepositStatus = pick(f, DepositNone, DepositPending, DepositPaid, DepositFailed, DepositRefunded, DepositDisputed, p.DepositStatus)
		layout := layoutOf(p.Stage, isBinding(p.EstimateType))
		v = pageViewOf(p, layout, depositViewOf(p, layout))
	} else {
		f.fill(reflect.ValueOf(&v).Elem())
		v.Layout = pick(f, layoutSign, layoutAccept, layoutDone, layoutClosed, v.Layout)
		v.CSS, v.JS = a.CSS, a.JS // the constant assets, never data
	}
	var m messageView
	f.fill(reflect.ValueOf(&m).Elem())
	m.CSS = a.CSS
	return v, m
}

// checkSameAsReference renders the views with templ and with the old
// html/template templates and requires the same DOM.
func checkSameAsReference(t *testing.T, ref, refError *template.Template, v pageView, m messageView) {
	t.Helper()
	got, err := renderHTML(quotePage(v))
	if err != nil {
		t.Fatal(err)
	}
	sameDOM(t, "page ("+v.Layout+")", got, executeReference(t, ref, referencePageData(v)))
	got, err = renderHTML(messagePageHTML(m))
	if err != nil {
		t.Fatal(err)
	}
	sameDOM(t, "message page", got, executeReference(t, refError, struct {
		CSS                   template.CSS
		Brand, Title, Message string
	}{template.CSS(m.CSS), m.Brand, m.Title, m.Message}))
}

// TestPagesMatchHTMLTemplate renders every kind of page of the package's
// tests with templ and with the old templates.
func TestPagesMatchHTMLTemplate(t *testing.T) {
	ref, refError := referenceTemplates(t)
	paid := signedPage()
	paid.DepositStatus = DepositPaid
	link := signedPage()
	link.CheckoutURL = "https://checkout.stripe.com/c/pay/cs_test_a1?x=1&y=ü"
	failed := signedPage()
	failed.DepositStatus = DepositFailed
	expired := bindingPage()
	expired.Stage = StageExpired
	bare := nonBindingPage()
	bare.CompanyName = ""
	bare.USDOTNumber = "99"
	for name, p := range map[string]Page{
		"binding": bindingPage(), "non-binding": nonBindingPage(), "signed": signedPage(), "paid": paid,
		"checkout link": link, "failed": failed, "expired": expired, "no company": bare,
	} {
		t.Run(name, func(t *testing.T) {
			layout := layoutOf(p.Stage, isBinding(p.EstimateType))
			checkSameAsReference(t, ref, refError, pageViewOf(p, layout, depositViewOf(p, layout)),
				messageView{CSS: loadAssets().CSS, Brand: brand(p.CompanyName), Title: "Title " + p.CompanyName, Message: "A message."})
		})
	}
}

// FuzzPageMatchesHTMLTemplate: whatever the strings of a page, its templ
// components and the old html/template templates make the same DOM.
func FuzzPageMatchesHTMLTemplate(f *testing.F) {
	hostile := []string{
		`</script><script>alert(1)</script>`, `" onmouseover="x`, `javascript:alert(1)`, `{{`, `{{.CSS}}`,
		"Zürich Umzüge — “Ünïcødé” 東京 🚚", "", " ", "a\n\nb\nc", `<!--`, `]]>`, `&amp;&#x3c;`, `' onfocus='x`,
		"https://checkout.stripe.com/c/pay/cs_test?x=1&y=\"2\"", "/v1-quote/tok/accept", "JAVASCRIPT:x", "data:text/html,<b>",
		"tel:+15551234", "https://ü.example/a b", "\u2028\u2029", "\t\r\f",
	}
	for i := range hostile {
		for _, bits := range []uint64{0, 0xffffffffffffffff, 0x5555555555555555, 0x123456789abcdef0} {
			f.Add(hostile[i], hostile[(i+1)%len(hostile)], hostile[(i+2)%len(hostile)], hostile[(i+3)%len(hostile)], bits, bits%2 == 0)
		}
	}
	ref, refError := referenceTemplates(f)
	f.Fuzz(func(t *testing.T, s0, s1, s2, s3 string, bits uint64, fromPage bool) {
		v, m := fuzzedViews([4]string{s0, s1, s2, s3}, bits, fromPage)
		checkSameAsReference(t, ref, refError, v, m)
	})
}
