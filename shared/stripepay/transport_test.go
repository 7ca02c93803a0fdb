package stripepay

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	stripe "github.com/stripe/stripe-go/v76"
)

// answer is one scripted response: a status with a Stripe error body, or
// a dropped connection.
type answer struct {
	status      int
	code        string
	shouldRetry string
	drop        bool
}

// scripted serves answers in turn (then 200 with a session) and records
// each request's Idempotency-Key.
func scripted(t *testing.T, answers ...answer) (url string, keys func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := len(seen)
		seen = append(seen, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		if n >= len(answers) {
			w.Write([]byte(`{"id":"cs_test_ok","object":"checkout.session","status":"open","payment_status":"unpaid"}`))
			return
		}
		a := answers[n]
		if a.drop {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		if a.shouldRetry != "" {
			w.Header().Set("Stripe-Should-Retry", a.shouldRetry)
		}
		w.WriteHeader(a.status)
		w.Write([]byte(`{"error":{"type":"api_error","code":"` + a.code + `","message":"scripted"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// testClient returns a client of url whose backoff only records delays.
func testClient(t *testing.T, url string) (*Client, *[]time.Duration) {
	t.Helper()
	c, err := New(Config{SecretKey: "sk_test_retry", APIURL: url})
	if err != nil {
		t.Fatal(err)
	}
	var delays []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		delays = append(delays, d)
		return ctx.Err()
	}
	return c, &delays
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name     string
		method   string
		answers  []answer
		attempts int
		wantErr  bool
	}{
		{"500 to a GET is retried", http.MethodGet, []answer{{status: 500}}, 2, false},
		{"500 to a POST is not (Stripe's idempotency layer caches it)", http.MethodPost, []answer{{status: 500}}, 1, true},
		{"503 to a POST is retried", http.MethodPost, []answer{{status: 503}}, 2, false},
		{"409 is retried", http.MethodPost, []answer{{status: 409}}, 2, false},
		{"429 rate limit is not", http.MethodPost, []answer{{status: 429, code: "rate_limit"}}, 1, true},
		{"429 lock timeout is retried", http.MethodPost, []answer{{status: 429, code: "lock_timeout"}}, 2, false},
		{"Stripe-Should-Retry true wins", http.MethodPost, []answer{{status: 400, shouldRetry: "true"}}, 2, false},
		{"Stripe-Should-Retry false wins", http.MethodGet, []answer{{status: 503, shouldRetry: "false"}}, 1, true},
		{"400 is not retried", http.MethodPost, []answer{{status: 400}}, 1, true},
		{"a dropped connection is retried", http.MethodPost, []answer{{drop: true}}, 2, false},
		{"gives up after two retries", http.MethodGet, []answer{{status: 503}, {status: 503}, {status: 503}}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, keys := scripted(t, tt.answers...)
			c, delays := testClient(t, url)
			params := &sessionParams{Mode: stripe.String("payment")}
			params.SetIdempotencyKey("key-1")
			var out sessionJSON
			err := c.call(context.Background(), tt.method, "/v1/checkout/sessions", params, &out)
			if (err != nil) != tt.wantErr {
				t.Fatalf("call = %v; want error %v", err, tt.wantErr)
			}
			got := keys()
			if len(got) != tt.attempts {
				t.Errorf("%d attempts; want %d", len(got), tt.attempts)
			}
			for i, k := range got {
				if k != "key-1" {
					t.Errorf("attempt %d sent Idempotency-Key %q; want the same key-1 on every attempt", i+1, k)
				}
			}
			if len(*delays) != tt.attempts-1 {
				t.Errorf("waited %d times; want %d", len(*delays), tt.attempts-1)
			}
			for i, d := range *delays {
				if base := retryDelay * time.Duration(1+i*i); d > base || d < base*3/4 {
					t.Errorf("delay %d = %v; want between %v and %v", i+1, d, base*3/4, base)
				}
			}
			if !tt.wantErr && out.ID != "cs_test_ok" {
				t.Errorf("answer %+v; want the session", out)
			}
		})
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	url, keys := scripted(t, answer{status: 503}, answer{status: 503})
	c, _ := testClient(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	c.sleep = func(context.Context, time.Duration) error {
		cancel()
		return context.Canceled
	}
	err := c.call(ctx, http.MethodGet, "/v1/checkout/sessions/cs_1", &stripe.Params{}, &sessionJSON{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("call = %v; want context.Canceled", err)
	}
	if n := len(keys()); n != 1 {
		t.Errorf("%d attempts; want 1", n)
	}
}

func TestExpandable(t *testing.T) {
	tests := []struct {
		in      string
		want    expandable
		wantErr bool
	}{
		{`null`, expandable{}, false},
		{`"pi_1"`, expandable{ID: "pi_1"}, false},
		{`{"id":"pi_1","object":"payment_intent","status":"processing"}`, expandable{ID: "pi_1", Status: "processing"}, false},
		{`{"id":7}`, expandable{}, true},
		{`[]`, expandable{}, true},
	}
	for _, tt := range tests {
		var got expandable
		err := got.UnmarshalJSON([]byte(tt.in))
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("UnmarshalJSON(%s) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
