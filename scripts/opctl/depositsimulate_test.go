package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/quote"
)

// Signing secrets of the tests' Stripe webhook endpoints.
const (
	testWhsec = "whsec_opctlTestModeSecret0123456789"
	liveWhsec = "whsec_opctlLiveModeSecret0123456789"
)

// stripeSecrets is STRIPE_WEBHOOK_SECRETS with both secrets.
var stripeSecrets = `{"test": "` + testWhsec + `", "live": "` + liveWhsec + `"}`

// received is one request the stand-in receiver took.
type received struct {
	path        string
	contentType string
	event       stripepay.Event
}

// receiver is a stand-in for the stripe-webhook function: it verifies each
// POST with stripepay.ParseWebhook under its mode's secret (the last
// segment of the path), records the event and answers 200
// {"received": true, "event_id": ...}; a request that does not verify
// gets 400 {"error": ...}.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	events []received
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		secret := map[string]string{"test": testWhsec, "live": liveWhsec}[r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]]
		body, _ := io.ReadAll(r.Body)
		ev, err := stripepay.ParseWebhook(body, r.Header.Get("Stripe-Signature"), secret, time.Now())
		if r.Method != http.MethodPost || err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "signature check failed"})
			return
		}
		rc.mu.Lock()
		rc.events = append(rc.events, received{path: r.URL.Path, contentType: r.Header.Get("Content-Type"), event: ev})
		rc.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"received": true, "event_id": ev.ID})
	}))
	t.Cleanup(rc.Close)
	return rc
}

// last returns the last event rc received.
func (rc *receiver) last(t *testing.T) received {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.events) == 0 {
		t.Fatal("the receiver got no event")
	}
	return rc.events[len(rc.events)-1]
}

// count returns how many events rc received.
func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.events)
}

// depositFixture is a deposit of a lead with a signed quote, in a fresh
// table, and the variables opctl runs with.
type depositFixture struct {
	q    quotedLead
	d    deposit.Deposit
	vars map[string]string
}

func newDepositFixture(t *testing.T, mode auth.Mode, pi string, vars map[string]string) depositFixture {
	t.Helper()
	s := newStore(t)
	q := newQuotedLead(t, s, mode, quote.Binding, time.Now())
	q.sign(t, time.Now(), "")
	d := q.newDeposit(t, pi)
	all := map[string]string{"TABLE_NAME": s.Table(), "STRIPE_WEBHOOK_SECRETS": stripeSecrets}
	for k, v := range vars {
		all[k] = v
	}
	return depositFixture{q: q, d: d, vars: all}
}

// run runs deposit simulate for f's deposit with args.
func (f depositFixture) run(t *testing.T, args ...string) result {
	t.Helper()
	base := []string{"deposit", "simulate", "--partner", f.q.tenant.PartnerID, "--mode", string(f.q.tenant.Mode), "--deposit", f.d.ID}
	return opctlEnv(t, f.vars, append(base, args...)...)
}

// compact returns the JSON raw without white space between tokens.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("response %q is not JSON: %v", raw, err)
	}
	return b.String()
}

// noSecret fails the test when r shows a signing secret.
func noSecret(t *testing.T, r result) {
	t.Helper()
	for _, s := range []string{testWhsec, liveWhsec, "opctlTestModeSecret", "opctlLiveModeSecret"} {
		if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) || strings.Contains(r.using, s) {
			t.Errorf("opctl %q printed a signing secret", r.args)
		}
	}
}

func TestDepositSimulate(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	f := newDepositFixture(t, auth.Test, "", nil)
	url := rc.URL + "/stripe-webhook/test"
	types := map[deposit.Event]string{
		deposit.EventPaid: "checkout.session.completed", deposit.EventUnpaid: "checkout.session.completed",
		deposit.EventAsyncPaid: "checkout.session.async_payment_succeeded", deposit.EventAsyncFailed: "checkout.session.async_payment_failed",
		deposit.EventExpired: "checkout.session.expired", deposit.EventRefunded: "charge.refunded", deposit.EventDisputed: "charge.dispute.created",
	}
	for _, e := range deposit.Events {
		t.Run(string(e), func(t *testing.T) {
			r := f.run(t, "--event", string(e), "--url", url)
			noSecret(t, r)
			if got, want := fields(t, r.stdout), []string{"deposit_id", "event_id", "response", "status", "type"}; !slices.Equal(got, want) {
				t.Errorf("output fields %q; want %q", got, want)
			}
			out := ok[simulated](t, r)
			if !strings.HasPrefix(out.EventID, "evt_sim_") || len(out.EventID) != len("evt_sim_")+24 {
				t.Errorf("event_id %q; want evt_sim_ and 24 hex digits", out.EventID)
			}
			if out.Type != types[e] || out.DepositID != f.d.ID || out.Status != http.StatusOK {
				t.Errorf("output %+v; want type %s, deposit %s, status 200", out, types[e], f.d.ID)
			}
			var resp map[string]any
			if err := json.Unmarshal(out.Response, &resp); err != nil || resp["received"] != true || resp["event_id"] != out.EventID {
				t.Errorf("response %s; want the receiver's JSON body", out.Response)
			}

			got := rc.last(t)
			ev := got.event
			if got.path != "/stripe-webhook/test" || !strings.HasPrefix(got.contentType, "application/json") {
				t.Errorf("request to %s with Content-Type %q; want /stripe-webhook/test, application/json", got.path, got.contentType)
			}
			if ev.ID != out.EventID || ev.Type != types[e] || ev.Outcome != e || ev.Account != testAccount || ev.Livemode {
				t.Errorf("received %+v; want event %s, %s, outcome %s, account %s, test mode", ev, out.EventID, types[e], e, testAccount)
			}
			// An expired session never had a PaymentIntent.
			if wantPI := "pi_sim_" + f.d.ID; e != deposit.EventExpired && ev.PaymentIntentID != wantPI || e == deposit.EventExpired && ev.PaymentIntentID != "" {
				t.Errorf("PaymentIntent %q; want %s for a deposit without one (none for expired)", ev.PaymentIntentID, wantPI)
			}
			if time.Since(ev.Created).Abs() > time.Minute {
				t.Errorf("event created %s; want now", ev.Created)
			}
			switch {
			case e == deposit.EventDisputed:
				if ev.DepositID != "" {
					t.Errorf("a dispute names deposit %q; want none (Stripe's disputes carry no metadata)", ev.DepositID)
				}
			case ev.DepositID != f.d.ID || ev.LeadID != f.q.leadID || ev.PartnerID != f.q.tenant.PartnerID:
				t.Errorf("metadata deposit %q, lead %q, partner %q; want %s, %s, %s", ev.DepositID, ev.LeadID, ev.PartnerID, f.d.ID, f.q.leadID, f.q.tenant.PartnerID)
			}
			if strings.HasPrefix(ev.Type, "checkout.session.") && ev.SessionID != f.d.SessionID {
				t.Errorf("session %q; want the deposit's %s", ev.SessionID, f.d.SessionID)
			}
		})
	}
}

// TestDepositSimulateDefaults: without --url the event goes to
// PUBLIC_BASE_URL's /stripe-webhook/MODE, signed with that mode's secret,
// and a known PaymentIntent is the one sent.
func TestDepositSimulateDefaults(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	for _, mode := range []auth.Mode{auth.Test, auth.Live} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			f := newDepositFixture(t, mode, "pi_3KnownIntent", map[string]string{"PUBLIC_BASE_URL": rc.URL + "/"})
			r := f.run(t, "--event", "refunded")
			noSecret(t, r)
			out := ok[simulated](t, r)
			var got received
			rc.mu.Lock()
			for _, ev := range rc.events {
				if ev.event.ID == out.EventID {
					got = ev
				}
			}
			rc.mu.Unlock()
			if got.path != "/stripe-webhook/"+string(mode) {
				t.Fatalf("event %s reached %q; want /stripe-webhook/%s", out.EventID, got.path, mode)
			}
			if got.event.Livemode != (mode == auth.Live) || got.event.PaymentIntentID != "pi_3KnownIntent" || got.event.Outcome != deposit.EventRefunded {
				t.Errorf("received %+v; want livemode %t, the deposit's PaymentIntent, refunded", got.event, mode == auth.Live)
			}
		})
	}
}

// TestDepositSimulateEventID: --event-id sends that id, and sending it
// again simulates Stripe's redelivery of the same event.
func TestDepositSimulateEventID(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	f := newDepositFixture(t, auth.Test, "", map[string]string{"PUBLIC_BASE_URL": rc.URL})
	for range 2 {
		out := ok[simulated](t, f.run(t, "--event", "paid", "--event-id", "evt_1RedeliverMe"))
		if out.EventID != "evt_1RedeliverMe" {
			t.Errorf("event_id %q; want evt_1RedeliverMe", out.EventID)
		}
		if ev := rc.last(t).event; ev.ID != "evt_1RedeliverMe" {
			t.Errorf("the receiver got %s; want evt_1RedeliverMe", ev.ID)
		}
	}
	if n := rc.count(); n != 2 {
		t.Errorf("the receiver got %d events; want 2", n)
	}
}

// TestDepositSimulateRefused: a non-2xx answer is printed, then one error
// line, exit 1. A secret the receiver does not share makes it refuse.
func TestDepositSimulateRefused(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	f := newDepositFixture(t, auth.Test, "", map[string]string{"STRIPE_WEBHOOK_SECRETS": `{"test": "whsec_notTheReceivers"}`})
	url := rc.URL + "/stripe-webhook/test"
	r := f.run(t, "--event", "paid", "--url", url)
	if r.code != exitFailure {
		t.Errorf("exit %d; want 1", r.code)
	}
	if want := "opctl: the receiver at " + url + " answered 400 Bad Request\n"; r.stderr != want {
		t.Errorf("stderr %q; want %q", r.stderr, want)
	}
	var out simulated
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout %q: %v; want the output all the same", r.stdout, err)
	}
	if out.Status != http.StatusBadRequest || compact(t, out.Response) != `{"error":"signature check failed"}` || out.Type != "checkout.session.completed" {
		t.Errorf("output %+v (response %s); want status 400 and the receiver's body", out, out.Response)
	}
	if strings.Contains(r.stdout, "whsec_notTheReceivers") || strings.Contains(r.stderr, "whsec_notTheReceivers") {
		t.Error("the secret was printed")
	}
	if n := rc.count(); n != 0 {
		t.Errorf("the receiver accepted %d events; want none", n)
	}
}

// TestDepositSimulateAnswers covers answers that are not a plain 200 JSON:
// another 2xx, a body that is not JSON, an empty body, a redirect (not
// followed).
func TestDepositSimulateAnswers(t *testing.T) {
	t.Parallel()
	f := newDepositFixture(t, auth.Test, "", nil)
	long := strings.Repeat("é", maxResponseText+10)
	tests := []struct {
		name         string
		status       int
		body         string
		wantCode     int
		wantResponse string
	}{
		{"202 with JSON", http.StatusAccepted, `{"ok": true}`, exitOK, `{"ok":true}`},
		{"204", http.StatusNoContent, "", exitOK, "null"},
		{"text", http.StatusOK, "thanks\n", exitOK, `"thanks"`},
		{"long text", http.StatusInternalServerError, long, exitFailure, `"` + long[:2*maxResponseText] + `…"`},
		{"redirect", http.StatusFound, "", exitFailure, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.status == http.StatusFound {
					http.Redirect(w, r, "/elsewhere", tt.status)
					return
				}
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			r := f.run(t, "--event", "expired", "--url", srv.URL)
			if r.code != tt.wantCode {
				t.Errorf("exit %d (stderr %q); want %d", r.code, r.stderr, tt.wantCode)
			}
			var out simulated
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("stdout %q: %v", r.stdout, err)
			}
			if out.Status != tt.status || compact(t, out.Response) != tt.wantResponse {
				t.Errorf("status %d, response %s; want %d, %s", out.Status, out.Response, tt.status, tt.wantResponse)
			}
		})
	}
}

func TestDepositSimulateFailures(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	f := newDepositFixture(t, auth.Test, "", map[string]string{"PUBLIC_BASE_URL": rc.URL})
	// A receiver that drops every connection unanswered (a closed port
	// could be taken by a parallel test's server meanwhile).
	dropping := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(dropping.Close)
	const shape = `{"test": "whsec_…", "live": "whsec_…"}`
	tests := []struct {
		name string
		vars map[string]string // replacing f's
		args []string
		want string
	}{
		{"no secrets", map[string]string{"STRIPE_WEBHOOK_SECRETS": ""}, nil,
			"opctl: STRIPE_WEBHOOK_SECRETS is not set: it must hold the Stripe webhook signing secrets by mode, " + shape + "\n"},
		{"no secrets, checked before the table", map[string]string{"STRIPE_WEBHOOK_SECRETS": "", "TABLE_NAME": "opctl-no-such-table"}, nil,
			"opctl: STRIPE_WEBHOOK_SECRETS is not set"},
		{"secrets not JSON", map[string]string{"STRIPE_WEBHOOK_SECRETS": testWhsec}, nil,
			"opctl: STRIPE_WEBHOOK_SECRETS is not a JSON object of signing secrets by mode, " + shape + "\n"},
		{"secrets a JSON array", map[string]string{"STRIPE_WEBHOOK_SECRETS": `["` + testWhsec + `"]`}, nil,
			"opctl: STRIPE_WEBHOOK_SECRETS is not a JSON object"},
		{"no secret for the mode", map[string]string{"STRIPE_WEBHOOK_SECRETS": `{"live": "` + liveWhsec + `"}`}, nil,
			`opctl: STRIPE_WEBHOOK_SECRETS has no test signing secret ("test")` + "\n"},
		{"no base URL", map[string]string{"PUBLIC_BASE_URL": ""}, nil,
			"opctl: PUBLIC_BASE_URL is not set, so there is no default receiver: give --url, or run inside the checkout while make dev runs\n"},
		{"base URL not a URL", map[string]string{"PUBLIC_BASE_URL": "localhost:8080"}, nil,
			`opctl: PUBLIC_BASE_URL "localhost:8080" gives no receiver URL: invalid webhook URL`},
		{"unknown deposit", nil, []string{"--deposit", "no-such-deposit"},
			"opctl: deposit no-such-deposit not found (partner " + f.q.tenant.PartnerID + ", test mode)\n"},
		{"the other mode", nil, []string{"--mode", "live"},
			"opctl: deposit " + f.d.ID + " not found (partner " + f.q.tenant.PartnerID + ", live mode)\n"},
		{"no answer", nil, []string{"--url", dropping.URL + "/stripe-webhook/test"},
			"opctl: post the event to " + dropping.URL + "/stripe-webhook/test: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := f
			g.vars = map[string]string{}
			for k, v := range f.vars {
				g.vars[k] = v
			}
			for k, v := range tt.vars {
				g.vars[k] = v
			}
			// Flags given later win.
			r := g.run(t, append([]string{"--event", "paid"}, tt.args...)...)
			noSecret(t, r)
			fails(t, r, exitFailure, tt.want)
		})
	}
	if n := rc.count(); n != 0 {
		t.Errorf("the receiver got %d events; want none", n)
	}
}

func TestDepositSimulateUsage(t *testing.T) {
	t.Parallel()
	base := []string{"--partner", "ptn_x", "--mode", "test", "--deposit", "dep_1"}
	with := func(args ...string) []string { return append(slices.Clone(base), args...) }
	events := "paid|unpaid|async_paid|async_failed|expired|refunded|disputed"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown event", with("--event", "succeeded"), `deposit simulate: --event: unknown deposit event "succeeded"; want one of ` + events},
		{"a Stripe type, not an event", with("--event", "checkout.session.completed"), `unknown deposit event "checkout.session.completed"`},
		{"no event", base, "deposit simulate: --event is required: " + events},
		{"blank event", with("--event", " "), "--event is required"},
		{"no partner", []string{"--mode", "test", "--deposit", "dep_1", "--event", "paid"}, "--partner is required"},
		{"no mode", []string{"--partner", "ptn_x", "--deposit", "dep_1", "--event", "paid"}, "--mode is required (test or live)"},
		{"bad mode", []string{"--partner", "ptn_x", "--mode", "sandbox", "--deposit", "dep_1", "--event", "paid"}, `mode must be test or live, got "sandbox"`},
		{"no deposit", []string{"--partner", "ptn_x", "--mode", "test", "--event", "paid"}, "deposit simulate: --deposit is required"},
		{"deposit with a space", []string{"--partner", "ptn_x", "--mode", "test", "--deposit", "dep 1", "--event", "paid"}, `--deposit "dep 1" is not an id`},
		{"event id without prefix", with("--event", "paid", "--event-id", "1RedeliverMe"), `--event-id: "1RedeliverMe" is not a Stripe event id: want evt_`},
		{"event id prefix only", with("--event", "paid", "--event-id", "evt_"), `"evt_" is not a Stripe event id`},
		{"event id with a dash", with("--event", "paid", "--event-id", "evt_1-2"), `"evt_1-2" is not a Stripe event id`},
		{"event id too long", with("--event", "paid", "--event-id", "evt_"+strings.Repeat("x", 252)), "is not a Stripe event id"},
		{"relative URL", with("--event", "paid", "--url", "/stripe-webhook/test"), "--url: invalid webhook URL: must be an absolute http or https URL"},
		{"empty URL", with("--event", "paid", "--url", ""), "--url: invalid webhook URL"},
		{"URL with a password", with("--event", "paid", "--url", "https://u:p@example.com/"), "user name or password"},
		{"positional", with("--event", "paid", "now"), `unexpected argument "now"`},
		{"unknown flag", with("--event", "paid", "--account", "acct_1"), "flag provided but not defined: -account"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := opctlEnv(t, map[string]string{"STRIPE_WEBHOOK_SECRETS": stripeSecrets}, append([]string{"deposit", "simulate"}, tt.args...)...)
			fails(t, r, exitUsage, tt.want)
			noSecret(t, r)
			if r.using != "" {
				t.Errorf("a usage error named a table (%q); want nothing read", r.using)
			}
		})
	}
}

func TestStripeWebhookSecret(t *testing.T) {
	vars := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	fromFile := func(file, process map[string]string) devfile.Choice {
		return devfile.Choice{FromFile: true, File: devfile.File{PID: 1, Env: file}, Getenv: func(k string) string {
			if v, ok := file[k]; ok {
				return v
			}
			return process[k]
		}}
	}
	tests := []struct {
		name    string
		env     devfile.Choice
		mode    auth.Mode
		want    string
		wantErr string
	}{
		{"environment, test", devfile.Choice{Getenv: vars(map[string]string{"STRIPE_WEBHOOK_SECRETS": stripeSecrets})}, auth.Test, testWhsec, ""},
		{"environment, live", devfile.Choice{Getenv: vars(map[string]string{"STRIPE_WEBHOOK_SECRETS": stripeSecrets})}, auth.Live, liveWhsec, ""},
		{"dev.json", fromFile(map[string]string{"STRIPE_WEBHOOK_SECRETS": `{"test":" whsec_fromFile "}`}, map[string]string{"STRIPE_WEBHOOK_SECRETS": stripeSecrets}), auth.Test, "whsec_fromFile", ""},
		{"dev.json without, the environment's", fromFile(map[string]string{}, map[string]string{"STRIPE_WEBHOOK_SECRETS": stripeSecrets}), auth.Live, liveWhsec, ""},
		{"dev.json names the file", fromFile(map[string]string{"STRIPE_WEBHOOK_SECRETS": `{}`}, nil), auth.Test, "",
			`STRIPE_WEBHOOK_SECRETS of .local/dev.json has no test signing secret ("test")`},
		{"neither with make dev", fromFile(map[string]string{}, nil), auth.Test, "",
			"; neither .local/dev.json nor the environment sets it"},
		{"neither, make dev stale", devfile.Choice{Getenv: vars(nil), Skipped: "ignored stale .local/dev.json: make dev's pid 7 is not running"}, auth.Test, "",
			"(make dev: ignored stale .local/dev.json: make dev's pid 7 is not running)"},
		{"null", devfile.Choice{Getenv: vars(map[string]string{"STRIPE_WEBHOOK_SECRETS": "null"})}, auth.Test, "", "is not a JSON object"},
		{"a number for a secret", devfile.Choice{Getenv: vars(map[string]string{"STRIPE_WEBHOOK_SECRETS": `{"test": 1}`})}, auth.Test, "", "is not a JSON object"},
		{"blank secret", devfile.Choice{Getenv: vars(map[string]string{"STRIPE_WEBHOOK_SECRETS": `{"test": " "}`})}, auth.Test, "", "has no test signing secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stripeWebhookSecret(tt.env, tt.mode)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("stripeWebhookSecret error %v; want one containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "whsec_") && !strings.Contains(err.Error(), "whsec_…") {
					t.Errorf("error %q quotes a secret", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("stripeWebhookSecret = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestReceiverURL(t *testing.T) {
	tests := []struct {
		base string
		mode auth.Mode
		want string
	}{
		{"http://127.0.0.1:41234", auth.Test, "http://127.0.0.1:41234/stripe-webhook/test"},
		{"http://127.0.0.1:41234/", auth.Live, "http://127.0.0.1:41234/stripe-webhook/live"},
		{" https://api.example.com/prod ", auth.Live, "https://api.example.com/prod/stripe-webhook/live"},
	}
	for _, tt := range tests {
		env := devfile.Choice{Getenv: func(k string) string { return map[string]string{"PUBLIC_BASE_URL": tt.base}[k] }}
		if got, err := receiverURL(env, tt.mode); err != nil || got != tt.want {
			t.Errorf("receiverURL(%q, %s) = %q, %v; want %q", tt.base, tt.mode, got, err, tt.want)
		}
	}
}
