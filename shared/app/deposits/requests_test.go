package deposits_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/dynamometer"
)

// TestRoundTripsPerEndpoint measures the DynamoDB round trips and Stripe
// calls each beta endpoint makes on a warm instance (the partner's
// settings cached) and holds them to the budget: the figures the closing
// note and docs/DEPOSITS.md quote (go test ./shared/app/deposits -run
// RoundTrips -v prints them).
func TestRoundTripsPerEndpoint(t *testing.T) {
	ct := &dynamometer.Meter{}
	w := newWorldWith(t, apitest.Options{DynamoDB: ct.Install})
	leadID := w.lead(t)
	w.do(t, "GET", "/v1/leads/"+leadID, "") // warm the settings cache
	var q map[string]any
	var depositID string
	cases := []struct {
		name   string
		do     func()
		want   string
		stripe int
	}{
		{"createQuote", func() {
			q = w.quote(t, leadID, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000}`)
		}, "UpdateItem GetItem TransactWriteItems", 0},
		{"acceptQuote (signed)", func() {
			apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", w.signBody(t)), 200, "")
		}, "UpdateItem GetItem GetItem TransactWriteItems", 0},
		{"acceptQuote replay (same terms)", func() {
			apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", w.signBody(t)), 200, "")
		}, "UpdateItem GetItem GetItem", 0},
		{"createDeposit", func() {
			d := apitest.Want(t, w.do(t, "POST", "/v1/deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"])), 200, "")
			depositID = d["deposit_id"].(string)
		}, "UpdateItem GetItem GetItem TransactWriteItems", 1},
		{"createDeposit again (open deposit returned)", func() {
			apitest.Want(t, w.do(t, "POST", "/v1/deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"])), 200, "")
		}, "UpdateItem GetItem GetItem GetItem", 0},
		{"getDeposit", func() { w.deposit(t, depositID) }, "UpdateItem GetItem", 0},
		// Two minutes on, the partner's cached settings (beta gate) are
		// read again too; Stripe's session is still open (stripe-mock),
		// so nothing is applied: the mark is the one write.
		{"getDeposit, reconciling (a minute on)", func() {
			w.env.Clock.Set(time.Now().Add(2 * time.Minute))
			w.deposit(t, depositID)
		}, "UpdateItem GetItem GetItem UpdateItem", 1},
		{"Stripe webhook: paid", func() {
			apitest.Want(t, w.deliver(t, depositID, deposit.EventPaid, "evt_rt_1", apitest.StripeWebhookSecret, time.Time{}, false), 200, "")
		}, "GetItem TransactWriteItems", 0},
		{"Stripe webhook: duplicate", func() {
			apitest.Want(t, w.deliver(t, depositID, deposit.EventPaid, "evt_rt_1", apitest.StripeWebhookSecret, time.Time{}, false), 200, "")
		}, "GetItem TransactWriteItems", 0},
	}
	for _, c := range cases {
		ct.Take()
		before := len(w.stripe.recorded())
		c.do()
		s := ct.Take()
		stripe := len(w.stripe.recorded()) - before
		// deliver reads the deposit itself (GetItem) to build the event:
		// that read is the test's, not the receiver's.
		trips := s.Trips
		if strings.HasPrefix(c.name, "Stripe webhook") && len(trips) > 0 {
			trips = trips[1:]
		}
		t.Logf("%-46s %d DynamoDB round trips (%s), %.1f RCU, %.1f WCU; %d Stripe call(s)",
			c.name, len(trips), strings.Join(trips, " "), s.Read, s.Write, stripe)
		if got := strings.Join(trips, " "); got != c.want || stripe != c.stripe {
			t.Errorf("%s: %q and %d Stripe calls; want %q and %d", c.name, got, stripe, c.want, c.stripe)
		}
	}
}
