package dashboardapp

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"

	"github.com/moveleads/partnerapi/shared/app/videolinks/viewerpage"
)

// The pages were html/template templates until they became templ
// components (html/template's executor kept every exported method of every
// linked type in the function). testdata/reference keeps those templates
// (plus the Developers tables' data-label cells, added after), so the fuzz
// target below can check that the components build the same document for
// any data.

var referenceTemplates = sync.OnceValues(func() (*template.Template, error) {
	return template.ParseFiles("testdata/reference/pages.html", "testdata/reference/leads.html")
})

// renderReference renders the old template name with data.
func renderReference(t *testing.T, name string, data any) []byte {
	t.Helper()
	tmpl, err := referenceTemplates()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, name, data); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b.Bytes()
}

// renderComponent renders a page's templ component.
func renderComponent(t *testing.T, c templ.Component) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// dom flattens an HTML document, as golang.org/x/net/html parses it, into
// one line per element start, element end and text: attributes in their
// order, text with white space runs collapsed, white-space-only text left
// out, and text that starts or ends with white space marked (a lost space
// between words shows). Addresses and text are normalised where
// html/template and templ legitimately write the same datum differently.
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
				switch a.Key {
				case "src", "href", "action":
					v = canonicalURL(v)
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

// canonicalURL normalises the two ways the engines write an address:
// html/template percent-encodes every byte a URL may not hold (as a
// browser does before it sends the request), templ writes it as it is,
// HTML-escaped; both are brought to html/template's encoding (a NUL reads
// as U+FFFD in an attribute, a % that starts no escape is %25). A refused address is "#ZgotmplZ" from
// html/template and "about:invalid#TemplFailedSanitizationURL" from templ;
// templ also lets tel:, ftp: and ftps: through, which html/template
// refuses and which no link or <source> here can use: all read "refused".
func canonicalURL(v string) string {
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
		case c == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]),
			'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~!#$&*+,/:;=?@[]", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	out := strings.ReplaceAll(b.String(), "%00", "%ef%bf%bd")
	// A query is compared as its values: html/template escapes each value
	// in the template's order; the pages build it with url.Values.Encode
	// (sorted keys, upper-case hex, "+" for a space).
	if p, q, ok := strings.Cut(out, "?"); ok {
		if vs, err := url.ParseQuery(q); err == nil {
			return p + "?" + vs.Encode()
		}
	}
	return out
}

func isHex(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }

// sameDOM fails t unless the two documents parse to the same elements,
// attributes and text.
func sameDOM(t *testing.T, name string, reference, got []byte) {
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
			t.Fatalf("%s: node %d: templ %q; html/template %q\ntempl:\n%s\nhtml/template:\n%s", name, i, h, w, got, reference)
		}
	}
}

// pageCase is one page rendered both ways.
type pageCase struct {
	name      string // the old template's name
	reference any    // the data it took
	component templ.Component
}

// pageCases are every page built from four strings and eight flags:
// each string lands in every field of its kind, the flags switch the
// pages' branches (admin, live, recent sign-in, disabled endpoint, a
// secret shown, empty lists, ...).
func pageCases(a, b, c, d string, flags uint8) []pageCase {
	on := func(bit uint) bool { return flags&(1<<bit) != 0 }
	s := shell{Title: a, CSRF: b, Email: c, Role: d, Admin: on(0), Live: on(1)}
	var shown *shownSecret
	if on(2) {
		shown = &shownSecret{Label: a, Value: b, Note: c}
	}
	many := !on(3)
	keys := []keyRow{{ID: a, Prefix: b, Mode: c, Scopes: d, Created: a, LastUsed: b, CreatedBy: c},
		{ID: d, Prefix: c, Mode: b, Scopes: a, Created: d, LastUsed: c, CreatedBy: b, Revoked: a}}
	ep := endpointRow{ID: a, URL: b, Types: c, Created: d, State: a, Disabled: on(4)}
	attempts := []attemptRow{{N: 1, At: a, Status: b, Latency: c, Body: d}, {N: 2, At: d, Status: c, Latency: b}}
	deliveries := []deliveryRow{{EventID: a, Type: b, Status: c, Endpoint: d, URL: a, Attempts: attempts}, {EventID: d, Type: c, Status: b, Endpoint: a, URL: b}}
	events := []eventRow{{ID: a, Type: b, Created: c, LeadID: d}, {ID: d, Type: a, Created: b, LeadID: c}}
	leadRows := []leadRow{{ID: a, Customer: b, Status: c, Survey: d, Estimate: a, Recommended: b, Quote: c, Deposit: d, Updated: a}}
	errs := map[string]string{}
	if on(5) {
		errs = map[string]string{"updated_since": a, b: c, "status": d}
	}
	quoteBy := "" // a quote not yet accepted shows no By and no protection
	if on(1) {
		quoteBy = d
	}
	lead := leadView{shell: s, ID: a, Customer: b, Status: c, Created: d, Updated: a, From: b, To: c, Home: d, Estimate: a, Recommended: b,
		SurveyStatus: c, SurveyID: d, CanSendLink: on(6), BySource: a, Deposit: b, CaptureURL: c,
		Clips: []clipView{{Name: a, Sources: []viewerpage.Source{{Src: b, Type: c}, {Src: d, Type: a}}}, {Name: c}},
		Items: []itemView{{Room: a, Name: b, Source: c, Count: 2}, {Room: d, Name: a, Source: b, Count: 1, Detected: 3}},
		Quote: &quoteView{Type: a, PriceLabel: b, Price: c, Deposit: d, Stage: a, Expires: b, Accepted: c, Signed: d, By: quoteBy, Protection: quoteBy}, Events: []eventView{{At: a, Type: b, ID: c}}}
	if !on(7) {
		lead.Quote, lead.CaptureURL = nil, ""
	}
	if !many {
		keys, deliveries, events, leadRows, lead.Clips, lead.Items, lead.Events, attempts = nil, nil, nil, nil, nil, nil, nil, nil
		deliveries = []deliveryRow{{EventID: a, Type: b, Status: c, Endpoint: d}}
	}
	leads := leadsView{shell: s, Rows: leadRows, Statuses: []string{a, b, "new"}, Status: b, Since: c, Errors: errs, Next: d}
	if on(5) && on(6) {
		leads.Errors = nil
	}
	people := peopleView{s, []personRow{{ID: a, Email: b, Role: c, Created: d, Passkeys: 2}, {ID: d, Email: a, Role: b, Created: c, Self: true}}}
	return []pageCase{
		{"signin", map[string]string{"Title": "Sign in"}, signInDocument()},
		{"invitation", map[string]string{"Title": "Create your passkey", "Email": a, "Role": b, "Expires": c, "Path": d},
			invitationDocument(invitationView{Email: a, Role: b, Expires: c, Path: d})},
		{"error", map[string]string{"Title": a, "Message": b}, errorDocument(a, b)},
		{"home", s, homeDocument(s)},
		{"people", people, peopleDocument(people)},
		{"audit", auditView{s, []auditRow{{a, b, c, d}}}, auditDocument(auditView{s, []auditRow{{a, b, c, d}}})},
		{"keys", keysView{s, keys, []string{a, "leads:read"}, on(4), shown}, keysDocument(keysView{s, keys, []string{a, "leads:read"}, on(4), shown})},
		{"webhooks", webhooksView{s, []endpointRow{ep}[:len(keys)/2], shown}, webhooksDocument(webhooksView{s, []endpointRow{ep}[:len(keys)/2], shown})},
		{"webhook", webhookView{s, ep, deliveries, shown, d, on(5)}, webhookDocument(webhookView{s, ep, deliveries, shown, d, on(5)})},
		{"events", eventsView{s, events, []string{a, b, "lead.created"}, b, c, d}, eventsDocument(eventsView{s, events, []string{a, b, "lead.created"}, b, c, d})},
		{"event", eventPageView{s, a, b, c, d, deliveries}, eventDocument(eventPageView{s, a, b, c, d, deliveries})},
		{"leads", leads, leadsDocument(leads)},
		{"lead", lead, leadDocument(lead)},
	}
}

// FuzzPageMatchesHTMLTemplate renders every dashboard page with fuzzed
// text in every field and fuzzed branches through the templ components
// and through the old html/template files, and requires the same
// document.
func FuzzPageMatchesHTMLTemplate(f *testing.F) {
	hostile := []string{
		"</script><script>alert(1)</script>", `" onmouseover="x`, "javascript:alert(1)", "{{.CSRF}}", "{{",
		"Wohnzimmer – Küche 🏠", "", "  ", "a\x00b", "tel:123", "https://m/1?a=1&b=2#t=3", "&amp; &lt;", "\xff\xfe",
		"a b/c?d=e&f#g", " lead", "trail ", "%zz%41",
	}
	for i, s := range hostile {
		f.Add(s, hostile[(i+1)%len(hostile)], hostile[(i+2)%len(hostile)], hostile[(i+3)%len(hostile)], uint8(i*37))
	}
	// The data the flow tests show: people, keys, endpoints, events, leads.
	f.Add("API keys", "csrf-token-0123", "admin@example.com", "admin", uint8(0b0000_0111))
	f.Add("Quoted Customer", "mlk_test_ab12…", "https://hooks.example.com/moveleads", "lead.created, quote.accepted", uint8(0b1111_0011))
	f.Add("Old Test Customer", "2026-01-02", "http://127.0.0.1:9000/clips/1.mp4?X-Amz-Signature=ab&X-Amz-Expires=600", "video/mp4", uint8(0b1100_0000))
	f.Add("evt_01J", "whsec_c2VjcmV0", "no answer: connection refused", `{"id":"evt_01J","type":"lead.created"}`, uint8(0b0011_0101))
	f.Fuzz(func(t *testing.T, a, b, c, d string, flags uint8) {
		for _, pc := range pageCases(a, b, c, d, flags) {
			sameDOM(t, pc.name, renderReference(t, pc.name, pc.reference), renderComponent(t, pc.component))
		}
	})
}
