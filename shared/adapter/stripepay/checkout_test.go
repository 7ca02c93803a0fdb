package stripepay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
)

// stopMock stops the stripe-mock of this test binary, if one was started.
var stopMock = func() {}

func TestMain(m *testing.M) {
	code := m.Run()
	stopMock()
	os.Exit(code)
}

// stripeMock returns the URL of this test binary's stripe-mock, started
// (and installed) on first use.
func stripeMock(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts stripe-mock")
	}
	srv, stop, err := stripelocal.ForTests()
	if err != nil {
		t.Fatal(err)
	}
	stopMock = stop
	return srv.URL
}

// recorded is one request that passed the recording proxy.
type recorded struct {
	Method, Path string
	Header       http.Header
	Query        url.Values
	Form         url.Values // the form-encoded body
}

// recorder is a reverse proxy in front of target that keeps every request.
type recorder struct {
	URL  string
	mu   sync.Mutex
	reqs []recorded
}

func newRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{r.Method, r.URL.Path, r.Header.Clone(), r.URL.Query(), form})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rec.URL = srv.URL
	return rec
}

func (r *recorder) requests() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

func newClient(t *testing.T, apiURL string) *stripepay.Client {
	t.Helper()
	c, err := stripepay.New(stripepay.Config{SecretKey: stripelocal.SecretKey, APIURL: apiURL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkoutRequest() stripepay.CheckoutRequest {
	return stripepay.CheckoutRequest{
		ConnectedAccount: "acct_1PartnerAcme",
		DepositID:        "7c9e6679-7425-40de-944b-e07fc1f90ae7",
		LeadID:           "9b2d5c1e-3f4a-4b8e-8d6f-2a1c7e5b9d30",
		PartnerID:        "ptr_acme",
		AmountCents:      25000,
		Currency:         "usd",
		ProductName:      "Moving deposit",
		Description:      "Holds your move date with Acme Movers",
		ExpiresAt:        time.Now().Add(2 * time.Hour).Truncate(time.Second),
		SuccessURL:       "https://partner.example/deposit/done",
		CancelURL:        "https://partner.example/deposit/cancel",
		IdempotencyKey:   "deposit-create:7c9e6679-7425-40de-944b-e07fc1f90ae7",
	}
}

// TestCreateCheckoutRequest checks the exact request that reaches
// stripe-mock, which validates it against Stripe's OpenAPI spec.
func TestCreateCheckoutRequest(t *testing.T) {
	rec := newRecorder(t, stripeMock(t))
	c := newClient(t, rec.URL)
	r := checkoutRequest()
	got, err := c.CreateCheckout(context.Background(), r)
	if err != nil {
		t.Fatalf("CreateCheckout: %v", err)
	}

	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests reached Stripe; want 1", len(reqs))
	}
	req := reqs[0]
	if req.Method != http.MethodPost || req.Path != "/v1/checkout/sessions" {
		t.Errorf("request %s %s; want POST /v1/checkout/sessions", req.Method, req.Path)
	}
	headers := map[string]string{
		"Stripe-Account":  r.ConnectedAccount,
		"Idempotency-Key": r.IdempotencyKey,
		"Stripe-Version":  "2023-10-16",
		"Authorization":   "Bearer " + stripelocal.SecretKey,
		"Content-Type":    "application/x-www-form-urlencoded",
	}
	for k, want := range headers {
		if got := req.Header.Get(k); got != want {
			t.Errorf("header %s = %q; want %q", k, got, want)
		}
	}
	meta := map[string]string{"deposit_id": r.DepositID, "lead_id": r.LeadID, "partner_id": r.PartnerID}
	want := map[string]string{
		"mode":                                   "payment",
		"client_reference_id":                    r.DepositID,
		"expires_at":                             strconv.FormatInt(r.ExpiresAt.Unix(), 10),
		"success_url":                            r.SuccessURL,
		"cancel_url":                             r.CancelURL,
		"line_items[0][quantity]":                "1",
		"line_items[0][price_data][currency]":    "usd",
		"line_items[0][price_data][unit_amount]": "25000",
		"line_items[0][price_data][product_data][name]":        r.ProductName,
		"line_items[0][price_data][product_data][description]": r.Description,
	}
	for k, v := range meta {
		want["metadata["+k+"]"] = v
		want["payment_intent_data[metadata]["+k+"]"] = v
	}
	// Exactly these parameters: no application_fee_amount (nor
	// payment_intent_data[application_fee_amount]), no transfer_data or
	// on_behalf_of (a destination charge), a single line item.
	for k := range req.Form {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected parameter %s=%q", k, req.Form[k])
		}
		if strings.Contains(k, "application_fee") || strings.Contains(k, "transfer_data") || strings.Contains(k, "on_behalf_of") || strings.HasPrefix(k, "line_items[1]") {
			t.Errorf("parameter %s must not be sent", k)
		}
	}
	for k, v := range want {
		if got := req.Form[k]; len(got) != 1 || got[0] != v {
			t.Errorf("parameter %s = %q; want %q", k, got, v)
		}
	}

	// stripe-mock answers with a fixture: it keeps the mode but not the
	// metadata or expires_at sent, so only the fixture's shape is checked.
	if !strings.HasPrefix(got.ID, "cs_") || !strings.HasPrefix(got.URL, "https://") || got.ExpiresAt.IsZero() {
		t.Errorf("CreateCheckout = %+v; want a cs_ id, an https URL and an expiry", got)
	}
	if got.Status != "open" || got.PaymentStatus != "unpaid" {
		t.Errorf("status %q, payment_status %q; want open, unpaid", got.Status, got.PaymentStatus)
	}
	if e, ok := stripepay.Outcome(got); ok {
		t.Errorf("Outcome() of an open session = %s; want none", e)
	}
}

func TestCreateCheckoutLeavesOptionalFieldsOut(t *testing.T) {
	rec := newRecorder(t, stripeMock(t))
	r := checkoutRequest()
	r.Description, r.CancelURL = "", ""
	if _, err := newClient(t, rec.URL).CreateCheckout(context.Background(), r); err != nil {
		t.Fatalf("CreateCheckout: %v", err)
	}
	form := rec.requests()[0].Form
	for _, k := range []string{"cancel_url", "line_items[0][price_data][product_data][description]"} {
		if form.Has(k) {
			t.Errorf("parameter %s = %q sent; want it left out (Stripe refuses an empty string)", k, form[k])
		}
	}
}

func TestCreateCheckoutRefusesInvalidRequests(t *testing.T) {
	rec := newRecorder(t, "http://127.0.0.1:1") // nothing may reach it
	c := newClient(t, rec.URL)
	tests := []struct {
		name string
		mod  func(*stripepay.CheckoutRequest)
	}{
		{"no account", func(r *stripepay.CheckoutRequest) { r.ConnectedAccount = "" }},
		{"bare acct_", func(r *stripepay.CheckoutRequest) { r.ConnectedAccount = "acct_" }},
		{"not an account id", func(r *stripepay.CheckoutRequest) { r.ConnectedAccount = "cus_123" }},
		{"no deposit id", func(r *stripepay.CheckoutRequest) { r.DepositID = "" }},
		{"no lead id", func(r *stripepay.CheckoutRequest) { r.LeadID = "" }},
		{"no partner id", func(r *stripepay.CheckoutRequest) { r.PartnerID = "" }},
		{"amount below the minimum", func(r *stripepay.CheckoutRequest) { r.AmountCents = 99 }},
		{"amount above the maximum", func(r *stripepay.CheckoutRequest) { r.AmountCents = 500001 }},
		{"upper-case currency", func(r *stripepay.CheckoutRequest) { r.Currency = "USD" }},
		{"zero-decimal currency", func(r *stripepay.CheckoutRequest) { r.Currency = "jpy" }},
		{"no product name", func(r *stripepay.CheckoutRequest) { r.ProductName = "" }},
		{"no expiry", func(r *stripepay.CheckoutRequest) { r.ExpiresAt = time.Time{} }},
		{"relative success URL", func(r *stripepay.CheckoutRequest) { r.SuccessURL = "/done" }},
		{"javascript cancel URL", func(r *stripepay.CheckoutRequest) { r.CancelURL = "javascript:alert(1)" }},
		{"no idempotency key", func(r *stripepay.CheckoutRequest) { r.IdempotencyKey = "" }},
		{"idempotency key too long", func(r *stripepay.CheckoutRequest) { r.IdempotencyKey = strings.Repeat("k", 256) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := checkoutRequest()
			tt.mod(&r)
			if got, err := c.CreateCheckout(context.Background(), r); err == nil {
				t.Errorf("CreateCheckout = %+v, nil; want an error", got)
			}
		})
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("%d invalid requests reached Stripe; want 0", n)
	}
}

func TestGetCheckout(t *testing.T) {
	rec := newRecorder(t, stripeMock(t))
	got, err := newClient(t, rec.URL).GetCheckout(context.Background(), "acct_1PartnerAcme", "cs_test_a1Deposit7c9e")
	if err != nil {
		t.Fatalf("GetCheckout: %v", err)
	}
	req := rec.requests()[0]
	if req.Method != http.MethodGet || req.Path != "/v1/checkout/sessions/cs_test_a1Deposit7c9e" {
		t.Errorf("request %s %s; want GET /v1/checkout/sessions/cs_test_a1Deposit7c9e", req.Method, req.Path)
	}
	if got := req.Header.Get("Stripe-Account"); got != "acct_1PartnerAcme" {
		t.Errorf("Stripe-Account = %q; want acct_1PartnerAcme", got)
	}
	// stripe-go indexes array parameters.
	if got := req.Query; len(got) != 1 || !slices.Equal(got["expand[0]"], []string{"payment_intent"}) {
		t.Errorf("query %q; want only expand[0]=payment_intent", got)
	}
	// stripe-mock echoes the id and expands its fixture PaymentIntent.
	if got.ID != "cs_test_a1Deposit7c9e" || !strings.HasPrefix(got.PaymentIntentID, "pi_") || got.PaymentIntentStatus == "" {
		t.Errorf("GetCheckout = %+v; want the id asked for and an expanded PaymentIntent", got)
	}
}

func TestGetCheckoutRefusesBadArguments(t *testing.T) {
	c := newClient(t, "http://127.0.0.1:1")
	for _, args := range [][2]string{{"", "cs_1"}, {"cus_1", "cs_1"}, {"acct_1", ""}} {
		if _, err := c.GetCheckout(context.Background(), args[0], args[1]); err == nil {
			t.Errorf("GetCheckout(%q, %q) = nil error; want one", args[0], args[1])
		}
	}
}

// fakeStripe answers every request with status and a Stripe error body;
// Stripe-Should-Retry: false keeps stripe-go from retrying.
func fakeStripe(t *testing.T, status int, typ, code string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_test")
		w.Header().Set("Stripe-Should-Retry", "false")
		w.WriteHeader(status)
		body, _ := json.Marshal(map[string]any{"error": map[string]string{"type": typ, "code": code, "message": "refused by the fake"}})
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestStripeErrors(t *testing.T) {
	tests := []struct {
		name         string
		status       int
		typ, code    string
		wantNotFound bool
		wantRefused  bool
	}{
		{"no such session", 404, "invalid_request_error", "resource_missing", true, false},
		{"account not connected", 403, "invalid_request_error", "", false, true},
		{"invalid parameter", 400, "invalid_request_error", "parameter_invalid_integer", false, true},
		{"idempotency key reused with other parameters", 400, "idempotency_error", "", false, true},
		{"bad key", 401, "invalid_request_error", "", false, true},
		{"concurrent request with the same key", 409, "idempotency_error", "", false, false},
		{"rate limited", 429, "invalid_request_error", "rate_limit", false, false},
		{"Stripe down", 500, "api_error", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, fakeStripe(t, tt.status, tt.typ, tt.code))
			_, err := c.CreateCheckout(context.Background(), checkoutRequest())
			if err == nil {
				t.Fatal("CreateCheckout = nil error; want one")
			}
			if errors.Is(err, stripepay.ErrNotFound) != tt.wantNotFound || errors.Is(err, stripepay.ErrRefused) != tt.wantRefused {
				t.Errorf("CreateCheckout = %v; want ErrNotFound %v, ErrRefused %v", err, tt.wantNotFound, tt.wantRefused)
			}
			if strings.Contains(err.Error(), stripelocal.SecretKey) {
				t.Errorf("error %q carries the secret key", err)
			}
			if !strings.Contains(err.Error(), "deposit 7c9e6679") || !strings.Contains(err.Error(), "req_test") {
				t.Errorf("error %q; want the deposit and Stripe's request id for the log", err)
			}
		})
	}
}

func TestCreateCheckoutHonoursContext(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newClient(t, hang.URL).CreateCheckout(ctx, checkoutRequest())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CreateCheckout past the deadline = %v; want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("CreateCheckout took %v after a 200 ms deadline", d)
	}
}

func TestCheckoutOutcome(t *testing.T) {
	tests := []struct {
		status, payment, intent string
		want                    deposit.Event
		ok                      bool
	}{
		{"open", "unpaid", "", "", false},
		{"open", "unpaid", "requires_payment_method", "", false},
		{"expired", "unpaid", "", deposit.EventExpired, true},
		{"complete", "paid", "succeeded", deposit.EventPaid, true},
		{"complete", "unpaid", "processing", deposit.EventUnpaid, true},
		{"complete", "unpaid", "", deposit.EventUnpaid, true},
		{"complete", "no_payment_required", "", deposit.EventUnpaid, true},
		{"complete", "unpaid", "requires_payment_method", deposit.EventAsyncFailed, true},
		{"complete", "unpaid", "canceled", deposit.EventAsyncFailed, true},
		{"", "", "", "", false},
	}
	for _, tt := range tests {
		c := stripepay.Checkout{Status: tt.status, PaymentStatus: tt.payment, PaymentIntentStatus: tt.intent}
		if got, ok := stripepay.Outcome(c); got != tt.want || ok != tt.ok {
			t.Errorf("Checkout{%s, %s, intent %s}.Outcome() = %q, %v; want %q, %v", tt.status, tt.payment, tt.intent, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []stripepay.Config{
		{},
		{SecretKey: "sk_test_1", APIURL: "127.0.0.1:12111"},
		{SecretKey: "sk_test_1", APIURL: "ftp://stripe.test"},
		{SecretKey: "sk_test_1", APIURL: "http://"},
	} {
		if _, err := stripepay.New(cfg); err == nil {
			t.Errorf("New(%v) = nil error; want one", cfg)
		}
	}
	if _, err := stripepay.New(stripepay.Config{SecretKey: "sk_test_1"}); err != nil {
		t.Errorf("New with the default URL: %v", err)
	}
}

func TestSecretKeyIsNeverPrinted(t *testing.T) {
	const key = "sk_live_do_not_print_me"
	cfg := stripepay.Config{SecretKey: key, APIURL: "http://127.0.0.1:1"}
	c, err := stripepay.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	printed := map[string]string{"json": string(js)}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		printed["config "+verb] = fmt.Sprintf(verb, cfg)
		printed["&config "+verb] = fmt.Sprintf(verb, &cfg)
		printed["client "+verb] = fmt.Sprintf(verb, c)
	}
	for _, k := range slices.Sorted(maps.Keys(printed)) {
		if strings.Contains(printed[k], "do_not_print") {
			t.Errorf("%s prints the key: %s", k, printed[k])
		}
	}
}
