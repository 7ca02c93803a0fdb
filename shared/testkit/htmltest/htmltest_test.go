package htmltest

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failures []string
	fatal    bool
}

func (r *recorder) Helper() {}
func (r *recorder) Error(args ...any) {
	r.failures = append(r.failures, fmt.Sprint(args...))
}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) {
	r.Error(args...)
	r.fatal = true
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

// record runs f with a recorder, as a test would run, and returns it.
func record(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

const sample = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A &amp; B</title></head>
<body><p class="lead x">Hello <b>there</b></p><input id="n" value="1"><br>
<p class="x">  two
 words </p></body></html>
`

func TestParse(t *testing.T) {
	els := Parse(t, []byte(sample))
	var tags []string
	for _, e := range els {
		tags = append(tags, e.Tag)
	}
	if want := "html head meta title body p b input br p"; strings.Join(tags, " ") != want {
		t.Errorf("elements %q; want %s", tags, want)
	}
	if els[3].Text != "A & B" {
		t.Errorf("title text %q; want the text unescaped", els[3].Text)
	}
	if els[5].Text != "Hello there" || els[5].Attrs["class"] != "lead x" {
		t.Errorf("first paragraph %+v; want its text and its children's", els[5])
	}
	if got := ByClass(els, "x"); len(got) != 2 || got[0].Tag != "p" || got[1].Text != "  two\n words " {
		t.Errorf("ByClass(x) = %+v", got)
	}
	if got := ByClass(els, "lead"); len(got) != 1 {
		t.Errorf("ByClass(lead) = %+v", got)
	}
	if got := VisibleText(t, []byte(sample)); got != "Hello there two words" {
		t.Errorf("VisibleText = %q", got)
	}
}

func TestParseFailsOnBrokenMarkup(t *testing.T) {
	for body, want := range map[string]string{
		`<!doctype html><p><b></p></b>`:           "</p> closes nothing open (open: [p b])",
		`<!doctype html><div><p>`:                 "elements left open at the end: [div p]",
		`<!doctype html></div>`:                   "</div> closes nothing open (open: [])",
		`<p>no doctype</p>`:                       "no <!doctype html>",
		`<!doctype html><p class="a" class="b">x`: `<p> has attribute "class" twice`,
	} {
		r := record(t, func(tb testing.TB) { Parse(tb, []byte(body)) })
		if len(r.failures) == 0 || r.failures[0] != want {
			t.Errorf("Parse(%s) failed with %q; want %q", body, r.failures, want)
		}
	}
	if r := record(t, func(tb testing.TB) { VisibleText(tb, []byte(`<!doctype html><p>x</p>`)) }); !r.fatal {
		t.Errorf("VisibleText of a page without <body> failed with %q; want a fatal failure", r.failures)
	}
}

func TestIDs(t *testing.T) {
	els := Parse(t, []byte(`<!doctype html><p id="a"><b id="b" class="x"></b><i id="a"></i><u></u></p>`))
	var ids map[string]bool
	r := record(t, func(tb testing.TB) { ids = IDs(tb, els) })
	if want := []string{`id "a" used 2 times`}; !reflect.DeepEqual(r.failures, want) {
		t.Errorf("IDs failed with %q; want %q", r.failures, want)
	}
	if want := map[string]bool{"a": true, "b": true}; !reflect.DeepEqual(ids, want) {
		t.Errorf("IDs = %v; want %v", ids, want)
	}
}

func TestHashOf(t *testing.T) {
	// The example of the CSP Level 3 specification.
	if got, want := HashOf("alert('Hello, world.');"), "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='"; got != want {
		t.Errorf("HashOf = %s; want %s", got, want)
	}
}

func TestDirective(t *testing.T) {
	const csp = "default-src 'none'; style-src 'sha256-a' 'sha256-b';img-src data:; base-uri 'none'"
	for name, want := range map[string][]string{
		"style-src":   {"'sha256-a'", "'sha256-b'"},
		"img-src":     {"data:"},
		"default-src": {"'none'"},
		"script-src":  nil,
		"src":         nil,
	} {
		if got := Directive(csp, name); !reflect.DeepEqual(got, want) {
			t.Errorf("Directive(%s) = %q; want %q", name, got, want)
		}
	}
}

func TestCheckHeaders(t *testing.T) {
	good := map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-store",
		"X-Robots-Tag":            "noindex",
		"X-Content-Type-Options":  "nosniff",
		"Permissions-Policy":      "camera=()",
		"Content-Security-Policy": "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	}
	check := func(h map[string]string) []string {
		return record(t, func(tb testing.TB) {
			CheckHeaders(tb, h, map[string]string{"Permissions-Policy": "camera=()"}, "img-src data:")
		}).failures
	}
	if f := check(good); len(f) != 0 {
		t.Errorf("good headers fail: %q", f)
	}
	for change, want := range map[[2]string]string{
		{"Cache-Control", "max-age=60"}:                   `Cache-Control = "max-age=60"; want "no-store"`,
		{"Permissions-Policy", ""}:                        `Permissions-Policy = ""; want "camera=()"`,
		{"Content-Security-Policy", "default-src 'none'"}: `CSP lacks "base-uri 'none'": default-src 'none'`,
		{"Content-Security-Policy", good["Content-Security-Policy"] + "; style-src 'unsafe-inline'"}:   "CSP allows too much: " + good["Content-Security-Policy"] + "; style-src 'unsafe-inline'",
		{"Content-Security-Policy", strings.Replace(good["Content-Security-Policy"], "data:", "*", 1)}: `CSP lacks "img-src data:": ` + strings.Replace(good["Content-Security-Policy"], "data:", "*", 1),
	} {
		h := map[string]string{}
		for k, v := range good {
			h[k] = v
		}
		h[change[0]] = change[1]
		if f := check(h); len(f) == 0 || f[0] != want {
			t.Errorf("%s: %q fails with %q; want first %q", change[0], change[1], f, want)
		}
	}
}

func TestCheckNoInlineAttrs(t *testing.T) {
	els := Parse(t, []byte(`<!doctype html><p style="color:red">x</p><img src="data:," onerror="alert(1)"><a href="#" title="on">y</a>`))
	r := record(t, func(tb testing.TB) { CheckNoInlineAttrs(tb, els) })
	want := []string{"<p> has a style attribute, which the policy blocks", "<img> has an inline handler onerror, which the policy blocks"}
	if !reflect.DeepEqual(r.failures, want) {
		t.Errorf("failures %q; want %q", r.failures, want)
	}
}

func TestConsole(t *testing.T) {
	r := &recorder{TB: t}
	c := NewConsole(r, "Failed to load resource: the server responded with a status of")
	for _, line := range []string{
		"browser log: hello",
		"browser warning: slow",
		"browser error: error: Failed to load resource: the server responded with a status of 410 (Gone)",
		"browser error: boom",
		"browser exception: TypeError: x is undefined",
		"browser error: Refused to load media from 'http://a/' because it violates the following Content Security Policy directive",
		"browser info: Refused to connect",
	} {
		c.Logf("%s\n", line)
	}
	c.Check()
	want := []string{
		"browser console: browser error: boom",
		"browser console: browser exception: TypeError: x is undefined",
		"browser console: browser error: Refused to load media from 'http://a/' because it violates the following Content Security Policy directive",
		"browser console: browser info: Refused to connect",
	}
	if !reflect.DeepEqual(r.failures, want) {
		t.Errorf("Check failed with %q; want %q", r.failures, want)
	}
	if !c.Saw("status of 410") || c.Saw("nothing like it") {
		t.Error("Saw does not find the lines logged, allowed ones included")
	}
}

func TestRepeatedAttr(t *testing.T) {
	for raw, want := range map[string]string{
		`<p class="a" class="b">`:               "class",
		`<p CLASS=a class='b'>`:                 "class",
		`<input disabled disabled>`:             "disabled",
		`<p class="a=b class" id=x>`:            "",
		`<a href="/x" title='it"s' rel=n>`:      "",
		`<img src=a alt="" src=b/>`:             "src",
		`<p>`:                                   "",
		`<p data-x = "1"  data-y="2" data-x=3>`: "data-x",
	} {
		if got := repeatedAttr([]byte(raw)); got != want {
			t.Errorf("repeatedAttr(%s) = %q; want %q", raw, got, want)
		}
	}
}
