package dashboardapp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// TestLeadPageShowsTheQuote: a lead's page shows its quote's terms (the
// estimate type, the price and the deposit asked) and, once the customer
// accepts, who accepted it, as office staff need them on a call.
func TestLeadPageShowsTheQuote(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	p := env.NewPartner(t, "Acme Movers")
	if _, err := env.Store.SetBeta(context.Background(), p, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	key, _ := env.NewKey(t, p, auth.Test)
	viewer := join(t, env, p, "office@acme.example", dashboard.Viewer)
	l := apitest.Want(t, env.Do(t, "POST", "/v1/leads", key, `{"customer_name":"Ada Lovelace","email":"ada@example.com"}`), 200, "")
	id := l["lead_id"].(string)
	apitest.Want(t, env.Do(t, "POST", "/v1/leads/"+id+"/quote", key, `{"estimate_type":"non_binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`), 200, "")

	page := func() string {
		t.Helper()
		r := get(t, env, viewer, "/dashboard/leads/"+id)
		if r.Status != 200 {
			t.Fatalf("lead page: %d %.300s", r.Status, r.Body)
		}
		return string(r.Body)
	}
	open := page()
	for _, want := range []string{"non binding", "<dt>Price</dt><dd>$2,450.00</dd>", "<dt>Deposit asked</dt><dd>$250.00</dd>", "open"} {
		if !strings.Contains(open, want) {
			t.Errorf("open quote: the page lacks %q", want)
		}
	}
	if strings.Contains(open, "<dt>By</dt>") {
		t.Error("an open quote shows who accepted it")
	}
	apitest.Want(t, env.Do(t, "POST", "/v1/leads/"+id+"/accept", key, `{"accepter_email":"ada@example.com"}`), 200, "")
	for _, want := range []string{"<dt>By</dt><dd>ada@example.com</dd>", "accepted"} {
		if accepted := page(); !strings.Contains(accepted, want) {
			t.Errorf("accepted quote: the page lacks %q", want)
		}
	}
}
