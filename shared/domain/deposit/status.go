package deposit

import (
	"errors"
	"fmt"
)

// Status is a deposit's internal state, as stored.
type Status string

// The statuses, in the order Apply ranks them (see the package doc).
const (
	CheckoutOpen Status = "checkout_open"
	Pending      Status = "pending"
	Failed       Status = "failed"
	Paid         Status = "paid"
	Refunded     Status = "refunded"
	Disputed     Status = "disputed"
)

// Statuses lists every status, lowest rank first.
var Statuses = []Status{CheckoutOpen, Pending, Failed, Paid, Refunded, Disputed}

// PublicStatus is what the API reports (the spec's PublicDepositStatus).
type PublicStatus string

// The public statuses.
const (
	PublicNone     PublicStatus = "none"
	PublicPending  PublicStatus = "pending"
	PublicPaid     PublicStatus = "paid"
	PublicFailed   PublicStatus = "failed"
	PublicRefunded PublicStatus = "refunded"
	PublicDisputed PublicStatus = "disputed"
	PublicUnknown  PublicStatus = "unknown"
)

// PublicStatuses lists every public status, in the spec's order.
var PublicStatuses = []PublicStatus{PublicNone, PublicPending, PublicPaid, PublicFailed, PublicRefunded, PublicDisputed, PublicUnknown}

// ErrUnknownStatus and ErrUnknownEvent mark a status or event value this
// package does not know (a corrupt record, a typo in opctl).
var (
	ErrUnknownStatus = errors.New("unknown deposit status")
	ErrUnknownEvent  = errors.New("unknown deposit event")
)

// ParseStatus returns the status named s, or an error wrapping
// ErrUnknownStatus.
func ParseStatus(s string) (Status, error) {
	st := Status(s)
	if st.rank() < 0 {
		return "", fmt.Errorf("%w %q", ErrUnknownStatus, s)
	}
	return st, nil
}

// PublicStatus returns what getDeposit and getLead report for s: an open
// checkout is pending like an unsettled payment, and a status this package
// does not know is unknown.
func (s Status) PublicStatus() PublicStatus {
	switch s {
	case CheckoutOpen, Pending:
		return PublicPending
	case Paid:
		return PublicPaid
	case Failed:
		return PublicFailed
	case Refunded:
		return PublicRefunded
	case Disputed:
		return PublicDisputed
	}
	return PublicUnknown
}

// rank orders the statuses for Apply; -1 for an unknown one.
func (s Status) rank() int {
	switch s {
	case CheckoutOpen:
		return 0
	case Pending:
		return 1
	case Failed:
		return 2
	case Paid:
		return 3
	case Refunded:
		return 4
	case Disputed:
		return 5
	}
	return -1
}

// collected reports whether the money arrived at some point: paid, and
// refunded or disputed, which only happen to a charge that succeeded.
func (s Status) collected() bool { return s.rank() >= Paid.rank() }

// Event is the outcome of a Stripe webhook event (or of a reconciliation)
// that can change a deposit. shared/adapter/stripepay maps Stripe's event types to
// these; opctl deposit simulate names them.
type Event string

// The events and the Stripe event each stands for.
const (
	// EventPaid: checkout.session.completed with payment_status paid.
	EventPaid Event = "paid"
	// EventUnpaid: checkout.session.completed with the payment not yet
	// settled (an asynchronous payment method).
	EventUnpaid Event = "unpaid"
	// EventAsyncPaid: checkout.session.async_payment_succeeded.
	EventAsyncPaid Event = "async_paid"
	// EventAsyncFailed: checkout.session.async_payment_failed.
	EventAsyncFailed Event = "async_failed"
	// EventExpired: checkout.session.expired.
	EventExpired Event = "expired"
	// EventRefunded: charge.refunded.
	EventRefunded Event = "refunded"
	// EventDisputed: charge.dispute.created.
	EventDisputed Event = "disputed"
)

// Events lists every event.
var Events = []Event{EventPaid, EventUnpaid, EventAsyncPaid, EventAsyncFailed, EventExpired, EventRefunded, EventDisputed}

// ParseEvent returns the event named s, or an error wrapping
// ErrUnknownEvent.
func ParseEvent(s string) (Event, error) {
	e := Event(s)
	if _, ok := e.target(); !ok {
		return "", fmt.Errorf("%w %q", ErrUnknownEvent, s)
	}
	return e, nil
}

// target is the status e moves a deposit to when that is forward.
func (e Event) target() (Status, bool) {
	switch e {
	case EventPaid, EventAsyncPaid:
		return Paid, true
	case EventUnpaid:
		return Pending, true
	case EventAsyncFailed, EventExpired:
		return Failed, true
	case EventRefunded:
		return Refunded, true
	case EventDisputed:
		return Disputed, true
	}
	return "", false
}

// Transition is what applying one event to a deposit did.
type Transition struct {
	From, To Status
	Event    Event
}

// Apply returns the transition event e causes from status current: to the
// event's target when that ranks above current, else no change (To ==
// From). It fails, wrapping ErrUnknownStatus or ErrUnknownEvent, for a
// value this package does not know; it never panics.
func Apply(current Status, e Event) (Transition, error) {
	if current.rank() < 0 {
		return Transition{}, fmt.Errorf("apply %q: %w %q", e, ErrUnknownStatus, current)
	}
	target, ok := e.target()
	if !ok {
		return Transition{}, fmt.Errorf("apply to %s: %w %q", current, ErrUnknownEvent, e)
	}
	t := Transition{From: current, To: current, Event: e}
	if target.rank() > current.rank() {
		t.To = target
	}
	return t, nil
}

// Changed reports whether the deposit's status changes.
func (t Transition) Changed() bool { return t.To != t.From }

// Books reports whether the change collects the money: it reaches paid,
// refunded or disputed from a status where nothing was collected yet. The
// caller then moves the lead to booked and sets the deposit's PaidAt, in
// the same write.
func (t Transition) Books() bool { return !t.From.collected() && t.To.collected() }

// Partner webhook event types a transition emits (see Transition.Webhooks).
// shared/domain/webhook's catalogue lists them with the other event types.
const (
	WebhookDepositPaid     = "deposit.paid"
	WebhookDepositFailed   = "deposit.failed"
	WebhookDepositRefunded = "deposit.refunded"
	WebhookDepositDisputed = "deposit.disputed"
	WebhookLeadBooked      = "lead.booked"
)

// Webhooks returns the partner webhook event types the change emits, in
// order: deposit.paid and lead.booked when it books, then the event of the
// status reached when that is failed, refunded or disputed. No change
// emits nothing (nil).
func (t Transition) Webhooks() []string {
	if !t.Changed() {
		return nil
	}
	var out []string
	if t.Books() {
		out = append(out, WebhookDepositPaid, WebhookLeadBooked)
	}
	switch t.To {
	case Failed:
		out = append(out, WebhookDepositFailed)
	case Refunded:
		out = append(out, WebhookDepositRefunded)
	case Disputed:
		out = append(out, WebhookDepositDisputed)
	}
	return out
}
