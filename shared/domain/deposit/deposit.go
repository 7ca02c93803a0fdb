package deposit

import (
	"fmt"
	"time"
)

// ReconcileInterval is the least time between two reconciliations of one
// deposit against Stripe (see NeedsReconcile).
const ReconcileInterval = time.Minute

// Deposit is one date-holding deposit: a Stripe Checkout Session on the
// partner's connected account for one lead's accepted quote.
type Deposit struct {
	ID               string
	PartnerID        string
	LeadID           string
	QuoteShareLinkID string
	// ConnectedAccount is the partner's Stripe account (acct_…) the
	// checkout charges directly.
	ConnectedAccount string

	Status      Status
	AmountCents int64
	// Currency is a lowercase ISO 4217 code (see NormalizeCurrency).
	Currency string

	// SessionID is the Checkout Session's id (cs_…); "" until Stripe
	// answered.
	SessionID string
	// CheckoutURL is the hosted checkout page; Apply clears it once the
	// deposit leaves checkout_open.
	CheckoutURL string
	// CheckoutExpiresAt is when Stripe expires the session.
	CheckoutExpiresAt time.Time
	// PaymentIntentID (pi_…) links charge.refunded and
	// charge.dispute.created to the deposit; "" until known.
	PaymentIntentID string

	CreatedAt time.Time
	// PaidAt is when the money was collected (zero until then).
	PaidAt time.Time
	// ReconciledAt is when a read last asked Stripe (zero if never).
	ReconciledAt time.Time
}

// Payable reports whether the customer can still pay at CheckoutURL at
// now: the deposit is checkout_open, has a URL and its session has not
// expired. getDeposit shows checkout_url only then.
func (d Deposit) Payable(now time.Time) bool {
	return d.Status == CheckoutOpen && d.CheckoutURL != "" && now.Before(d.CheckoutExpiresAt)
}

// Apply applies event e, received at, to d (see the package func Apply):
// on a change it sets the status, clears the checkout URL once the
// deposit is no longer checkout_open, and sets PaidAt to at when the
// transition books. On error d is unchanged.
func (d *Deposit) Apply(e Event, at time.Time) (Transition, error) {
	t, err := Apply(d.Status, e)
	if err != nil {
		return Transition{}, fmt.Errorf("deposit %s: %w", d.ID, err)
	}
	if !t.Changed() {
		return t, nil
	}
	d.Status = t.To
	if d.Status != CheckoutOpen {
		d.CheckoutURL = ""
	}
	if t.Books() {
		d.PaidAt = at
	}
	return t, nil
}

// NeedsReconcile reports whether a read of d at now should ask Stripe for
// its Checkout Session: d is checkout_open or pending (a webhook may have
// been lost), has a session, and neither its creation nor its last
// reconciliation lies within ReconcileInterval before now. A caller that
// asks records ReconciledAt = now (whatever Stripe answered) with a write
// conditional on the old ReconciledAt, so concurrent reads ask once.
func NeedsReconcile(d Deposit, now time.Time) bool {
	if d.Status != CheckoutOpen && d.Status != Pending || d.SessionID == "" {
		return false
	}
	last := d.CreatedAt
	if d.ReconciledAt.After(last) {
		last = d.ReconciledAt
	}
	return now.Sub(last) >= ReconcileInterval
}
