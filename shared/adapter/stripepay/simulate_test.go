package stripepay_test

import (
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

// TestSimulatedEventsParseBack checks that every simulated event, signed
// as Stripe signs, is verified and read by ParseWebhook as the deposit
// event it simulates, with the deposit's metadata (or, for a dispute,
// its PaymentIntent).
func TestSimulatedEventsParseBack(t *testing.T) {
	at := time.Unix(1780300600, 0)
	s := stripepay.Simulated{
		EventID: "evt_sim_1", Account: "acct_1Sim", DepositID: "d1", LeadID: "l1", PartnerID: "p1",
		SessionID: "cs_test_1", PaymentIntentID: "pi_1", AmountCents: 25000, Currency: "usd", At: at,
	}
	for _, e := range deposit.Events {
		t.Run(string(e), func(t *testing.T) {
			payload, err := stripepay.SimulatedEvent(s, e)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := stripepay.ParseWebhook(payload, stripepay.SignPayload(payload, "whsec_sim", at), "whsec_sim", at)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Outcome != e || ev.ID != s.EventID || ev.Account != s.Account {
				t.Errorf("parsed %+v; want outcome %s, id %s, account %s", ev, e, s.EventID, s.Account)
			}
			if e == deposit.EventDisputed {
				if ev.PaymentIntentID != "pi_1" || ev.DepositID != "" {
					t.Errorf("dispute: pi %q, deposit %q; want pi_1 and no metadata", ev.PaymentIntentID, ev.DepositID)
				}
			} else if ev.DepositID != "d1" || ev.PartnerID != "p1" {
				t.Errorf("metadata deposit %q partner %q; want d1, p1", ev.DepositID, ev.PartnerID)
			}
			if _, err := stripepay.ParseWebhook(payload, stripepay.SignPayload(payload, "whsec_other", at), "whsec_sim", at); err == nil {
				t.Error("a payload signed with another secret verified")
			}
		})
	}
	if _, err := stripepay.SimulatedEvent(s, "bogus"); err == nil {
		t.Error("an unknown event simulated")
	}
}
