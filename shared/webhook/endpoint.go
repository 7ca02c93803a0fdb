package webhook

import (
	"slices"
	"time"

	"github.com/moveleads/partnerapi/shared/auth"
)

// Endpoint is a partner's webhook endpoint in one mode: test-mode events
// go only to test-mode endpoints, live-mode events only to live-mode ones.
type Endpoint struct {
	ID     string
	Tenant auth.Tenant
	URL    string
	// Types are the event types it receives; nil: every type.
	Types     []Type
	CreatedAt time.Time
	// Disabled, with the reason and time, stops deliveries to it (an
	// operator's choice, or DisableAfter of failures).
	Disabled       bool
	DisabledReason string
	DisabledAt     time.Time
	// FailingSince is when the first of its current run of failed
	// attempts happened (zero: its last attempt succeeded).
	FailingSince time.Time
	// Sealed holds its signing secrets sealed (Sealer): never the plain
	// secrets.
	Sealed SealedSecrets
}

// SealedSecrets are an endpoint's Secrets, each sealed for the endpoint.
type SealedSecrets struct {
	Current       string
	Previous      string
	PreviousUntil time.Time
}

// Receives reports whether e gets events of type t: enabled, subscribed
// (or subscribed to all), and, for webhook.test, always when enabled.
func (e Endpoint) Receives(t Type) bool {
	if e.Disabled {
		return false
	}
	return t == Test || e.Types == nil || slices.Contains(e.Types, t)
}

// Open returns e's secrets, opened with s.
func (e Endpoint) Open(s *Sealer) (Secrets, error) {
	cur, err := s.Open(e.Sealed.Current, e.ID)
	if err != nil {
		return Secrets{}, err
	}
	out := Secrets{Current: cur}
	if e.Sealed.Previous != "" {
		prev, err := s.Open(e.Sealed.Previous, e.ID)
		if err != nil {
			return Secrets{}, err
		}
		out.Previous, out.PreviousUntil = prev, e.Sealed.PreviousUntil
	}
	return out, nil
}

// Seal returns secrets sealed for endpoint id.
func (s Secrets) Seal(sl *Sealer, id string) (SealedSecrets, error) {
	cur, err := sl.Seal(s.Current, id)
	if err != nil {
		return SealedSecrets{}, err
	}
	out := SealedSecrets{Current: cur}
	if s.Previous != "" {
		if out.Previous, err = sl.Seal(s.Previous, id); err != nil {
			return SealedSecrets{}, err
		}
		out.PreviousUntil = s.PreviousUntil
	}
	return out, nil
}

// Delivery is one event owed to one endpoint, and where it is.
type Delivery struct {
	EndpointID string
	Event      Event
	// Status is pending (attempts remain), delivered or failed (the
	// schedule ran out, or the endpoint was disabled).
	Status DeliveryStatus
	// Attempts counts the attempts made.
	Attempts int
	// NextAt is when the next attempt is due (pending only).
	NextAt time.Time
}

// DeliveryStatus is where a delivery is.
type DeliveryStatus string

// The delivery statuses.
const (
	Pending   DeliveryStatus = "pending"
	Delivered DeliveryStatus = "delivered"
	Failed    DeliveryStatus = "failed"
)

// ID is the delivery's id: its webhook-id.
func (d Delivery) ID() string { return MessageID(d.Event.ID, d.EndpointID) }

// Attempt is one attempt's record, for the delivery log.
type Attempt struct {
	N       int
	At      time.Time
	Status  int // the answer's status; 0: no answer (Error says why)
	Latency time.Duration
	// Body is the first KiB of the answer.
	Body  string
	Error string
}

// OK reports whether the attempt succeeded (a 2xx answer).
func (a Attempt) OK() bool { return a.Status >= 200 && a.Status < 300 }

// MaxLoggedBody bounds the answer kept per attempt.
const MaxLoggedBody = 1 << 10
