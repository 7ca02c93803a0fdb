package stripelocal_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
)

const testSecret = "whsec_checkout_test"

// deposits is a unit-test double of the page's narrow Store port: the
// deposits the sessions name, and one partner.
type deposits map[string]deposit.Deposit

func (d deposits) GetDeposit(_ context.Context, t auth.Tenant, id string) (deposit.Deposit, error) {
	if dep, ok := d[id]; ok && dep.PartnerID == t.PartnerID {
		return dep, nil
	}
	return deposit.Deposit{}, errcode.New(errcode.NotFound, "no deposit %s", id)
}

func (deposits) GetPartner(_ context.Context, id string) (partner.Partner, error) {
	return partner.Partner{ID: id, Name: "Demo Movers"}, nil
}

// checkoutWorld is a stand-in in front of stripe-mock with its page and a
// stripe-webhook receiver that verifies each event with the adapter's
// own parser.
type checkoutWorld struct {
	co     *stripelocal.Checkout
	base   string
	client *stripepay.Client
	store  deposits

	mu       sync.Mutex
	received []stripepay.Event
	refuse   bool // the receiver answers 500
}

func newCheckoutWorld(t *testing.T) *checkoutWorld {
	t.Helper()
	if testing.Short() {
		t.Skip("starts stripe-mock")
	}
	// A server of its own: ForTests' shared one is stopped once per
	// binary, by RunTests, which this package's own tests cannot use.
	sm, err := stripelocal.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sm.Stop() })
	w := &checkoutWorld{store: deposits{}}
	mux := http.NewServeMux()
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	w.base = site.URL
	if w.co, err = stripelocal.NewCheckout(sm.URL, site.URL); err != nil {
		t.Fatal(err)
	}
	mux.Handle(stripelocal.CheckoutPath, w.co.Page(w.store, testSecret, slog.New(slog.DiscardHandler)))
	mux.HandleFunc("POST /stripe-webhook/test", func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e, err := stripepay.ParseWebhook(body, r.Header.Get("Stripe-Signature"), testSecret, time.Now())
		w.mu.Lock()
		defer w.mu.Unlock()
		if err != nil || w.refuse {
			http.Error(rw, "refused", http.StatusInternalServerError)
			return
		}
		w.received = append(w.received, e)
	})
	api := httptest.NewServer(w.co.API())
	t.Cleanup(api.Close)
	if w.client, err = stripepay.New(stripepay.Config{SecretKey: stripelocal.SecretKey, APIURL: api.URL}); err != nil {
		t.Fatal(err)
	}
	return w
}

// create makes deposit id's Checkout Session through the proxy and
// stores the deposit as createDeposit would.
func (w *checkoutWorld) create(t *testing.T, id string) stripepay.Checkout {
	t.Helper()
	co, err := w.client.CreateCheckout(context.Background(), stripepay.CheckoutRequest{
		ConnectedAccount: "acct_1Demo", DepositID: id, LeadID: "lead-" + id, PartnerID: "ptn_1",
		AmountCents: 25000, Currency: "usd", ProductName: "Moving date deposit", Description: "Demo Movers holds your moving date.",
		ExpiresAt: time.Now().Add(time.Hour), SuccessURL: w.base + "/v1-quote/tok?checkout=done", CancelURL: w.base + "/v1-quote/tok",
		IdempotencyKey: "deposit-" + id,
	})
	if err != nil {
		t.Fatal(err)
	}
	w.store[id] = deposit.Deposit{ID: id, PartnerID: "ptn_1", LeadID: "lead-" + id, ConnectedAccount: "acct_1Demo",
		Status: deposit.CheckoutOpen, AmountCents: 25000, Currency: "usd", SessionID: co.ID, CheckoutURL: co.URL}
	return co
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (w *checkoutWorld) post(t *testing.T, session, outcome string) (int, string, map[string]any) {
	t.Helper()
	resp, err := noRedirect.PostForm(w.base+stripelocal.CheckoutPath, url.Values{"session": {session}, "outcome": {outcome}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, resp.Header.Get("Location"), body
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func errorCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// TestCheckoutURLIsTheLocalPage: a session created through the proxy
// has the stand-in's page as its url, on create and on read.
func TestCheckoutURLIsTheLocalPage(t *testing.T) {
	w := newCheckoutWorld(t)
	co := w.create(t, "dep1")
	if want := w.base + stripelocal.CheckoutPath + "?session=" + co.ID; co.URL != want || !strings.HasPrefix(co.ID, "cs_") {
		t.Errorf("created session %s url %q; want %q", co.ID, co.URL, want)
	}
	got, err := w.client.GetCheckout(context.Background(), "acct_1Demo", co.ID)
	if err != nil || got.URL != co.URL {
		t.Errorf("GetCheckout url %q, %v; want %q", got.URL, err, co.URL)
	}
	status, page := get(t, co.URL)
	for _, want := range []string{"Local test page, not Stripe", "Demo Movers", "$250.00", "Pay (succeeds)", "Payment fails", "Let it expire", co.ID} {
		if status != 200 || !strings.Contains(page, want) {
			t.Errorf("GET page: %d, no %q in\n%s", status, want, page)
		}
	}
	if status, page := get(t, w.co.PageURL("cs_test_unknown")); status != 404 || !strings.Contains(page, "No such checkout") {
		t.Errorf("GET unknown session: %d\n%s", status, page)
	}
}

// TestCheckoutOutcomes: each button sends its Stripe event, signed, for
// the session's deposit and redirects as Stripe does; a session ends once.
func TestCheckoutOutcomes(t *testing.T) {
	w := newCheckoutWorld(t)
	for _, tt := range []struct {
		outcome, wantType string
		wantOutcome       deposit.Event
		success           bool
	}{
		{"paid", "checkout.session.completed", deposit.EventPaid, true},
		{"failed", "checkout.session.async_payment_failed", deposit.EventAsyncFailed, false},
		{"expired", "checkout.session.expired", deposit.EventExpired, false},
	} {
		t.Run(tt.outcome, func(t *testing.T) {
			co := w.create(t, "dep-"+tt.outcome)
			status, loc, body := w.post(t, co.ID, tt.outcome)
			want := w.base + "/v1-quote/tok"
			if tt.success {
				want += "?checkout=done"
			}
			if status != http.StatusSeeOther || loc != want {
				t.Fatalf("POST %s: %d %q %v; want 303 to %s", tt.outcome, status, loc, body, want)
			}
			w.mu.Lock()
			e := w.received[len(w.received)-1]
			w.mu.Unlock()
			if e.Type != tt.wantType || e.Outcome != tt.wantOutcome || e.DepositID != "dep-"+tt.outcome || e.SessionID != co.ID || e.Account != "acct_1Demo" || e.Livemode {
				t.Errorf("received %+v; want %s (%s) of session %s, deposit %s", e, tt.wantType, tt.wantOutcome, co.ID, "dep-"+tt.outcome)
			}
			if status, _, body := w.post(t, co.ID, "paid"); status != 409 || errorCode(body) != "conflict" {
				t.Errorf("second POST: %d %v; want 409 conflict", status, body)
			}
			if _, page := get(t, w.co.PageURL(co.ID)); !strings.Contains(page, "has ended ("+tt.outcome+")") || strings.Contains(page, "<button") {
				t.Errorf("page after %s still offers its buttons:\n%s", tt.outcome, page)
			}
			if got, err := w.client.GetCheckout(context.Background(), "acct_1Demo", co.ID); err != nil || got.URL != "" {
				t.Errorf("GetCheckout url after the outcome %q, %v; want none", got.URL, err)
			}
		})
	}
}

// TestCheckoutRefusals: bad input is the API's 4xx error body and sends
// nothing; a receiver that refuses leaves the session open.
func TestCheckoutRefusals(t *testing.T) {
	w := newCheckoutWorld(t)
	co := w.create(t, "dep2")
	for _, tt := range []struct {
		name, session, outcome string
		status                 int
		code                   string
	}{
		{"unknown outcome", co.ID, "refund", 422, "validation_failed"},
		{"no outcome", co.ID, "", 422, "validation_failed"},
		{"not a session id", "cs_<script>", "paid", 422, "validation_failed"},
		{"unknown session", "cs_test_nobody", "paid", 404, "not_found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if status, _, body := w.post(t, tt.session, tt.outcome); status != tt.status || errorCode(body) != tt.code {
				t.Errorf("POST: %d %v; want %d %s", status, body, tt.status, tt.code)
			}
		})
	}
	w.mu.Lock()
	w.refuse = true
	w.mu.Unlock()
	if status, _, body := w.post(t, co.ID, "paid"); status != 502 || errorCode(body) != "upstream_failed" {
		t.Errorf("POST with the receiver refusing: %d %v; want 502 upstream_failed", status, body)
	}
	w.mu.Lock()
	w.refuse = false
	n := len(w.received)
	w.mu.Unlock()
	if n != 0 {
		t.Errorf("the receiver accepted %d events; want none", n)
	}
	if status, loc, body := w.post(t, co.ID, "paid"); status != 303 || !strings.HasSuffix(loc, "?checkout=done") {
		t.Errorf("POST once the receiver accepts: %d %q %v; want 303 (the session stayed open)", status, loc, body)
	}
	resp, err := http.DefaultClient.Do(mustRequest(t, http.MethodPut, w.base+stripelocal.CheckoutPath))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") == "" {
		t.Errorf("PUT: %d, Allow %q; want 405 with Allow", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func mustRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCheckoutAPIRefusesAnUnreadableCreate: a create without the
// deposit's metadata is Stripe's 400, never forwarded.
func TestCheckoutAPIRefusesAnUnreadableCreate(t *testing.T) {
	co, err := stripelocal.NewCheckout("http://127.0.0.1:1", "http://127.0.0.1:2")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/checkout/sessions", strings.NewReader("mode=payment&success_url=http%3A%2F%2Fx%2F"))
	req.Header.Set("Authorization", "Bearer "+stripelocal.SecretKey)
	co.API().ServeHTTP(rec, req)
	var body struct {
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != 400 || err != nil || body.Error.Type != "invalid_request_error" {
		t.Errorf("create without metadata: %d %s; want Stripe's 400 invalid_request_error", rec.Code, rec.Body)
	}
}

// FuzzParseOutcome: the page's form either names a plain session id and
// one of the buttons, or is validation_failed.
func FuzzParseOutcome(f *testing.F) {
	for _, s := range [][2]string{{"cs_test_a1", "paid"}, {"cs_", "expired"}, {"cs_x", "refund"}, {"", ""}, {"cs_a\"<", "failed"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, session, outcome string) {
		id, o, err := stripelocal.ParseOutcome(session, outcome)
		if err != nil {
			if e := errcode.As(err); e == nil || e.Code != errcode.ValidationFailed || id != "" || o.Name != "" {
				t.Fatalf("ParseOutcome(%q, %q) = %q, %+v, %v", session, outcome, id, o, err)
			}
			return
		}
		if id != session || o.Name != outcome || strings.ContainsAny(id, "<>\"'&? ") {
			t.Fatalf("ParseOutcome(%q, %q) = %q, %+v", session, outcome, id, o)
		}
	})
}

// FuzzReadCreate: a create request either gives a session with every
// field the page and the event need, or an error; it never panics.
func FuzzReadCreate(f *testing.F) {
	f.Add("metadata[deposit_id]=d&metadata[lead_id]=l&metadata[partner_id]=p&line_items[0][price_data][unit_amount]=100&line_items[0][price_data][currency]=usd&success_url=http%3A%2F%2Fx%2Fy", "sk_test_1", "acct_1")
	f.Add("a=%zz", "sk_live_1", "")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, body, key, account string) {
		h := http.Header{}
		h.Set("Authorization", "Bearer "+key)
		h.Set("Stripe-Account", account)
		s, err := stripelocal.ReadCreate([]byte(body), h)
		if err != nil {
			if s != (stripelocal.Session{}) {
				t.Fatalf("ReadCreate failed but returned %+v", s)
			}
			return
		}
		if s.DepositID == "" || s.PartnerID == "" || s.AmountCents <= 0 || s.SuccessURL == "" || (s.Mode != auth.Test && s.Mode != auth.Live) {
			t.Fatalf("ReadCreate(%q) = %+v", body, s)
		}
	})
}
