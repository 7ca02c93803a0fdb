package deposits_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// quotePath is the path of createQuote's answer's quote page.
func quotePath(t *testing.T, q map[string]any) string {
	t.Helper()
	u, err := url.Parse(q["quote_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

// betaOff turns w's partner's deposits beta off and moves w's clock past
// the pipeline's settings cache, so every instance has seen it.
func (w *world) betaOff(t *testing.T) {
	t.Helper()
	if _, err := w.env.Store.SetBeta(context.Background(), w.partner, nil, []partner.Feature{partner.Deposits}); err != nil {
		t.Fatal(err)
	}
	w.env.Clock.Advance(pipeline.SettingsTTL + time.Second)
}

// depositWithQuote makes a lead with a signed binding quote and a deposit,
// and returns the quote too.
func (w *world) depositWithQuote(t *testing.T) (leadID string, q map[string]any, depositID string) {
	t.Helper()
	leadID = w.lead(t)
	q = w.quote(t, leadID, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`)
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", w.signBody(t)), 200, "")
	d := apitest.Want(t, w.do(t, "POST", "/v1/deposits", `{"lead_id":"`+leadID+`","quote_share_link_id":"`+q["quote_share_link_id"].(string)+`"}`), 200, "")
	return leadID, q, d["deposit_id"].(string)
}

// TestBetaOffStopsThePage: once the partner's deposits beta is off, the
// quote page neither accepts nor starts a checkout (nothing changes, no
// Stripe call) and says, in the customer's words, whom to contact; a
// deposit already made is still settled by Stripe's webhook, reconciled
// by getDeposit, and shown as booked on its page.
func TestBetaOffStopsThePage(t *testing.T) {
	w := newWorld(t)
	w.env.Clock.Set(time.Now())
	open := w.lead(t)
	openQ := w.quote(t, open, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000}`)
	signed := w.lead(t)
	signedQ := w.quote(t, signed, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000}`)
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+signed+"/accept", w.signBody(t)), 200, "")
	paidLead, paidQ, paid := w.depositWithQuote(t)
	lostLead, _, lost := w.depositWithQuote(t)
	checkouts := w.stripe.count("POST")

	w.betaOff(t)

	// Accepting on the page: refused in plain words, nothing written.
	r := w.env.DoRaw(t, "POST", quotePath(t, openQ)+"/accept", "", w.signBody(t))
	m := apitest.Want(t, r, 403, "beta_not_enabled")
	msg := m["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, "please contact Acme Movers") || strings.Contains(msg, "operator") {
		t.Errorf("page accept message %q; want the customer sent to the mover", msg)
	}
	l := w.leadDetail(t, open)
	if l["status"] != "quoted" || l["quote"].(map[string]any)["stage"] != "open" {
		t.Errorf("lead after a refused page accept = %v; want quoted, open", l)
	}
	// Starting the deposit on the page: refused, no checkout.
	apitest.Want(t, w.env.DoRaw(t, "POST", quotePath(t, signedQ)+"/deposit", "", "{}"), 403, "beta_not_enabled")
	if n := w.stripe.count("POST"); n != checkouts {
		t.Errorf("Stripe checkouts %d after a refused page deposit; want %d", n, checkouts)
	}
	if l := w.leadDetail(t, signed); l["status"] != "accepted" || l["deposit"].(map[string]any)["status"] != "none" {
		t.Errorf("lead after a refused page deposit = %v; want accepted, no deposit", l)
	}
	// The pages that would offer to sign or pay say why they don't.
	for _, q := range []map[string]any{openQ, signedQ} {
		r := w.env.DoRaw(t, "GET", quotePath(t, q), "", "")
		body := string(r.Body)
		if r.Status != 403 || !strings.Contains(body, "Online acceptance is unavailable") ||
			!strings.Contains(body, "please contact Acme Movers directly") {
			t.Errorf("page with the beta off: %d %s", r.Status, body)
		}
		for _, action := range []string{"<form", "Sign and accept", "Pay deposit", "<button"} {
			if strings.Contains(body, action) {
				t.Errorf("page with the beta off offers %q", action)
			}
		}
	}

	// Payments already made: Stripe's paid event still books the lead.
	rcv := apitest.Want(t, w.deliver(t, paid, deposit.EventPaid, "evt_paid_off", apitest.StripeWebhookSecret, time.Time{}, false), 200, "")
	if rcv["outcome"] != "applied" || rcv["status"] != "paid" {
		t.Errorf("receiver with the beta off = %v", rcv)
	}
	if l := w.leadDetail(t, paidLead); l["status"] != "booked" {
		t.Errorf("lead paid with the beta off = %v; want booked", l)
	}
	if g := w.deposit(t, paid); g["status"] != "paid" {
		t.Errorf("getDeposit of a paid deposit with the beta off = %v", g)
	}
	r = w.env.DoRaw(t, "GET", quotePath(t, paidQ), "", "")
	if r.Status != 200 || !strings.Contains(string(r.Body), "your move is booked") {
		t.Errorf("page of a deposit paid with the beta off: %d %s", r.Status, r.Body)
	}
	// A lost webhook: getDeposit still reconciles against Stripe.
	w.stripe.mu.Lock()
	w.stripe.readState = &[2]string{"complete", "paid"}
	w.stripe.mu.Unlock()
	w.env.Clock.Advance(2 * time.Minute)
	if g := w.deposit(t, lost); g["status"] != "paid" || g["paid_at"] == nil {
		t.Errorf("getDeposit reconciling with the beta off = %v; want paid", g)
	}
	if l := w.leadDetail(t, lostLead); l["status"] != "booked" {
		t.Errorf("lead reconciled with the beta off = %v; want booked", l)
	}
	// Ids it has no deposit under still answer the beta's 403.
	apitest.Want(t, w.do(t, "GET", "/v1/deposits/00000000-0000-4000-8000-000000000000", ""), 403, "beta_not_enabled")
}
