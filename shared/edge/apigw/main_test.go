package apigw_test

import (
	"encoding/json"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// keyedPartner is a partner with a test key, on a fresh stack.
type keyedPartner struct {
	env   *apitest.Env
	id    string
	key   string
	keyID string
}

func newPartner(t *testing.T, env *apitest.Env) keyedPartner {
	t.Helper()
	id := env.NewPartner(t, "Acme Movers")
	key, keyID := env.NewKey(t, id, auth.Test)
	return keyedPartner{env: env, id: id, key: key, keyID: keyID}
}

// errorBody is the spec's error body.
type errorBody struct {
	Error struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// wantError asserts status and error code and returns the error body.
func wantError(t *testing.T, r apitest.Result, status int, code string) errorBody {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s %s: status %d; want %d (body %s)", r.Req.Method, r.Req.URL.Path, r.Status, status, r.Body)
	}
	e := decode[errorBody](t, r.Body)
	if e.Error.Code != code {
		t.Fatalf("error.code %q; want %q (body %s)", e.Error.Code, code, r.Body)
	}
	if e.Error.Message == "" || e.Error.Details == nil {
		t.Fatalf("error body lacks message or details: %s", r.Body)
	}
	return e
}

type createResp struct {
	LeadID   string `json:"lead_id"`
	Status   string `json:"status"`
	Estimate *struct {
		Min      float64 `json:"min"`
		Max      float64 `json:"max"`
		Currency string  `json:"currency"`
	} `json:"estimate"`
}

func (p keyedPartner) create(t *testing.T, body string, headers ...string) createResp {
	t.Helper()
	r := p.env.Do(t, "POST", "/v1-leads", p.key, body, headers...)
	if r.Status != 200 {
		t.Fatalf("create: status %d; want 200 (body %s)", r.Status, r.Body)
	}
	return decode[createResp](t, r.Body)
}
