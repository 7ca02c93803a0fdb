package deposit

import (
	"errors"
	"time"
)

// The payment port's types: the deposits feature declares the interface it
// calls (shared/app/deposits), shared/adapter/stripepay satisfies it with
// these, and neither imports the other.

// Errors of the payment port, for errors.Is; the adapter wraps its SDK's
// error in them.
var (
	// ErrProviderNotFound: Stripe has no such object on that account (404).
	ErrProviderNotFound = errors.New("stripe: no such object")
	// ErrProviderRefused: Stripe refused the request as invalid or not
	// permitted; sending it again will not help.
	ErrProviderRefused = errors.New("stripe refused the request")
	// ErrSignature: a webhook's signature header is missing, malformed,
	// stale or does not match the body under the endpoint's secret.
	ErrSignature = errors.New("stripe webhook: invalid signature")
)

// Refusal is implemented by a refused request's error (errors.As): the
// provider's own code and message, which the partner can act on.
type Refusal interface {
	error
	RefusalCode() string
	RefusalMessage() string
}

// CheckoutRequest is one deposit's Checkout Session.
type CheckoutRequest struct {
	// ConnectedAccount is the partner's Stripe account (acct_…): the
	// session is a direct charge on it, made through the Stripe-Account
	// header, with no application fee (the partner is the merchant of
	// record; the platform fee is 0%).
	ConnectedAccount string
	// DepositID, LeadID and PartnerID go into the metadata of the session
	// and its PaymentIntent; DepositID is also client_reference_id.
	DepositID, LeadID, PartnerID string
	// AmountCents and Currency price the one line item (see
	// Amount and NormalizeCurrency).
	AmountCents int64
	Currency    string
	// ProductName is the line item's name on the checkout page and the
	// receipt ("Moving deposit"); Description, optional, is shown under it.
	ProductName string
	Description string
	// ExpiresAt is when Stripe expires the session (see
	// CheckoutExpiresAt).
	ExpiresAt time.Time
	// SuccessURL (required) and CancelURL (optional) are where the
	// checkout page sends the customer.
	SuccessURL, CancelURL string
	// IdempotencyKey is Stripe's Idempotency-Key for the create: a retry
	// with the same key returns the first session, provided every other
	// field is the same (ExpiresAt included); with a different field
	// Stripe refuses it (ErrProviderRefused).
	IdempotencyKey string
}

// Checkout is a deposit's Checkout Session as Stripe reports it.
type Checkout struct {
	ID string
	// URL is the hosted checkout page ("" once the session is complete or
	// expired).
	URL       string
	ExpiresAt time.Time
	// Status is open, complete or expired.
	Status string
	// PaymentStatus is paid, unpaid or no_payment_required.
	PaymentStatus string
	// PaymentIntentID is the session's PaymentIntent (pi_…), "" until it
	// has one; PaymentIntentStatus is that PaymentIntent's status, filled
	// by GetCheckout only.
	PaymentIntentID     string
	PaymentIntentStatus string
	// DepositID is the session's deposit_id metadata.
	DepositID string
	// Settles is the event the session's state amounts to for
	// reconciliation (NeedsReconcile); "" while it amounts to nothing
	// (open). The adapter, which knows Stripe's states, sets it.
	Settles Event
}

// StripeEvent is a verified Stripe webhook event, reduced to what the deposit receiver
// needs.
type StripeEvent struct {
	// ID (evt_…) is what the receiver dedupes by.
	ID string
	// Type is Stripe's event type, such as checkout.session.completed.
	Type string
	// Account is the connected account (acct_…) the event happened on;
	// "" for an event of the platform's own account.
	Account string
	// Created is when Stripe created the event.
	Created  time.Time
	Livemode bool
	// Outcome is the deposit event this amounts to; "" when the receiver
	// ignores the event (see Ignored).
	Outcome Event

	// SessionID, PaymentStatus: the Checkout Session of checkout.session.*
	// events.
	SessionID     string
	PaymentStatus string
	// PaymentIntentID is the PaymentIntent of the session, charge or
	// dispute ("" when the object has none): how the receiver finds the
	// deposit of a dispute, whose metadata is empty.
	PaymentIntentID string
	// DepositID, LeadID and PartnerID are the object's metadata
	// (CreateCheckout sets them on the session and its PaymentIntent,
	// whose charges inherit them); "" when absent.
	DepositID, LeadID, PartnerID string
	// ChargeID (ch_…) is the charge of charge.refunded and
	// charge.dispute.created; DisputeID (dp_…) the dispute of the latter.
	ChargeID, DisputeID string
	// AmountRefunded is charge.refunded's total refunded so far, in the
	// currency's minor unit; FullyRefunded whether that is everything.
	AmountRefunded int64
	FullyRefunded  bool
}

// Ignored reports whether the event changes no deposit: a type outside
// the adapter's WebhookEventTypes. The receiver acknowledges it.
func (e StripeEvent) Ignored() bool { return e.Outcome == "" }
