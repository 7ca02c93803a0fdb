package apigw_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// endpoints is one request per partner-key route and path form, for checks
// that apply to every endpoint (token routes: shared/app/surveys' tests). {id} is replaced with a lead id.
var endpoints = []struct{ method, path, body string }{
	{"POST", "/v1-leads", `{"email":"a@b.co"}`},
	{"POST", "/v1/leads", `{"email":"a@b.co"}`},
	{"GET", "/v1-leads-list", ""},
	{"GET", "/v1/leads", ""},
	{"GET", "/v1-lead-get/{id}", ""},
	{"GET", "/v1/leads/{id}", ""},
	{"POST", "/v1-lead-survey/{id}", ""},
	{"POST", "/v1/leads/{id}/video-survey", `{"delivery":"link"}`},
	{"POST", "/v1-survey-video-access/{id}", `{"ttl_hours":1}`},
	{"POST", "/v1/surveys/{id}/video-access", ""},
	{"DELETE", "/v1-survey-video-access/{id}", ""},
	{"DELETE", "/v1/surveys/{id}/video-access", ""},
	{"POST", "/v1-lead-quote/{id}", `{"estimate_type":"non_binding","price_cents":100000}`},
	{"POST", "/v1/leads/{id}/quote", `{"estimate_type":"binding","price_cents":100000}`},
	{"POST", "/v1-accept/{id}", `{"accepter_email":"a@b.co"}`},
	{"POST", "/v1/leads/{id}/accept", ""},
	{"POST", "/v1-deposits", `{"lead_id":"00000000-0000-4000-8000-000000000000","quote_share_link_id":"00000000-0000-4000-8000-000000000000"}`},
	{"POST", "/v1/deposits", `{"lead_id":"00000000-0000-4000-8000-000000000000","quote_share_link_id":"00000000-0000-4000-8000-000000000000"}`},
	{"GET", "/v1-deposit-status/{id}", ""},
	{"GET", "/v1/deposits/{id}", ""},
	{"GET", "/v1-events", ""},
	{"GET", "/v1/events", ""},
	{"GET", "/v1-event-get/{id}", ""},
	{"GET", "/v1/events/{id}", ""},
}

func TestEveryRouteIsCovered(t *testing.T) {
	for _, r := range manifest.PartnerRoutes() {
		if r.Auth != manifest.AuthPartnerKey {
			continue
		}
		for _, want := range r.Paths() {
			found := false
			for _, e := range endpoints {
				if ok, _, _ := manifest.Match(want, strings.Replace(e.path, "{id}", "x", 1)); ok && e.method == r.Method {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %s has no entry in endpoints", r.Method, want)
			}
		}
	}
}

func TestUnauthenticated(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	revoked, revokedID := env.NewKey(t, p.id, auth.Test)
	if _, err := env.Store.RevokeKey(context.Background(), revokedID, time.Now()); err != nil {
		t.Fatal(err)
	}
	unknown, _, _ := auth.NewKey(auth.Test)
	keys := []struct{ name, header string }{
		{"missing", ""},
		{"not bearer", "Basic " + p.key},
		{"malformed", "Bearer mk_test_123"},
		{"wrong prefix", "Bearer sk_test_" + strings.Repeat("a", 64)},
		{"unknown", "Bearer " + unknown},
		{"revoked", "Bearer " + revoked},
	}
	for _, e := range endpoints {
		for _, k := range keys {
			t.Run(e.method+" "+e.path+" "+k.name, func(t *testing.T) {
				path := strings.Replace(e.path, "{id}", "00000000-0000-4000-8000-000000000000", 1)
				var hdr []string
				if k.header != "" {
					hdr = append(hdr, "Authorization: "+k.header)
				}
				r := env.Do(t, e.method, path, "", e.body, hdr...)
				wantError(t, r, 401, "invalid_api_key")
			})
		}
	}
}

func TestRevokedKeyAnswers401AtOnce(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	if r := env.Do(t, "GET", "/v1/leads", p.key, ""); r.Status != 200 {
		t.Fatalf("before revoke: %d", r.Status)
	}
	// A warm handler has served this key; revocation must still win within
	// 30 s. Keys are not cached, so it wins on the next request.
	if _, err := env.Store.RevokeKey(context.Background(), p.keyID, time.Now()); err != nil {
		t.Fatal(err)
	}
	wantError(t, env.Do(t, "GET", "/v1/leads", p.key, ""), 401, "invalid_api_key")
	// Revoking twice is fine and keeps the first time.
	k1, _ := env.Store.RevokeKey(context.Background(), p.keyID, time.Now().Add(time.Hour))
	if k1.RevokedAt == nil || k1.RevokedAt.After(time.Now()) {
		t.Errorf("second revoke moved revoked_at to %v", k1.RevokedAt)
	}
}

func TestTenantAndModeIsolation(t *testing.T) {
	env := apitest.New(t)
	a := newPartner(t, env)
	b := newPartner(t, env)
	aLive, _ := env.NewKey(t, a.id, auth.Live)
	lead := a.create(t, `{"email":"ada@example.com"}`)

	others := map[string]string{"other partner": b.key, "same partner, live mode": aLive}
	for name, key := range others {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{"/v1-lead-get/", "/v1/leads/"} {
				other := env.Do(t, "GET", path+lead.LeadID, key, "")
				missing := env.Do(t, "GET", path+"00000000-0000-4000-8000-000000000000", key, "")
				wantError(t, other, 404, "not_found")
				wantError(t, missing, 404, "not_found")
				if decode[errorBody](t, other.Body).Error.Message != decode[errorBody](t, missing.Body).Error.Message {
					t.Errorf("another tenant's lead answers differently from a missing one: %s vs %s", other.Body, missing.Body)
				}
			}
			for _, path := range []string{"/v1-leads-list", "/v1/leads"} {
				list := decode[listResp](t, env.Do(t, "GET", path, key, "").Body)
				if len(list.Data) != 0 {
					t.Errorf("%s lists %d of another tenant's leads", path, len(list.Data))
				}
			}
		})
	}
	// A live key's own leads stay out of test mode.
	live := env.Do(t, "POST", "/v1/leads", aLive, `{"email":"live@example.com"}`)
	liveID := decode[createResp](t, live.Body).LeadID
	wantError(t, env.Do(t, "GET", "/v1/leads/"+liveID, a.key, ""), 404, "not_found")
}

func TestScopes(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	readOnly, _ := env.NewKey(t, p.id, auth.Test, auth.LeadsRead)
	writeOnly, _ := env.NewKey(t, p.id, auth.Test, auth.LeadsWrite)
	// An older-style key: leads scopes only, no surveys:read.
	legacy, _ := env.NewKey(t, p.id, auth.Test, auth.LeadsRead, auth.LeadsWrite)

	r := wantError(t, env.Do(t, "POST", "/v1/leads", readOnly, `{"email":"a@b.co"}`), 403, "insufficient_scope")
	if r.Error.Details["required_scope"] != "leads:write" {
		t.Errorf("details %v; want required_scope leads:write", r.Error.Details)
	}
	wantError(t, env.Do(t, "GET", "/v1/leads", writeOnly, ""), 403, "insufficient_scope")
	wantError(t, env.Do(t, "GET", "/v1-lead-get/00000000-0000-4000-8000-000000000000", writeOnly, ""), 403, "insufficient_scope")
	if got := env.Do(t, "GET", "/v1/leads", readOnly, "").Status; got != 200 {
		t.Errorf("read-only key listing: %d; want 200", got)
	}
	if got := env.Do(t, "POST", "/v1/leads", legacy, `{"email":"a@b.co"}`).Status; got != 200 {
		t.Errorf("legacy key creating: %d; want 200", got)
	}
	keys, err := env.Store.ListKeys(context.Background(), p.id)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Digest == auth.Digest(legacy) && (len(k.Scopes) != 2 || hasScope(k.Scopes, auth.SurveysRead)) {
			t.Errorf("legacy key stored with scopes %v; want leads only", k.Scopes)
		}
	}
}

func hasScope(s []auth.Scope, want auth.Scope) bool {
	for _, x := range s {
		if x == want {
			return true
		}
	}
	return false
}

func TestRateLimitExactUnderConcurrency(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	// All 200 requests fall in one window.
	window := time.Date(2026, 11, 21, 12, 0, 10, 0, time.UTC)
	env.Clock.Set(window)

	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := env.Do(t, "GET", "/v1/leads?limit=1", p.key, "")
			mu.Lock()
			counts[r.Status]++
			mu.Unlock()
			if r.Status == 429 {
				e := decode[errorBody](t, r.Body)
				if e.Error.Code != "rate_limited" || r.Header.Get("Retry-After") != "50" ||
					r.Header.Get("X-RateLimit-Remaining") != "0" {
					t.Errorf("429 with code %q Retry-After %q Remaining %q; want rate_limited, 50, 0",
						e.Error.Code, r.Header.Get("Retry-After"), r.Header.Get("X-RateLimit-Remaining"))
				}
			}
			if r.Header.Get("X-RateLimit-Limit") != "120" || r.Header.Get("X-RateLimit-Reset") != "1795262460" {
				t.Errorf("limit headers %q %q; want 120 1795262460", r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Reset"))
			}
		}()
	}
	wg.Wait()
	if counts[200] != 120 || counts[429] != 80 {
		t.Fatalf("statuses %v; want exactly 120×200 and 80×429", counts)
	}
	// The next window admits again, with a fresh count.
	env.Clock.Advance(time.Minute)
	r := env.Do(t, "GET", "/v1/leads", p.key, "")
	if r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "119" {
		t.Errorf("next window: %d remaining %q; want 200, 119", r.Status, r.Header.Get("X-RateLimit-Remaining"))
	}
	// Another key of the same partner has its own budget.
	other, _ := env.NewKey(t, p.id, auth.Test)
	env.Clock.Set(window)
	if r := env.Do(t, "GET", "/v1/leads", other, ""); r.Status != 200 {
		t.Errorf("second key: %d; want 200", r.Status)
	}
}

func TestRateLimitHeadersOnEveryAnswer(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	responses := []apitest.Result{
		env.Do(t, "POST", "/v1-leads", p.key, `{"email":"a@b.co"}`),
		env.Do(t, "POST", "/v1-leads", p.key, `{"nope":1}`),
		env.Do(t, "GET", "/v1/leads/not-a-uuid", p.key, ""),
		env.Do(t, "GET", "/v1/leads?limit=0", p.key, ""),
	}
	prev := 120
	for _, r := range responses {
		rem := r.Header.Get("X-RateLimit-Remaining")
		if r.Header.Get("X-RateLimit-Limit") != "120" || rem == "" || r.Header.Get("X-RateLimit-Reset") == "" {
			t.Errorf("%d response lacks rate-limit headers: %v", r.Status, r.Header)
		}
		if rem != itoa(prev-1) {
			t.Errorf("remaining %s; want %d", rem, prev-1)
		}
		prev--
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRequestIDAndLogs(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	r := env.Do(t, "POST", "/v1/leads", p.key, `{"email":"ada@example.com"}`, "Idempotency-Key: log-test")
	bad := env.Do(t, "GET", "/v1/leads", "", "", "Authorization: Bearer "+p.key+"x")
	for _, res := range []apitest.Result{r, bad} {
		id := res.Header.Get("X-Request-Id")
		if id == "" {
			t.Fatalf("no X-Request-Id on %d", res.Status)
		}
		var line map[string]any
		for _, l := range strings.Split(env.Logs.String(), "\n") {
			if strings.Contains(l, id) {
				if err := json.Unmarshal([]byte(l), &line); err != nil {
					t.Fatalf("log line is not JSON: %s", l)
				}
			}
		}
		if line == nil || line["request_id"] != id || line["status"] != float64(res.Status) {
			t.Errorf("no JSON log line with request_id %s and status %d in:\n%s", id, res.Status, env.Logs.String())
		}
	}
	logs := env.Logs.String()
	secret := strings.TrimPrefix(p.key, "mk_test_")
	if strings.Contains(logs, secret[:16]) || strings.Contains(logs, auth.Digest(p.key)) || strings.Contains(logs, "log-test") {
		t.Errorf("logs contain key material or idempotency key:\n%s", logs)
	}
	if !strings.Contains(logs, p.keyID) {
		t.Errorf("logs do not name the key id %s", p.keyID)
	}
}

func TestUnknownRoute(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	// Unknown paths are outside the API description: not checked against it.
	// API Gateway matches the raw path exactly: an encoded slash, a trailing
	// slash or an empty segment is another path.
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/nope"}, {"GET", "/v1-lead-get/"}, {"POST", "/v1%2fleads"}, {"POST", "/v1/leads/"},
		{"GET", "/v1/leads/"}, {"POST", "//v1-leads"},
	} {
		r := env.DoRaw(t, c.method, c.path, p.key, "")
		wantError(t, r, 404, "route_not_found")
		if r.Header.Get("X-Request-Id") == "" {
			t.Errorf("%s %s: no X-Request-Id", c.method, c.path)
		}
	}
}

func TestWrongMethodIs405WithAllow(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	for _, c := range []struct{ method, path, allow string }{
		{"DELETE", "/v1/leads", "POST, GET"},
		{"PUT", "/v1-leads", "POST"},
		{"POST", "/v1-lead-get/3f2b8c1e-0000-4000-8000-000000000000", "GET"},
	} {
		r := env.DoRaw(t, c.method, c.path, p.key, "")
		wantError(t, r, 405, "method_not_allowed")
		if got := r.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q; want %q", c.method, c.path, got, c.allow)
		}
	}
}
