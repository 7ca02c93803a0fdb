package dashboardapp_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// formPost is a form the dashboard's own page posts as m.
func formPost(t *testing.T, env *apitest.Env, path string, m member, fields url.Values) apitest.Result {
	t.Helper()
	fields.Set("csrf_token", dashboard.CSRF(m.Token))
	r := do(t, env, request{method: "POST", path: path, body: fields.Encode(), token: m.Token, origin: origin(env)})
	return r
}

var shownKey = regexp.MustCompile(`<code id="secret">([^<]+)</code>`)

// An admin creates a test key on the API keys page (shown once), the API
// accepts it; another partner's admin cannot revoke it; the admin
// revokes it and the API answers 401. Each step is in the audit trail.
func TestKeysPageCreateUseRevoke(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewPartner(t, "A Movers"), env.NewPartner(t, "B Movers")
	admin := join(t, env, a, "admin@a.example", dashboard.Admin)
	other := join(t, env, b, "admin@b.example", dashboard.Admin)

	res := formPost(t, env, "/dashboard/developers/keys/create", admin, url.Values{"scope_leads:read": {"on"}})
	m := shownKey.FindSubmatch(res.Body)
	if res.Status != 200 || m == nil {
		t.Fatalf("create: %d, no key shown: %.600s", res.Status, res.Body)
	}
	key := string(m[1])
	if !strings.HasPrefix(key, auth.Test.Prefix()) {
		t.Fatalf("key %q is not a test key", key)
	}
	if r := env.Do(t, "GET", "/v1/leads", key, ""); r.Status != 200 {
		t.Fatalf("the new key: GET /v1/leads %d %s", r.Status, r.Body)
	}
	keys, err := env.Store.ListKeys(context.Background(), a)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys of A: %v %v", keys, err)
	}
	k := keys[0]
	if len(k.Scopes) != 1 || k.Scopes[0] != auth.LeadsRead || k.CreatedBy.Email != "admin@a.example" {
		t.Errorf("stored key %+v; want leads:read by admin@a.example", k)
	}
	page := do(t, env, request{method: "GET", path: "/dashboard/developers/keys", token: admin.Token})
	if strings.Contains(string(page.Body), key) || !strings.Contains(string(page.Body), k.KeyID) || !strings.Contains(string(page.Body), "Revoke key "+k.KeyID) {
		t.Errorf("keys page: want the key's id and a revoke naming it, never the key: %.2000s", page.Body)
	}

	revoke := "/dashboard/developers/keys/" + k.KeyID + "/revoke"
	if r := formPost(t, env, revoke, other, url.Values{}); r.Status != 404 {
		t.Errorf("B revoking A's key: %d; want 404", r.Status)
	}
	if r := env.Do(t, "GET", "/v1/leads", key, ""); r.Status != 200 {
		t.Fatalf("after B's attempt: %d; want the key still working", r.Status)
	}
	if r := formPost(t, env, revoke, admin, url.Values{}); r.Status != 303 {
		t.Fatalf("revoke: %d %.300s", r.Status, r.Body)
	}
	if r := env.Do(t, "GET", "/v1/leads", key, ""); r.Status != 401 {
		t.Errorf("revoked key: %d; want 401", r.Status)
	}
	trail, err := env.Store.ListAudit(context.Background(), a, 100)
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	for _, e := range trail {
		if e.TargetID == k.KeyID {
			acts = append(acts, string(e.Action)+" by "+e.Actor.Email)
		}
	}
	if len(acts) != 2 {
		t.Errorf("audit of the key: %v; want its creation and revocation by admin@a.example", acts)
	}
}

// Adding an endpoint shows its secret once; a live session does not see
// a test endpoint, and another partner's admin gets 404 on its page.
func TestWebhooksPageAddAndTenancy(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewPartner(t, "A Movers"), env.NewPartner(t, "B Movers")
	admin := join(t, env, a, "admin@a.example", dashboard.Admin)
	other := join(t, env, b, "admin@b.example", dashboard.Admin)

	if r := formPost(t, env, "/dashboard/developers/webhooks/add", admin, url.Values{"url": {"ftp://example.com/x"}}); r.Status != 422 && r.Status != 400 {
		t.Errorf("an ftp URL: %d; want a 4xx refusal", r.Status)
	}
	res := formPost(t, env, "/dashboard/developers/webhooks/add", admin, url.Values{"url": {"https://hooks.a.example/in"}})
	m := shownKey.FindSubmatch(res.Body)
	if res.Status != 200 || m == nil || !strings.HasPrefix(string(m[1]), "whsec_") {
		t.Fatalf("add: %d, no secret shown: %.600s", res.Status, res.Body)
	}
	eps, err := env.Store.TenantEndpoints(context.Background(), auth.Tenant{PartnerID: a, Mode: auth.Test})
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints: %v %v", eps, err)
	}
	path := "/dashboard/developers/webhooks/" + eps[0].ID
	if r := do(t, env, request{method: "GET", path: path, token: admin.Token}); r.Status != 200 || strings.Contains(string(r.Body), string(m[1])) {
		t.Errorf("endpoint page: %d (the secret must not show again)", r.Status)
	}
	if r := do(t, env, request{method: "GET", path: path, token: other.Token}); r.Status != 404 || strings.Contains(string(r.Body), "hooks.a.example") {
		t.Errorf("B on A's endpoint: %d; want 404 without its URL", r.Status)
	}
	if r := formPost(t, env, path+"/disable", other, url.Values{}); r.Status != 404 {
		t.Errorf("B disabling A's endpoint: %d; want 404", r.Status)
	}
	if r := formPost(t, env, path+"/disable", admin, url.Values{}); r.Status != 303 {
		t.Errorf("disable: %d", r.Status)
	}
	if e, _ := env.Store.GetEndpoint(context.Background(), eps[0].ID); !e.Disabled {
		t.Errorf("endpoint not disabled")
	}
}
