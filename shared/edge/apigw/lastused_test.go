package apigw_test

import (
	"context"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// TestRequestSetsKeyLastUsed: an authenticated request through the
// gateway records its key's last use, which the key listing shows.
func TestRequestSetsKeyLastUsed(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	lastUsed := func() *time.Time {
		t.Helper()
		keys, err := env.Store.ListKeys(context.Background(), p.id)
		if err != nil || len(keys) != 1 {
			t.Fatalf("ListKeys = %+v, %v; want the partner's one key", keys, err)
		}
		return keys[0].LastUsedAt
	}
	if at := lastUsed(); at != nil {
		t.Fatalf("last use before any request = %s; want none", at)
	}
	before := time.Now().Truncate(time.Microsecond)
	if r := env.Do(t, "GET", "/v1/leads", p.key, ""); r.Status != 200 {
		t.Fatalf("GET /v1/leads: %d", r.Status)
	}
	after := time.Now()
	if at := lastUsed(); at == nil || at.Before(before) || at.After(after) {
		t.Errorf("last use after a request = %v; want between %s and %s", at, before, after)
	}
}
