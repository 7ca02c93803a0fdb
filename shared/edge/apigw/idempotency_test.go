package apigw_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

func countLeads(t *testing.T, p keyedPartner) int {
	t.Helper()
	n, cursor := 0, ""
	for {
		path := "/v1/leads?limit=100"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := p.env.Do(t, "GET", path, p.key, "")
		l := decode[listResp](t, r.Body)
		n += len(l.Data)
		if !l.HasMore {
			return n
		}
		cursor = *l.NextCursor
	}
}

func TestIdempotentReplay(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	first := env.Do(t, "POST", "/v1-leads", p.key, `{"email":"ada@example.com","customer_name":"Ada"}`, "Idempotency-Key: k1")
	if first.Status != 200 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d replayed=%q", first.Status, first.Header.Get("Idempotent-Replayed"))
	}
	// Same body up to key order and white space, and through the other path form.
	again := env.Do(t, "POST", "/v1/leads", p.key, "{ \"customer_name\" : \"Ada\",\n \"email\":\"ada@example.com\" }", "Idempotency-Key: k1")
	if again.Status != 200 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s replayed=%q; want 200, byte-identical body, true", again.Status, again.Body, again.Header.Get("Idempotent-Replayed"))
	}
	if n := countLeads(t, p); n != 1 {
		t.Errorf("%d leads after replay; want 1", n)
	}
	t.Run("different body", func(t *testing.T) {
		r := env.Do(t, "POST", "/v1-leads", p.key, `{"email":"grace@example.com"}`, "Idempotency-Key: k1")
		wantError(t, r, 422, "idempotency_key_reused")
	})
	t.Run("keys are per partner", func(t *testing.T) {
		q := newPartner(t, env)
		r := env.Do(t, "POST", "/v1-leads", q.key, `{"email":"grace@example.com"}`, "Idempotency-Key: k1")
		if r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("another partner's first use of k1: %d replayed=%q", r.Status, r.Header.Get("Idempotent-Replayed"))
		}
	})
	t.Run("key length", func(t *testing.T) {
		wantError(t, env.Do(t, "POST", "/v1-leads", p.key, `{"email":"a@b.co"}`, "Idempotency-Key: "+strings.Repeat("k", 256)), 422, "validation_failed")
		if r := env.Do(t, "POST", "/v1-leads", p.key, `{"email":"a@b.co"}`, "Idempotency-Key: "+strings.Repeat("k", 255)); r.Status != 200 {
			t.Errorf("255-character key: %d; want 200", r.Status)
		}
	})
}

func TestIdempotencyValidationFailureStoresNothing(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	bad := env.Do(t, "POST", "/v1-leads", p.key, `{"email":"nope"}`, "Idempotency-Key: fix-me")
	wantError(t, bad, 422, "validation_failed")
	good := env.Do(t, "POST", "/v1-leads", p.key, `{"email":"ada@example.com"}`, "Idempotency-Key: fix-me")
	if good.Status != 200 || good.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("corrected retry: %d %s; want a fresh 200", good.Status, good.Body)
	}
}

func TestIdempotencyConcurrentDuplicates(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	var wg sync.WaitGroup
	results := make([]apitest.Result, 20)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = env.Do(t, "POST", "/v1-leads", p.key, `{"email":"ada@example.com"}`, "Idempotency-Key: same")
		}()
	}
	wg.Wait()
	replayed := 0
	for _, r := range results {
		if r.Status != 200 || string(r.Body) != string(results[0].Body) {
			t.Errorf("got %d %s; want 200 %s", r.Status, r.Body, results[0].Body)
		}
		if r.Header.Get("Idempotent-Replayed") == "true" {
			replayed++
		}
	}
	if replayed != 19 {
		t.Errorf("%d replayed; want 19", replayed)
	}
	if n := countLeads(t, p); n != 1 {
		t.Errorf("%d leads; want exactly 1", n)
	}
}

func TestIdempotencyInFlight(t *testing.T) {
	env := apitest.New(t, apitest.Options{IdempotencyWait: 300 * time.Millisecond})
	p := newPartner(t, env)
	store := env.Store.Idempotency()
	body := `{"email":"ada@example.com"}`
	hold := func(key string, lockExpires time.Time) {
		t.Helper()
		now := time.Now()
		held, err := store.Create(context.Background(), idempotency.Record{
			Scope: idempotency.Scope{PartnerID: p.id, Mode: "test", Operation: string(manifest.CreateLead), Key: key},
			State: idempotency.InFlight, RequestHash: pipeline.FingerprintOf("POST", "", nil, []byte(body)),
			ResourceID: "11111111-1111-4111-8111-111111111111", LockExpires: lockExpires,
			CreatedAt: now, Expires: now.Add(idempotency.Retention),
		}, now)
		if err != nil || held != nil {
			t.Fatalf("seed in-flight record: %v %v", held, err)
		}
	}
	t.Run("held past the wait", func(t *testing.T) {
		hold("busy", time.Now().Add(time.Minute))
		wantError(t, env.Do(t, "POST", "/v1-leads", p.key, body, "Idempotency-Key: busy"), 409, "idempotency_key_in_use")
	})
	t.Run("crashed request does not block its key", func(t *testing.T) {
		hold("crashed", time.Now().Add(-time.Second))
		r := env.Do(t, "POST", "/v1-leads", p.key, body, "Idempotency-Key: crashed")
		if r.Status != 200 {
			t.Fatalf("after an expired lock: %d %s; want 200", r.Status, r.Body)
		}
		// The retry re-creates the resource the crashed request had pinned.
		if got := decode[createResp](t, r.Body).LeadID; got != "11111111-1111-4111-8111-111111111111" {
			t.Errorf("lead_id %s; want the pinned id", got)
		}
	})
}

// faultyTransport fails DynamoDB calls whose target matches and whose body
// contains match (any body when empty), either before sending them (nothing
// reaches DynamoDB) or after (the write lands but the answer is lost), while
// fail is set.
type faultyTransport struct {
	target string
	match  string
	after  bool
	fail   atomic.Bool
	calls  atomic.Int32
}

func (f *faultyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if f.fail.Load() && strings.HasSuffix(req.Header.Get("X-Amz-Target"), "."+f.target) && f.bodyMatches(req) {
		f.calls.Add(1)
		if f.after {
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		return nil, errors.New("injected network failure")
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (f *faultyTransport) bodyMatches(req *http.Request) bool {
	if f.match == "" {
		return true
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return false
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return bytes.Contains(b, []byte(f.match))
}

// quickRetries keeps the SDK's standard retryer (its attempts and what it
// retries) but backs off 1 ms instead of up to seconds, which these tests
// would only wait out.
func quickRetries(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(s *retry.StandardOptions) {
		s.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
	})
}

// leadWrite matches the PutItem of a lead item (its sort key is "LEAD").
const leadWrite = `{"S":"LEAD"}`

func TestUpstreamFailure(t *testing.T) {
	for _, after := range []bool{false, true} {
		name := map[bool]string{false: "write never lands", true: "write lands, answer lost"}[after]
		t.Run(name, func(t *testing.T) {
			ft := &faultyTransport{target: "PutItem", match: leadWrite, after: after}
			env := apitest.New(t, apitest.Options{HTTPClient: &http.Client{Transport: ft}, DynamoDB: quickRetries})
			p := newPartner(t, env)
			body := `{"email":"ada@example.com"}`
			ft.fail.Store(true)
			r := env.Do(t, "POST", "/v1-leads", p.key, body, "Idempotency-Key: retry-me")
			ft.fail.Store(false)
			wantError(t, r, 502, "upstream_failed")
			if ft.calls.Load() < 2 {
				t.Errorf("DynamoDB was tried %d times; want the SDK's retries first", ft.calls.Load())
			}
			if strings.Contains(string(r.Body), "injected") {
				t.Errorf("internal error text reached the client: %s", r.Body)
			}
			ok := env.Do(t, "POST", "/v1-leads", p.key, body, "Idempotency-Key: retry-me")
			if ok.Status != 200 {
				t.Fatalf("retry: %d %s; want 200", ok.Status, ok.Body)
			}
			if n := countLeads(t, p); n != 1 {
				t.Errorf("%d leads after failure and retry; want exactly 1", n)
			}
		})
	}
	t.Run("without Idempotency-Key nothing is written", func(t *testing.T) {
		ft := &faultyTransport{target: "PutItem"}
		env := apitest.New(t, apitest.Options{HTTPClient: &http.Client{Transport: ft}, DynamoDB: quickRetries})
		p := newPartner(t, env)
		ft.fail.Store(true)
		wantError(t, env.Do(t, "POST", "/v1-leads", p.key, `{"email":"ada@example.com"}`), 502, "upstream_failed")
		ft.fail.Store(false)
		if n := countLeads(t, p); n != 0 {
			t.Errorf("%d leads after a failed create; want 0", n)
		}
	})
}
