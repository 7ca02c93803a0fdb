package stripepay

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	stripe "github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

// WebhookTolerance is how far a Stripe-Signature timestamp may lie from
// now (either way): Stripe's default, five minutes. Older events are
// refused as replays; Stripe signs each retry afresh, so a retry is never
// stale.
const WebhookTolerance = webhook.DefaultTolerance

// Errors of ParseWebhook, for errors.Is.
var (
	// ErrSignature: the Stripe-Signature header is missing or malformed,
	// no signature in it matches the body under the secret (a wrong
	// secret, a tampered body), or its timestamp is outside
	// WebhookTolerance. The receiver answers 400 and changes nothing.
	ErrSignature = deposit.ErrSignature
	// ErrUnreadable: the signature is good but the event cannot be read: it
	// was rendered for another API version than APIVersion (the endpoint's
	// api_version must equal stripe-go's, or objects may be misread), or
	// its JSON does not parse. The receiver answers 500, so Stripe keeps
	// retrying (for up to three days) while someone aligns the versions,
	// and the alarm on 5xx fires.
	ErrUnreadable = errors.New("stripe webhook: unreadable event")
)

// WebhookEventTypes are the Stripe event types ParseWebhook maps to deposit
// events: the Connect endpoint's enabled_events. Any other type parses as
// ignored.
var WebhookEventTypes = []string{
	string(stripe.EventTypeCheckoutSessionCompleted),
	string(stripe.EventTypeCheckoutSessionAsyncPaymentSucceeded),
	string(stripe.EventTypeCheckoutSessionAsyncPaymentFailed),
	string(stripe.EventTypeCheckoutSessionExpired),
	string(stripe.EventTypeChargeRefunded),
	string(stripe.EventTypeChargeDisputeCreated),
}

// Event is a verified Stripe event, reduced to what the deposit receiver
// needs (shared/domain/deposit's type, so the receiver's port names it
// without importing this adapter).
type Event = deposit.StripeEvent

// ParseWebhook verifies a Stripe webhook and reads it: payload is the raw
// request body, sigHeader the Stripe-Signature header, secret the
// endpoint's signing secret (whsec_…), now the receiver's clock. It fails
// with ErrSignature when the signature does not verify or its timestamp
// lies more than WebhookTolerance from now, with ErrUnreadable when the
// signed event is of another API version or does not parse, and with a
// plain error when secret is empty. An event of a type outside
// WebhookEventTypes parses, with Ignored true.
func ParseWebhook(payload []byte, sigHeader, secret string, now time.Time) (Event, error) {
	if secret == "" {
		return Event{}, errors.New("stripe webhook: no signing secret configured")
	}
	// The timestamp is checked here against now rather than by stripe-go
	// against the wall clock, and the API version below, so each failure
	// gets its own error.
	se, err := webhook.ConstructEventWithOptions(payload, sigHeader, secret, webhook.ConstructEventOptions{
		IgnoreTolerance:          true,
		IgnoreAPIVersionMismatch: true,
	})
	switch {
	case errors.Is(err, webhook.ErrNotSigned), errors.Is(err, webhook.ErrInvalidHeader), errors.Is(err, webhook.ErrNoValidSignature):
		return Event{}, fmt.Errorf("%w: %w", ErrSignature, err)
	case err != nil:
		return Event{}, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	signed, ok := signedAt(sigHeader)
	if skew := now.Sub(signed).Abs(); !ok || skew > WebhookTolerance {
		return Event{}, fmt.Errorf("%w: signed at %s, %v from now (tolerance %v)", ErrSignature, signed.UTC().Format(time.RFC3339), now.Sub(signed), WebhookTolerance)
	}
	if se.APIVersion != APIVersion {
		return Event{}, fmt.Errorf("%w: event %s has API version %q, want %q", ErrUnreadable, se.ID, se.APIVersion, APIVersion)
	}
	e := Event{
		ID:       se.ID,
		Type:     string(se.Type),
		Account:  se.Account,
		Created:  time.Unix(se.Created, 0).UTC(),
		Livemode: se.Livemode,
	}
	if se.Data == nil {
		if slices.Contains(WebhookEventTypes, e.Type) {
			return Event{}, fmt.Errorf("%w: event %s (%s) has no data", ErrUnreadable, e.ID, e.Type)
		}
		return e, nil
	}
	if err := read(&e, se.Type, se.Data.Raw); err != nil {
		return Event{}, fmt.Errorf("%w: event %s (%s): %w", ErrUnreadable, e.ID, e.Type, err)
	}
	return e, nil
}

// read fills e's object fields and Outcome from the event's data.object,
// decoded into stripe-go's resource type for the event's type.
func read(e *Event, t stripe.EventType, raw json.RawMessage) error {
	if !slices.Contains(WebhookEventTypes, string(t)) {
		return nil
	}
	var meta map[string]string
	switch t {
	case stripe.EventTypeChargeRefunded:
		var ch stripe.Charge
		if err := json.Unmarshal(raw, &ch); err != nil {
			return err
		}
		e.ChargeID, e.AmountRefunded, e.FullyRefunded = ch.ID, ch.AmountRefunded, ch.Refunded
		e.PaymentIntentID, meta = idOf(ch.PaymentIntent), ch.Metadata
		e.Outcome = deposit.EventRefunded
	case stripe.EventTypeChargeDisputeCreated:
		var d stripe.Dispute
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
		e.DisputeID, e.PaymentIntentID, meta = d.ID, idOf(d.PaymentIntent), d.Metadata
		if d.Charge != nil {
			e.ChargeID = d.Charge.ID
		}
		e.Outcome = deposit.EventDisputed
	default: // checkout.session.*
		var cs stripe.CheckoutSession
		if err := json.Unmarshal(raw, &cs); err != nil {
			return err
		}
		e.SessionID, e.PaymentStatus = cs.ID, string(cs.PaymentStatus)
		e.PaymentIntentID, meta = idOf(cs.PaymentIntent), cs.Metadata
		e.Outcome = sessionOutcome(t, cs.PaymentStatus)
	}
	e.DepositID, e.LeadID, e.PartnerID = meta[MetaDepositID], meta[MetaLeadID], meta[MetaPartnerID]
	return nil
}

// idOf returns pi's id, "" when the object has none.
func idOf(pi *stripe.PaymentIntent) string {
	if pi == nil {
		return ""
	}
	return pi.ID
}

// sessionOutcome maps a checkout.session.* event to its deposit event. A
// completed session whose payment_status is not paid (unpaid, or
// no_payment_required, which a deposit of at least 100 cents never has)
// stays pending.
func sessionOutcome(t stripe.EventType, ps stripe.CheckoutSessionPaymentStatus) deposit.Event {
	switch t {
	case stripe.EventTypeCheckoutSessionCompleted:
		if ps == stripe.CheckoutSessionPaymentStatusPaid {
			return deposit.EventPaid
		}
		return deposit.EventUnpaid
	case stripe.EventTypeCheckoutSessionAsyncPaymentSucceeded:
		return deposit.EventAsyncPaid
	case stripe.EventTypeCheckoutSessionAsyncPaymentFailed:
		return deposit.EventAsyncFailed
	}
	return deposit.EventExpired
}

// signedAt returns the t= timestamp of a Stripe-Signature header that
// stripe-go has already verified. Like stripe-go it takes the last t=:
// the one the signature was checked against, so a header that adds a
// fresh t= before an old one cannot pass an old event off as new.
func signedAt(header string) (at time.Time, ok bool) {
	for part := range strings.SplitSeq(header, ",") {
		if v, found := strings.CutPrefix(part, "t="); found {
			sec, err := strconv.ParseInt(v, 10, 64)
			at, ok = time.Unix(sec, 0), err == nil
		}
	}
	return at, ok
}

// signatureHexLen is the length of a v1 signature: hex of HMAC-SHA256.
const signatureHexLen = 64

// Webhooks is the deposit receiver's port to Stripe's webhooks
// (deposits.Webhooks): CheckSignatureShape and ParseWebhook.
type Webhooks struct{}

// CheckSignatureShape is the package's CheckSignatureShape.
func (Webhooks) CheckSignatureShape(header string, now time.Time) error {
	return CheckSignatureShape(header, now)
}

// Parse is ParseWebhook.
func (Webhooks) Parse(payload []byte, sigHeader, secret string, now time.Time) (Event, error) {
	return ParseWebhook(payload, sigHeader, secret, now)
}

// CheckSignatureShape checks what can be checked of a Stripe-Signature
// header without the signing secret: it is pairs k=v split by commas, as
// stripe-go parses them, with a t= timestamp within WebhookTolerance of now
// and at least one v1= of 64 hex characters. A header it refuses
// (ErrSignature) is one ParseWebhook refuses under any secret, so the
// receiver refuses it before it pays to load the secret.
func CheckSignatureShape(header string, now time.Time) error {
	if header == "" {
		return fmt.Errorf("%w: no Stripe-Signature header", ErrSignature)
	}
	var signature bool
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.Contains(v, "=") {
			return fmt.Errorf("%w: the header is not k=v pairs", ErrSignature)
		}
		if k == "t" {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return fmt.Errorf("%w: t= is not a number", ErrSignature)
			}
		}
		if k == "v1" && len(v) == signatureHexLen {
			if _, err := hex.DecodeString(v); err == nil {
				signature = true
			}
		}
	}
	if !signature {
		return fmt.Errorf("%w: no v1 signature of %d hex characters", ErrSignature, signatureHexLen)
	}
	signed, ok := signedAt(header)
	if skew := now.Sub(signed).Abs(); !ok || skew > WebhookTolerance {
		return fmt.Errorf("%w: signed at %s, %v from now (tolerance %v)", ErrSignature, signed.UTC().Format(time.RFC3339), now.Sub(signed), WebhookTolerance)
	}
	return nil
}
