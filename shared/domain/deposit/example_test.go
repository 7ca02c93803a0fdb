package deposit_test

import (
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

// A webhook receiver applies each Stripe event's outcome; what the
// transition owes is written with the status in one transaction.
func ExampleDeposit_Apply() {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	d := deposit.Deposit{ID: "dep_1", Status: deposit.CheckoutOpen, CheckoutURL: "https://checkout.example/c"}
	for _, e := range []deposit.Event{deposit.EventPaid, deposit.EventExpired, deposit.EventRefunded} {
		t, err := d.Apply(e, now)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s -> %s (public %s), books %v, webhooks %v\n",
			e, t.From, t.To, d.Status.PublicStatus(), t.Books(), t.Webhooks())
	}
	// Output:
	// paid: checkout_open -> paid (public paid), books true, webhooks [deposit.paid lead.booked]
	// expired: paid -> paid (public paid), books false, webhooks []
	// refunded: paid -> refunded (public refunded), books false, webhooks [deposit.refunded]
}
