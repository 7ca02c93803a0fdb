package webhook

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
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
	// Attempts counts the attempts made, over every round: the attempt
	// log numbers them 1, 2, ...
	Attempts int
	// RoundStart is how many attempts were made before the current round
	// of the schedule: a redelivery starts a new round (InRound).
	RoundStart int
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

// InRound is how many attempts the current round of the schedule has made
// (the schedule's position).
func (d Delivery) InRound() int { return d.Attempts - d.RoundStart }

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

// NewEndpoint returns a new endpoint of tenant t at url receiving types
// (nil: every type), with a fresh id and signing secret, the secret sealed
// with s; and the secret itself, to show its owner once: it is never
// stored or shown again. The caller validates url (webhookhttp.CheckURL) and
// stores the endpoint.
func NewEndpoint(t auth.Tenant, url string, types []Type, s *Sealer, now time.Time) (Endpoint, string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Endpoint{}, "", err
	}
	id := EndpointPrefix + hex.EncodeToString(b[:])
	secret, err := NewSecret()
	if err != nil {
		return Endpoint{}, "", err
	}
	sealed, err := Secrets{Current: secret}.Seal(s, id)
	if err != nil {
		return Endpoint{}, "", err
	}
	return Endpoint{ID: id, Tenant: t, URL: url, Types: types, CreatedAt: now, Sealed: sealed}, secret, nil
}

// EndpointPrefix starts every endpoint id.
const EndpointPrefix = "we_"
