package dashboardapp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// hookReceiver is a partner's webhook endpoint on loopback: it verifies
// each delivery with the one secret it holds (Standard Webhooks' own
// library) and answers the status and body it is told to.
type hookReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	secret   string
	status   int
	body     string
	got      []received
	arrivals chan struct{}
}

// received is one delivery as the receiver saw it.
type received struct {
	id, eventType string
	verifyErr     error
	header        http.Header
	payload       []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{status: 200, body: `{"received":true}`, arrivals: make(chan struct{}, 64)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		payload, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		rec := received{id: req.Header.Get("webhook-id"), header: req.Header.Clone(), payload: payload}
		var p struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(payload, &p)
		rec.eventType = p.Type
		wh, err := standardwebhooks.NewWebhook(r.secret)
		if err == nil {
			err = wh.Verify(payload, req.Header)
		}
		rec.verifyErr = err
		r.got = append(r.got, rec)
		status, body := r.status, r.body
		r.mu.Unlock()
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
		r.arrivals <- struct{}{}
	}))
	t.Cleanup(r.Close)
	return r
}

// answer sets the secret the receiver verifies with and its answer.
func (r *hookReceiver) answer(secret string, status int, body string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret, r.status, r.body = secret, status, body
}

// next waits (at most d) for delivery number n (1-based) and returns it.
func (r *hookReceiver) next(t *testing.T, n int, d time.Duration) received {
	t.Helper()
	deadline := time.After(d)
	for {
		r.mu.Lock()
		if len(r.got) >= n {
			got := r.got[n-1]
			r.mu.Unlock()
			return got
		}
		r.mu.Unlock()
		select {
		case <-r.arrivals:
		case <-deadline:
			t.Fatalf("delivery %d did not arrive within %s", n, d)
		}
	}
}

func (r *hookReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// verified fails the test unless rec verified and is a webhook.test with
// the webhook-id of event eventID to endpointID (when eventID is set).
func verified(t *testing.T, what string, rec received, eventID, endpointID string) {
	t.Helper()
	if rec.verifyErr != nil {
		t.Errorf("%s: the Standard Webhooks library refuses it: %v", what, rec.verifyErr)
	}
	if rec.eventType != string(webhook.Test) {
		t.Errorf("%s: type %q; want %s", what, rec.eventType, webhook.Test)
	}
	if eventID != "" && rec.id != webhook.MessageID(eventID, endpointID) {
		t.Errorf("%s: webhook-id %q; want %q", what, rec.id, webhook.MessageID(eventID, endpointID))
	}
}

// webhooksEnv is newEnv whose stack delivers webhooks (dispatcher on the
// table's stream, sender on the attempts queue) to loopback receivers.
func webhooksEnv(t *testing.T) *apitest.Env {
	t.Helper()
	env := apitest.New(t, apitest.Options{Dashboard: true, Webhooks: true})
	env.Clock.Set(time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC))
	return env
}

// flow holds a Chromium tab's helpers for one test.
type flow struct {
	t    *testing.T
	ctx  context.Context
	site string
}

func (f flow) must(name string, err error) {
	f.t.Helper()
	if err != nil {
		text, _ := browser.Text(f.ctx)
		f.t.Fatalf("%s: %v (page: %.800s)", name, err, text)
	}
}

func (f flow) open(path string) {
	f.t.Helper()
	f.must("open "+path, chromedp.Do(within(f.t, f.ctx, 20*time.Second), chromedp.Navigate(f.site+path)))
}

func (f flow) click(role, name string) {
	f.t.Helper()
	f.must("click "+name, browser.Click(within(f.t, f.ctx, 10*time.Second), role, name))
}

func (f flow) waitText(text string) {
	f.t.Helper()
	f.must("wait for "+text, browser.WaitText(within(f.t, f.ctx, 20*time.Second), text))
}

func (f flow) eval(js string) string {
	f.t.Helper()
	s, err := chromedp.Run(f.ctx, chromedp.Evaluate[string](js))
	f.must(js, err)
	return s
}

// reloadUntil reloads path until its text matches re (at most 30 s) and
// returns the match.
func (f flow) reloadUntil(path string, re *regexp.Regexp) []string {
	f.t.Helper()
	var text string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		f.open(path)
		text, _ = browser.Text(f.ctx)
		if m := re.FindStringSubmatch(text); m != nil {
			return m
		}
		// The attempt is written just after the receiver answers: wait
		// for the next write rather than spin.
		select {
		case <-f.ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	f.t.Fatalf("%s never showed %s; it shows:\n%.2000s", path, re, text)
	return nil
}

// signedInAdmin opens an invitation of a new partner's admin in a tab
// with a virtual authenticator and registers a passkey (which signs in).
func signedInAdmin(t *testing.T, env *apitest.Env) (flow, string) {
	t.Helper()
	serveLocalhost(t, env)
	partnerID := env.NewPartner(t, "Demo Movers")
	path, _ := invite(t, env, partnerID, "ada@demo.example", dashboard.Admin)
	f := flow{t: t, ctx: passkeyTab(t), site: origin(env)}
	f.must("phone size", chromedp.Do(within(t, f.ctx, 10*time.Second), browser.Phone()))
	f.open(path)
	f.click("button", "Create a passkey")
	f.waitText("You are signed in as ada@demo.example")
	return f, partnerID
}

// attemptLine is an attempt of the delivery log: number, time, status,
// latency, then the answer's first bytes on the next line.
func attemptLine(n, status, body string) *regexp.Regexp {
	return regexp.MustCompile(`#` + n + ` (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC) · ` + status + ` · ([0-9.]+[µnm]?s)\s*\n?\s*` + regexp.QuoteMeta(body))
}

// TestWebhooksFlow: in Chromium, an admin signed in with a passkey adds
// an endpoint on loopback (its secret shown once), sends a test event,
// which the real dispatcher (on the table's stream) and sender deliver,
// verified with the Standard Webhooks library and the shown secret, and
// the log shows the attempt; a failing receiver's attempts show their
// status and answer, Redeliver sends the same webhook-id again (the
// retrier's run), verified, logged as a success; after rotating the
// secret a delivery verifies with the new secret alone. The endpoint's
// page with its log passes axe-core at both sizes.
func TestWebhooksFlow(t *testing.T) {
	env := webhooksEnv(t)
	rcv := newHookReceiver(t)
	f, _ := signedInAdmin(t, env)

	f.open("/dashboard/developers/webhooks")
	url := rcv.URL + "/hooks"
	f.must("fill the URL", browser.Fill(within(t, f.ctx, 10*time.Second), "textbox", "Endpoint URL", url))
	f.click("button", "Add endpoint")
	f.waitText("only time it is shown")
	secret := f.eval(`document.getElementById("secret").textContent`)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("shown secret %q; want whsec_…", secret)
	}
	f.open("/dashboard/developers/webhooks")
	if text, _ := browser.Text(f.ctx); strings.Contains(text, secret) {
		t.Errorf("the secret is shown again on the webhooks page")
	}
	f.click("link", url)
	f.waitText("Delivery log")
	endpointPath := f.eval(`location.pathname`)
	endpointID := endpointPath[strings.LastIndex(endpointPath, "/")+1:]
	if !strings.HasPrefix(endpointPath, "/dashboard/developers/webhooks/") || endpointID == "" {
		t.Fatalf("endpoint page at %q", endpointPath)
	}
	noteEvent := regexp.MustCompile(`Test event (\S+) is on its way`)
	sendTest := func() string {
		t.Helper()
		f.click("button", "Send a test event")
		f.waitText("is on its way")
		text, _ := browser.Text(f.ctx)
		m := noteEvent.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no event id in the note: %.400s", text)
		}
		return m[1]
	}

	// A test event, delivered and logged.
	rcv.answer(secret, 200, `{"received":"first"}`)
	first := sendTest()
	verified(t, "the test event", rcv.next(t, 1, 30*time.Second), first, endpointID)
	f.reloadUntil(endpointPath, attemptLine("1", "200", `{"received":"first"}`))

	// A failing receiver: the first attempt and the schedule's second (5 s
	// later) are logged with status and answer; then Redeliver.
	rcv.answer(secret, 500, `receiver down: try later`)
	failed := sendTest()
	verified(t, "the failing event's first attempt", rcv.next(t, 2, 30*time.Second), failed, endpointID)
	verified(t, "the failing event's second attempt", rcv.next(t, 3, 30*time.Second), failed, endpointID)
	f.reloadUntil(endpointPath, attemptLine("2", "500", "receiver down: try later"))
	text, _ := browser.Text(f.ctx)
	if !attemptLine("1", "500", "receiver down: try later").MatchString(text) {
		t.Errorf("the log lacks the first failed attempt:\n%.2000s", text)
	}
	shot(t, f.ctx, "webhook-failed")
	rcv.answer(secret, 200, `{"received":"again"}`)
	before := rcv.count()
	f.click("button", "Redeliver "+failed)
	// The retrier sends it (every minute): the note must not promise "now".
	f.waitText("Delivery of " + failed + " is due again: the retrier sends it within a minute")
	env.RunRetrier(t)
	again := rcv.next(t, before+1, 30*time.Second)
	verified(t, "the redelivery", again, failed, endpointID)
	f.reloadUntil(endpointPath, attemptLine("3", "200", `{"received":"again"}`))
	checkPage(t, f.ctx, "webhook-log")

	// A new secret: the next delivery verifies with it alone.
	f.click("button", "Rotate the secret")
	f.waitText("New signing secret")
	rotated := f.eval(`document.getElementById("secret").textContent`)
	if !strings.HasPrefix(rotated, "whsec_") || rotated == secret {
		t.Fatalf("rotated secret %q; want a new whsec_…", rotated)
	}
	rcv.answer(rotated, 200, `{"received":"rotated"}`)
	n := rcv.count()
	afterRotation := sendTest()
	rec := rcv.next(t, n+1, 30*time.Second)
	verified(t, "the delivery after rotation", rec, afterRotation, endpointID)
	other, _ := standardwebhooks.NewWebhook("whsec_" + strings.Repeat("QUJD", 8))
	if err := other.Verify(rec.payload, rec.header); err == nil {
		t.Errorf("a delivery verifies with an unrelated secret")
	}
}

// TestReauthReturnsToTheAskingPage: when an admin's sign-in is older than
// dashboard.RecentSignIn, the API keys page and a webhook endpoint's page
// offer the passkey instead of their credential forms; confirming returns
// to that page (not Home), whose form then works.
func TestReauthReturnsToTheAskingPage(t *testing.T) {
	env := newEnv(t)
	f, partnerID := signedInAdmin(t, env)
	sealer, err := webhook.NewSealer(env.Secret)
	if err != nil {
		t.Fatal(err)
	}
	ep, _, err := webhook.NewEndpoint(auth.Tenant{PartnerID: partnerID, Mode: auth.Test}, "https://hooks.example/in", nil, sealer, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Store.PutEndpoint(t.Context(), ep); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, path, then string }{
		{"keys", "/dashboard/developers/keys", "Create key"},
		{"webhook endpoint", "/dashboard/developers/webhooks/" + ep.ID, "Rotate the secret"},
	} {
		t.Run(p.name, func(t *testing.T) {
			g := f
			g.t = t
			env.Clock.Advance(dashboard.RecentSignIn + time.Minute)
			g.open(p.path)
			g.click("button", "Confirm with your passkey")
			_, err := browser.WaitFor(within(t, g.ctx, 20*time.Second), "button", p.then)
			g.must("back on "+p.path, err)
			if got := g.eval(`location.pathname`); got != p.path {
				t.Errorf("after confirming on %s the tab is at %s; want %s", p.path, got, p.path)
			}
			g.click("button", p.then)
			g.waitText("only time it is shown")
		})
	}
}
