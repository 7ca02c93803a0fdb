package apigw_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// probe is a throwaway manifest entry and endpoint, added for one test and
// removed after it: the pipeline must enforce what the entry says (no
// route of the kind exists yet in the real manifest).
type probe struct {
	env *apitest.Env
	h   apigw.LambdaFunc
	rt  manifest.Route
	// runs counts the operation's runs.
	mu   sync.Mutex
	runs int
}

func newProbe(t *testing.T, env *apitest.Env, rt manifest.Route) *probe {
	t.Helper()
	saved := manifest.Functions
	fn := manifest.Function{Slug: "v1-probe", Summary: "test probe", HTTP: []manifest.Route{rt},
		Table: manifest.TableAccess{Get: true}}
	manifest.Functions = append(append([]manifest.Function{}, saved...), fn)
	t.Cleanup(func() { manifest.Functions = saved })
	pr := &probe{env: env, rt: manifest.ByOperation(rt.Operation)}
	ep := pipeline.Endpoint{Operation: rt.Operation, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		return pipeline.Work{Run: func(ctx context.Context, id string) (any, error) {
			pr.mu.Lock()
			pr.runs++
			pr.mu.Unlock()
			return map[string]string{"id": id, "param": c.PathParam}, nil
		}}, nil
	}}
	p := pipeline.New(pipeline.Deps{Store: env.Store, Now: env.Clock.Now})
	pr.h = apigw.New(p, slog.New(slog.NewJSONHandler(env.Logs, nil)), env.Clock.Now).Serve(ep)
	return pr
}

// call invokes the probe's handler as API Gateway would.
func (pr *probe) call(t *testing.T, key, param, query, idemKey string) (int, map[string]any) {
	t.Helper()
	ev := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RawPath: pr.rt.PilotPath, RawQueryString: query,
		Headers: map[string]string{"authorization": "Bearer " + key},
	}
	ev.RequestContext.RequestID = uuid.NewString()
	ev.RequestContext.HTTP.Method = pr.rt.Method
	if name := manifest.ParamName(pr.rt.PilotPath); name != "" {
		ev.PathParameters = map[string]string{name: param}
	}
	if idemKey != "" {
		ev.Headers["idempotency-key"] = idemKey
	}
	resp, err := pr.h(context.Background(), ev)
	if err != nil {
		t.Fatalf("handler error %v; want nil", err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
		t.Fatalf("body %q: %v", resp.Body, err)
	}
	return resp.StatusCode, body
}

func errCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// TestBetaGateThroughTheManifest: a route the manifest marks beta answers
// 403 beta_not_enabled until the operator enables the feature for the
// partner, and again after it is disabled; each change reaches requests
// once the settings cache's lifetime has passed.
func TestBetaGateThroughTheManifest(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	pr := newProbe(t, env, manifest.Route{
		Operation: "betaProbe", Method: "GET", PilotPath: "/v1-probe", LogicalPath: "/v1/probe",
		Auth: manifest.AuthPartnerKey, Scope: auth.DepositsRead, Beta: partner.Deposits,
		BodyLimit: manifest.DefaultBodyLimit, Response: manifest.JSON, RateLimit: manifest.PerKey,
	})
	p := newPartner(t, env)
	ctx := context.Background()

	status, body := pr.call(t, p.key, "", "", "")
	if status != 403 || errCode(body) != "beta_not_enabled" {
		t.Fatalf("not enabled: %d %v; want 403 beta_not_enabled", status, body)
	}
	if d := body["error"].(map[string]any)["details"].(map[string]any); d["feature"] != "deposits" {
		t.Errorf("details %v; want feature deposits", d)
	}
	// The scope is checked before the gate.
	narrow, _ := env.NewKey(t, p.id, auth.Test, auth.LeadsRead)
	if status, body := pr.call(t, narrow, "", "", ""); status != 403 || errCode(body) != "insufficient_scope" {
		t.Errorf("key without deposits:read: %d %v; want 403 insufficient_scope", status, body)
	}

	if _, err := env.Store.SetBeta(ctx, p.id, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	env.Clock.Advance(pipeline.SettingsTTL)
	if status, body := pr.call(t, p.key, "", "", ""); status != 200 {
		t.Fatalf("enabled: %d %v; want 200", status, body)
	}
	// Another partner is not enabled by the first one's flag.
	other := newPartner(t, env)
	if status, body := pr.call(t, other.key, "", "", ""); status != 403 || errCode(body) != "beta_not_enabled" {
		t.Errorf("other partner: %d %v; want 403 beta_not_enabled", status, body)
	}

	if _, err := env.Store.SetBeta(ctx, p.id, nil, []partner.Feature{partner.Deposits}); err != nil {
		t.Fatal(err)
	}
	env.Clock.Advance(pipeline.SettingsTTL)
	if status, body := pr.call(t, p.key, "", "", ""); status != 403 || errCode(body) != "beta_not_enabled" {
		t.Errorf("disabled again: %d %v; want 403 beta_not_enabled", status, body)
	}
	if pr.runs != 1 {
		t.Errorf("operation ran %d times; want 1 (only while enabled)", pr.runs)
	}
}

// TestIdempotencyFingerprintCoversPathAndQuery: the pipeline applies
// Idempotency-Key from the manifest flag, and the key is bound to the
// method, the path parameter, the query and the body: the same key sent
// for another resource answers 422, never the first resource's response.
func TestIdempotencyFingerprintCoversPathAndQuery(t *testing.T) {
	env := apitest.New(t)
	pr := newProbe(t, env, manifest.Route{
		Operation: "idemProbe", Method: "POST", PilotPath: "/v1-probe/{lead_id}", LogicalPath: "/v1/probe/{id}",
		Auth: manifest.AuthPartnerKey, Scope: auth.LeadsWrite, Idempotent: true,
		BodyLimit: manifest.DefaultBodyLimit, Response: manifest.JSON, RateLimit: manifest.PerKey,
	})
	p := newPartner(t, env)
	a, b := uuid.NewString(), uuid.NewString()

	status, first := pr.call(t, p.key, a, "", "k1")
	if status != 200 || first["param"] != a {
		t.Fatalf("first: %d %v", status, first)
	}
	if status, again := pr.call(t, p.key, a, "", "k1"); status != 200 || again["id"] != first["id"] {
		t.Errorf("replay: %d %v; want the first response %v", status, again, first)
	}
	if status, body := pr.call(t, p.key, b, "", "k1"); status != 422 || errCode(body) != "idempotency_key_reused" {
		t.Errorf("same key, other lead: %d %v; want 422 idempotency_key_reused", status, body)
	}
	if status, body := pr.call(t, p.key, a, url.Values{"x": {"1"}}.Encode(), "k1"); status != 422 || errCode(body) != "idempotency_key_reused" {
		t.Errorf("same key, other query: %d %v; want 422 idempotency_key_reused", status, body)
	}
	if status, _ := pr.call(t, p.key, b, "", "k2"); status != 200 {
		t.Errorf("new key, other lead: %d; want 200", status)
	}
	if pr.runs != 2 {
		t.Errorf("operation ran %d times; want 2", pr.runs)
	}
	// A route the manifest does not mark idempotent ignores the header.
	plain := newProbe(t, env, manifest.Route{
		Operation: "plainProbe", Method: "POST", PilotPath: "/v1-plain/{lead_id}", LogicalPath: "/v1/plain/{id}",
		Auth: manifest.AuthPartnerKey, Scope: auth.LeadsWrite,
		BodyLimit: manifest.DefaultBodyLimit, Response: manifest.JSON, RateLimit: manifest.PerKey,
	})
	plain.call(t, p.key, a, "", "k1")
	plain.call(t, p.key, a, "", "k1")
	if plain.runs != 2 {
		t.Errorf("non-idempotent route ran %d times for two calls; want 2", plain.runs)
	}
}

// TestSettingsChangeReachesEveryRequestWithin60s: a rate-card change made
// while keys are being created reaches every key's requests (old and new
// keys alike) once the settings cache's lifetime has passed, which is
// under the promised 60 s. Before the fix the card was copied onto key
// records, and a key created during the change could keep the old one.
func TestSettingsChangeReachesEveryRequestWithin60s(t *testing.T) {
	if pipeline.SettingsTTL > 60*time.Second {
		t.Fatalf("SettingsTTL %v; want at most 60 s", pipeline.SettingsTTL)
	}
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	p := newPartner(t, env)
	body := `{"email":"a@example.com","from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108","home_size":"2 bedroom"}`
	before := p.create(t, body) // warms this instance's cache with the old card
	ctx := context.Background()

	card := estimate.DefaultRateCard("usd")
	card.HourlyCents *= 3
	var keys []string
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < 5; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			k, _ := env.NewKey(t, p.id, auth.Test)
			mu.Lock()
			keys = append(keys, k)
			mu.Unlock()
		}()
		go func() {
			defer wg.Done()
			if err := env.Store.SetRateCard(ctx, p.id, card); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	want := estimate.Compute(card, estimate.Input{
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108", HomeSize: "2 bedroom",
	})
	if want == nil || before.Estimate == nil || int64(before.Estimate.Min) == want.Min {
		t.Fatalf("test setup: estimates %v and %v must differ", before.Estimate, want)
	}
	env.Clock.Advance(pipeline.SettingsTTL)
	for i, k := range append([]string{p.key}, keys...) {
		got := keyedPartner{env: env, key: k}.create(t, body)
		if got.Estimate == nil || int64(got.Estimate.Min) != want.Min || int64(got.Estimate.Max) != want.Max {
			t.Errorf("key %d: estimate %+v; want %+v (the new card)", i, got.Estimate, *want)
		}
	}
}
