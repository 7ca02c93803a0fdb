package stripepay_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	stripe "github.com/stripe/stripe-go/v76"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
)

// fault is what the fault proxy does to one request: answer status with a
// Stripe error body (and Stripe-Should-Retry, if set), reset the
// connection, or hang until the client gives up.
type fault struct {
	status      int
	typ, code   string
	shouldRetry string
	reset, hang bool
}

// faultProxy sits in front of stripe-mock: the n-th request gets faults[n],
// every later one reaches stripe-mock. It records each request's headers.
type faultProxy struct {
	URL     string
	mu      sync.Mutex
	headers []http.Header
}

func newFaultProxy(t *testing.T, target string, faults ...fault) *faultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	fp := &faultProxy{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		fp.mu.Lock()
		n := len(fp.headers)
		fp.headers = append(fp.headers, r.Header.Clone())
		fp.mu.Unlock()
		if n >= len(faults) {
			proxy.ServeHTTP(w, r)
			return
		}
		switch f := faults[n]; {
		case f.reset:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
				conn.Close()
			}
		case f.hang:
			select {
			case <-r.Context().Done():
			case <-release:
			}
		default:
			if f.shouldRetry != "" {
				w.Header().Set("Stripe-Should-Retry", f.shouldRetry)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Request-Id", "req_fault")
			w.WriteHeader(f.status)
			io.WriteString(w, `{"error":{"type":"`+f.typ+`","code":"`+f.code+`","message":"injected by the fault proxy"}}`)
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	fp.URL = srv.URL
	return fp
}

func (fp *faultProxy) requests() []http.Header {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	return append([]http.Header(nil), fp.headers...)
}

// fastClient is a client of apiURL whose retries do not wait.
func fastClient(t *testing.T, cfg stripepay.Config) *stripepay.Client {
	t.Helper()
	cfg.SecretKey = stripelocal.SecretKey
	c, err := stripepay.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stripepay.NoRetryWait(c)
	return c
}

// TestFaultsAreRetriedByStripeGo: stripe-go's retry policy, through a
// fault proxy in front of stripe-mock: what it retries ends in the
// session, with the same Idempotency-Key and Stripe-Account on every
// attempt; what it does not retry fails after one attempt.
func TestFaultsAreRetriedByStripeGo(t *testing.T) {
	mock := stripeMock(t)
	const account = "acct_1PartnerAcme"
	tests := []struct {
		name     string
		get      bool // GetCheckout instead of CreateCheckout
		faults   []fault
		attempts int
		wantErr  bool
	}{
		{"503 to a create is retried", false, []fault{{status: 503, typ: "api_error"}}, 2, false},
		{"500 to a read is retried", true, []fault{{status: 500, typ: "api_error"}}, 2, false},
		{"500 to a create is not (Stripe's idempotency layer keeps it)", false, []fault{{status: 500, typ: "api_error"}}, 1, true},
		{"409 is retried", false, []fault{{status: 409, typ: "idempotency_error"}}, 2, false},
		{"429 lock timeout is retried", false, []fault{{status: 429, typ: "invalid_request_error", code: "lock_timeout"}}, 2, false},
		{"429 rate limit is not", false, []fault{{status: 429, typ: "invalid_request_error", code: "rate_limit"}}, 1, true},
		{"Stripe-Should-Retry false wins over 503", true, []fault{{status: 503, typ: "api_error", shouldRetry: "false"}}, 1, true},
		{"a reset connection is retried", false, []fault{{reset: true}}, 2, false},
		{"a timed-out attempt is retried", false, []fault{{hang: true}}, 2, false},
		{"gives up after two retries", false, []fault{{status: 503, typ: "api_error"}, {status: 503, typ: "api_error"}, {status: 503, typ: "api_error"}}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := newFaultProxy(t, mock, tt.faults...)
			// The per-attempt timeout ends the hanging attempt; it is far
			// above what an answer of stripe-mock takes.
			c := fastClient(t, stripepay.Config{APIURL: fp.URL, HTTPClient: &http.Client{Timeout: 3 * time.Second}})
			var co stripepay.Checkout
			var err error
			if tt.get {
				co, err = c.GetCheckout(context.Background(), account, "cs_test_a1Deposit7c9e")
			} else {
				co, err = c.CreateCheckout(context.Background(), checkoutRequest())
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("call = %+v, %v; want error %v", co, err, tt.wantErr)
			}
			if !tt.wantErr && !strings.HasPrefix(co.ID, "cs_") {
				t.Errorf("call = %+v; want stripe-mock's session", co)
			}
			if tt.wantErr && (errors.Is(err, stripepay.ErrRefused) || errors.Is(err, stripepay.ErrNotFound)) {
				t.Errorf("call = %v; want neither ErrRefused nor ErrNotFound (a retry later may succeed)", err)
			}
			reqs := fp.requests()
			if len(reqs) != tt.attempts {
				t.Errorf("%d attempts reached the proxy; want %d", len(reqs), tt.attempts)
			}
			for i, h := range reqs {
				if got := h.Get("Stripe-Account"); got != account {
					t.Errorf("attempt %d: Stripe-Account %q; want %q", i+1, got, account)
				}
				if got, want := h.Get("Idempotency-Key"), checkoutRequest().IdempotencyKey; !tt.get && got != want {
					t.Errorf("attempt %d: Idempotency-Key %q; want %q on every attempt", i+1, got, want)
				}
				if got := h.Get("Stripe-Version"); got != stripepay.APIVersion {
					t.Errorf("attempt %d: Stripe-Version %q; want %q", i+1, got, stripepay.APIVersion)
				}
			}
		})
	}
}

// TestRefusalsAreStripeGoTypedErrors: a 4xx is stripe-go's *stripe.Error
// (status, type, code, request id), not retried, and wrapped in
// ErrRefused or ErrNotFound, which deposits maps to its error codes.
func TestRefusalsAreStripeGoTypedErrors(t *testing.T) {
	mock := stripeMock(t)
	tests := []struct {
		name      string
		f         fault
		wantKind  error
		wantType  stripe.ErrorType
		wantCode  stripe.ErrorCode
		wantInner any
	}{
		{"card declined", fault{status: 402, typ: "card_error", code: "card_declined"}, stripepay.ErrRefused, stripe.ErrorTypeCard, stripe.ErrorCodeCardDeclined, &stripe.CardError{}},
		{"invalid parameter", fault{status: 400, typ: "invalid_request_error", code: "parameter_invalid_integer"}, stripepay.ErrRefused, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeParameterInvalidInteger, &stripe.InvalidRequestError{}},
		{"key reused with other parameters", fault{status: 400, typ: "idempotency_error"}, stripepay.ErrRefused, stripe.ErrorTypeIdempotency, "", &stripe.IdempotencyError{}},
		{"no such session", fault{status: 404, typ: "invalid_request_error", code: "resource_missing"}, stripepay.ErrNotFound, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeResourceMissing, &stripe.InvalidRequestError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := newFaultProxy(t, mock, tt.f)
			_, err := fastClient(t, stripepay.Config{APIURL: fp.URL}).CreateCheckout(context.Background(), checkoutRequest())
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("CreateCheckout = %v; want %v", err, tt.wantKind)
			}
			var se *stripe.Error
			if !errors.As(err, &se) {
				t.Fatalf("CreateCheckout = %T %v; want a *stripe.Error inside", err, err)
			}
			if se.HTTPStatusCode != tt.f.status || se.Type != tt.wantType || se.Code != tt.wantCode || se.RequestID != "req_fault" {
				t.Errorf("stripe.Error{status %d, type %q, code %q, request %q}; want %d, %q, %q, req_fault",
					se.HTTPStatusCode, se.Type, se.Code, se.RequestID, tt.f.status, tt.wantType, tt.wantCode)
			}
			if inner := se.Err; inner == nil || !sameType(inner, tt.wantInner) {
				t.Errorf("stripe.Error.Err = %T; want %T", inner, tt.wantInner)
			}
			if n := len(fp.requests()); n != 1 {
				t.Errorf("%d attempts; want 1 (a refusal is not retried)", n)
			}
		})
	}
}

func sameType(a, b any) bool { return fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) }

// TestRedirectLoopIsNotRetried: a redirect loop fails once, as stripe-go
// decides; the hand transport sent it three times.
func TestRedirectLoopIsNotRetried(t *testing.T) {
	var mu sync.Mutex
	first := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/checkout/sessions" {
			mu.Lock()
			first++
			mu.Unlock()
		}
		http.Redirect(w, r, "/elsewhere"+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, err := fastClient(t, stripepay.Config{APIURL: srv.URL}).CreateCheckout(context.Background(), checkoutRequest())
	if err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Fatalf("CreateCheckout = %v; want the redirect error", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if first != 1 {
		t.Errorf("the request was sent %d times; want 1", first)
	}
}

// TestStripeGoLogsNothing: stripe-go's logger is off, so a failed call
// (an answer that is not JSON, retried) writes nothing to stderr, where
// the default logger would; the error goes to the caller alone.
func TestStripeGoLogsNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>bad gateway</html>")
	}))
	defer srv.Close()
	c := fastClient(t, stripepay.Config{APIURL: srv.URL})

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	_, callErr := c.CreateCheckout(context.Background(), checkoutRequest())
	os.Stderr = stderr
	w.Close()
	logged, _ := io.ReadAll(r)
	if callErr == nil {
		t.Fatal("CreateCheckout against a 502 = nil error; want one")
	}
	if len(logged) != 0 {
		t.Errorf("stripe-go wrote to stderr: %q", logged)
	}
}
