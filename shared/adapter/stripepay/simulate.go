package stripepay

import (
	"encoding/json"
	"fmt"
	"time"

	stripe "github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

// Simulated describes the deposit a simulated Stripe event is about:
// what `stripe trigger` would send for it on the partner's connected
// account (opctl deposit simulate, and the tests of the receiver).
type Simulated struct {
	// EventID is the event's id (evt_…): a fresh one per simulation, the
	// same one to simulate a redelivery.
	EventID string
	Account string // acct_…
	Live    bool
	// DepositID, LeadID, PartnerID are the metadata CreateCheckout puts on
	// the session and its PaymentIntent.
	DepositID, LeadID, PartnerID string
	SessionID                    string // cs_…
	// PaymentIntentID is the PaymentIntent (pi_…); a dispute names its
	// deposit by it alone.
	PaymentIntentID string
	AmountCents     int64
	Currency        string
	At              time.Time
}

// SimulatedEvent returns the JSON of the Stripe event (API version
// APIVersion) that amounts to e for s's deposit, in the shape Stripe
// sends to a Connect endpoint: a checkout.session.* event with the
// session for the checkout outcomes, charge.refunded with the charge
// (metadata inherited from the PaymentIntent), charge.dispute.created
// with the dispute (no metadata: the PaymentIntent names the deposit).
func SimulatedEvent(s Simulated, e deposit.Event) ([]byte, error) {
	meta := map[string]string{MetaDepositID: s.DepositID, MetaLeadID: s.LeadID, MetaPartnerID: s.PartnerID}
	session := func(status, paymentStatus string) map[string]any {
		return map[string]any{
			"id": s.SessionID, "object": "checkout.session", "mode": "payment",
			"status": status, "payment_status": paymentStatus, "payment_intent": nullable(s.PaymentIntentID),
			"amount_total": s.AmountCents, "currency": s.Currency, "client_reference_id": s.DepositID,
			"metadata": meta, "livemode": s.Live, "url": nil,
		}
	}
	var typ stripe.EventType
	var obj map[string]any
	switch e {
	case deposit.EventPaid:
		typ, obj = stripe.EventTypeCheckoutSessionCompleted, session("complete", "paid")
	case deposit.EventUnpaid:
		typ, obj = stripe.EventTypeCheckoutSessionCompleted, session("complete", "unpaid")
	case deposit.EventAsyncPaid:
		typ, obj = stripe.EventTypeCheckoutSessionAsyncPaymentSucceeded, session("complete", "paid")
	case deposit.EventAsyncFailed:
		typ, obj = stripe.EventTypeCheckoutSessionAsyncPaymentFailed, session("complete", "unpaid")
	case deposit.EventExpired:
		typ, obj = stripe.EventTypeCheckoutSessionExpired, session("expired", "unpaid")
		obj["payment_intent"] = nil
	case deposit.EventRefunded:
		typ = stripe.EventTypeChargeRefunded
		obj = map[string]any{
			"id": "ch_sim_" + s.DepositID, "object": "charge", "amount": s.AmountCents, "amount_refunded": s.AmountCents,
			"refunded": true, "currency": s.Currency, "payment_intent": nullable(s.PaymentIntentID),
			"metadata": meta, "livemode": s.Live, "status": "succeeded",
		}
	case deposit.EventDisputed:
		typ = stripe.EventTypeChargeDisputeCreated
		obj = map[string]any{
			"id": "dp_sim_" + s.DepositID, "object": "dispute", "amount": s.AmountCents, "charge": "ch_sim_" + s.DepositID,
			"currency": s.Currency, "payment_intent": nullable(s.PaymentIntentID), "metadata": map[string]string{},
			"livemode": s.Live, "reason": "general", "status": "needs_response",
		}
	default:
		return nil, fmt.Errorf("stripepay: simulate %q: %w", e, deposit.ErrUnknownEvent)
	}
	return json.Marshal(map[string]any{
		"id": s.EventID, "object": "event", "account": s.Account, "api_version": APIVersion,
		"created": s.At.Unix(), "livemode": s.Live, "pending_webhooks": 1, "type": string(typ),
		"request": map[string]any{"id": nil, "idempotency_key": nil},
		"data":    map[string]any{"object": obj},
	})
}

// SignPayload returns the Stripe-Signature header Stripe would send with
// payload under the endpoint's signing secret, signed at at (stripe-go's
// own test signer). For opctl deposit simulate and tests only: the
// service never signs Stripe events.
func SignPayload(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
