package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Ref names one delivery's next attempt in a queue message (the webhook
// attempts queue: SQS in AWS, shared/local/queuelocal locally): the delivery by
// endpoint and event (id and time: the delivery's key), and Attempts, how
// many attempts it had made when the message was sent. A message whose
// delivery has moved on (more attempts, delivered, failed) is stale and
// is dropped, so a duplicate or late message never sends twice.
type Ref struct {
	EndpointID string    `json:"endpoint_id"`
	EventID    string    `json:"event_id"`
	EventAt    time.Time `json:"event_at"`
	Attempts   int       `json:"attempts"`
}

// RefOf is the reference to delivery d's next attempt.
func RefOf(d Delivery) Ref {
	return Ref{EndpointID: d.EndpointID, EventID: d.Event.ID, EventAt: d.Event.At, Attempts: d.Attempts}
}

// ID is the webhook-id of the delivery r names.
func (r Ref) ID() string { return MessageID(r.EventID, r.EndpointID) }

// Body is r as a queue message's body (JSON).
func (r Ref) Body() string {
	b, _ := json.Marshal(r) // strings, a time and an int always marshal
	return string(b)
}

// maxRefBody bounds a message body ParseRef reads: a real one is ~150
// bytes.
const maxRefBody = 1 << 10

// ParseRef reads a queue message's body: one JSON object with exactly
// Ref's fields (nothing after it), ids of safe characters, a time and a count from 0 to 100.
// Anything else is an error (the message is malformed: retrying cannot
// mend it).
func ParseRef(body string) (Ref, error) {
	if len(body) > maxRefBody {
		return Ref{}, fmt.Errorf("webhook ref: body of %d bytes; at most %d", len(body), maxRefBody)
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	var r Ref
	if err := dec.Decode(&r); err != nil {
		return Ref{}, fmt.Errorf("webhook ref: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Ref{}, errors.New("webhook ref: data after the object")
	}
	switch {
	case !refID(r.EndpointID, EndpointPrefix):
		return Ref{}, fmt.Errorf("webhook ref: endpoint_id %q", r.EndpointID)
	case !refID(r.EventID, "evt_"):
		return Ref{}, fmt.Errorf("webhook ref: event_id %q", r.EventID)
	case r.EventAt.IsZero():
		return Ref{}, errors.New("webhook ref: event_at missing")
	case r.Attempts < 0 || r.Attempts > maxRefAttempts:
		return Ref{}, fmt.Errorf("webhook ref: attempts %d", r.Attempts)
	}
	return r, nil
}

// maxRefAttempts is far above any delivery's attempts (the schedule's
// rounds, redeliveries).
const maxRefAttempts = 100

// refID reports whether id starts with prefix and is at most 128 of
// [A-Za-z0-9_.-]: the characters of endpoint and event ids (an event id
// holds its type, e.g. survey.completed).
func refID(id, prefix string) bool {
	if !strings.HasPrefix(id, prefix) || len(id) <= len(prefix) || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
