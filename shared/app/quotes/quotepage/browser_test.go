package quotepage

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
	"github.com/moveleads/partnerapi/shared/testkit/quotepagetest"
)

// fakeService serves quote pages, as the v1-quote function does, and
// stands in for their accept and deposit calls and for the checkout page,
// recording what the pages send. Pages are keyed by their token: the page
// of token "bind" is at /v1-quote/bind, and calls /v1-quote/bind/accept
// and /v1-quote/bind/deposit.
type fakeService struct {
	t    *testing.T
	srv  *httptest.Server
	base string

	mu       sync.Mutex
	pages    map[string]Page
	accept   map[string]answer // token → the accept call's answer; default 200 with the stage the quote's type gives
	deposit  map[string]answer // token → the deposit call's answer; default 200 with a checkout on this server
	calls    []apiCall         // accept and deposit calls, in order
	checkout []string          // query strings of the checkout pages opened
}

// answer is a canned JSON answer.
type answer struct {
	status int
	body   any
}

// apiCall is one JSON call a page made.
type apiCall struct {
	Path, ContentType string
	Body              []byte
}

func newFakeService(t *testing.T) *fakeService {
	t.Helper()
	f := &fakeService{t: t, pages: map[string]Page{}, accept: map[string]answer{}, deposit: map[string]answer{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	f.base = f.srv.URL
	t.Cleanup(f.srv.Close)
	return f
}

// add serves p under token, with its calls' paths filled in.
func (f *fakeService) add(token string, p Page) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p.AcceptPath = "/v1-quote/" + token + "/accept"
	p.DepositPath = "/v1-quote/" + token + "/deposit"
	f.pages[token] = p
}

func (f *fakeService) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case r.Method == "GET" && r.URL.Path == "/fake-checkout":
		f.checkout = append(f.checkout, r.URL.RawQuery)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><link rel="icon" href="data:,"><title>Checkout</title><h1>Fake checkout</h1>`)
	case r.Method == "GET" && r.URL.Path == "/v1-quote/gone":
		write(w, ErrorPage(410, "Demo Movers"))
	case r.Method == "GET" && r.URL.Path == "/v1-quote/booked-gone":
		write(w, BookedLinkExpiredPage("Demo Movers"))
	case r.Method == "GET" && r.URL.Path == "/v1-quote/replaced":
		write(w, ErrorPage(409, "Demo Movers"))
	case r.Method == "GET" && len(parts) == 2 && parts[0] == "v1-quote":
		p, ok := f.pages[parts[1]]
		if !ok {
			write(w, ErrorPage(404, ""))
			return
		}
		write(w, Render(p))
	case r.Method == "POST" && len(parts) == 3 && parts[0] == "v1-quote" && parts[2] == "accept":
		f.calls = append(f.calls, apiCall{r.URL.Path, r.Header.Get("Content-Type"), body})
		p := f.pages[parts[1]]
		a, ok := f.accept[parts[1]]
		if !ok {
			status := "accepted"
			if isBinding(p.EstimateType) {
				status = "signed"
			}
			a = answer{200, map[string]any{"status": status, "deposit_required": p.DepositCents > 0}}
		}
		writeJSON(w, a.status, a.body)
	case r.Method == "POST" && len(parts) == 3 && parts[0] == "v1-quote" && parts[2] == "deposit":
		f.calls = append(f.calls, apiCall{r.URL.Path, r.Header.Get("Content-Type"), body})
		a, ok := f.deposit[parts[1]]
		if !ok {
			a = answer{200, map[string]any{"checkout_url": f.base + "/fake-checkout?session=cs_test_" + parts[1]}}
		}
		writeJSON(w, a.status, a.body)
	default:
		writeJSON(w, 404, apiError("not_found", "No such route.", nil))
	}
}

// callsTo returns the calls made to path.
func (f *fakeService) callsTo(path string) []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []apiCall
	for _, c := range f.calls {
		if c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

func write(w http.ResponseWriter, d Document) {
	for k, v := range d.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(d.Status)
	w.Write(d.Body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// apiError is the service's error body.
func apiError(code, message string, fields map[string]string) map[string]any {
	details := map[string]any{}
	if fields != nil {
		details["fields"] = fields
	}
	return map[string]any{"error": map[string]any{"code": code, "message": message, "details": details}}
}

// openPhone starts the browser with a phone-sized tab and opens path on f.
// The test fails on an exception, an error or a Content-Security-Policy
// violation in the browser's console, but for the statuses the tests
// answer on purpose (422, 409, the error pages').
func openPhone(t *testing.T, f *fakeService, path string) context.Context {
	t.Helper()
	ctx, _ := htmltest.StartPhone(t, f.base+path, "", "Failed to load resource: the server responded with a status of")
	return ctx
}

// fillSigningForm fills in every field of the signing form and draws a
// signature.
func fillSigningForm(t *testing.T, ctx context.Context) {
	t.Helper()
	step := htmltest.Within(t, ctx, 10*time.Second)
	if err := browser.Fill(step, browser.RoleTextbox, "Full name", "Ada Lovelace"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Fill(step, browser.RoleTextbox, "Email address", "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(step, roleRadio, "Full value protection"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(step, browser.RoleCheckbox, "I agree to sign electronically"); err != nil {
		t.Fatal(err)
	}
	quotepagetest.DrawSignature(t, step)
}

// roleRadio is the accessible role of a radio button.
const roleRadio = "radio"

// target is a control as the layout check measures it.
type target struct {
	Name string
	W, H float64
}

// TestPagesFitAPhoneAndADesktop opens each kind of page at 390×844 (a
// phone) and 1280×800 (a laptop) and checks what a person needs to use it
// without zooming: nothing wider than the screen, text of at least 16 px,
// and controls at least 44 px high; and saves a screenshot of each into
// $SCREENSHOT_DIR.
func TestPagesFitAPhoneAndADesktop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("bind", bindingPage())
	f.add("simple", nonBindingPage())
	f.add("signed", signedPage())
	expired := bindingPage()
	expired.Stage = StageExpired
	f.add("expired", expired)
	ctx := openPhone(t, f, "/v1-quote/bind")
	sizes := []struct {
		name    string
		emulate chromedp.Action[chromedp.Void]
		width   float64
	}{
		{"phone", browser.Phone(), 390},
		{"desktop", chromedp.EmulateViewport(1280, 800), 1280},
	}
	pages := []struct{ name, path, heading string }{
		{"binding-open", "/v1-quote/bind", "Sign this quote"},
		{"nonbinding-open", "/v1-quote/simple", "Accept this quote"},
		{"signed-deposit-due", "/v1-quote/signed", "Quote signed"},
		{"expired", "/v1-quote/expired", "This quote has expired"},
		{"error-410", "/v1-quote/gone", "This quote link has expired"},
		{"booked-410", "/v1-quote/booked-gone", "Your move is booked"},
		{"error-409", "/v1-quote/replaced", "This quote has been replaced or closed"},
		{"error-404", "/v1-quote/unknown", "We can’t find this quote"},
	}
	for _, size := range sizes {
		for _, pg := range pages {
			t.Run(pg.name+"-"+size.name, func(t *testing.T) {
				if err := chromedp.Do(ctx, size.emulate, chromedp.Navigate(f.base+pg.path)); err != nil {
					t.Fatal(err)
				}
				if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, pg.heading); err != nil {
					t.Fatal(err)
				}
				m, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
					Inner, Scroll, Font float64
					Small               []target
				}](`(() => {
					const shown = e => e.getClientRects().length > 0;
					const small = [...document.querySelectorAll("button, a.btn, input, label.choice, label.check, .error-summary a")]
						.filter(shown)
						.filter(e => !(e.tagName === "INPUT" && (e.type === "radio" || e.type === "checkbox")))
						.map(e => { const r = e.getBoundingClientRect(); return {Name: e.id || e.textContent.trim().slice(0, 40), W: r.width, H: r.height}; })
						.filter(r => r.H < 44 || r.W < 44);
					return {Inner: innerWidth, Scroll: document.documentElement.scrollWidth,
						Font: parseFloat(getComputedStyle(document.body).fontSize), Small: small};
				})()`))
				if err != nil {
					t.Fatal(err)
				}
				if m.Inner != size.width {
					t.Errorf("viewport %.0f px wide; want %.0f", m.Inner, size.width)
				}
				if m.Scroll > m.Inner {
					t.Errorf("the page is %.0f px wide on a %.0f px screen: it scrolls sideways", m.Scroll, m.Inner)
				}
				if m.Font < 16 {
					t.Errorf("body text %.1f px; want at least 16", m.Font)
				}
				for _, s := range m.Small {
					t.Errorf("control %q is %.0f × %.0f px; want at least 44 × 44 to tap", s.Name, s.W, s.H)
				}
				htmltest.Shot(t, ctx, pg.name+"-"+size.name)
			})
		}
	}
}
