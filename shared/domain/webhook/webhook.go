// Package webhook holds the rules of outgoing webhooks, free of HTTP and
// AWS: the event catalogue (one table: add a type there), the payload in
// the Standard Webhooks shape, the endpoint and its secrets (both sign
// during a rotation; shared/adapter/webhookhttp signs, with the Standard
// Webhooks library, which imports net/http), and the retry schedule with
// its jitter.
//
// Delivery is at least once: an event can reach an endpoint more than
// once (a retry after a lost answer, a crash between sending and
// recording), always with the same webhook-id, by which partners dedupe.
package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

// Type names an event type, as sent in the payload's "type".
type Type string

// The event types. Add one here and to Catalogue together (a test checks).
const (
	SurveyCompleted Type = "survey.completed"
	SurveyFailed    Type = "survey.failed"
	EstimateReady   Type = "estimate.ready"
	DepositPaid     Type = deposit.WebhookDepositPaid
	DepositFailed   Type = deposit.WebhookDepositFailed
	DepositRefunded Type = deposit.WebhookDepositRefunded
	DepositDisputed Type = deposit.WebhookDepositDisputed
	LeadBooked      Type = deposit.WebhookLeadBooked
	Test            Type = "webhook.test"
)

// Kind documents one event type for partners (README, OpenAPI).
type Kind struct {
	Type Type
	// When says when the event is sent.
	When string
}

// Catalogue is every event type, in the order docs present them.
var Catalogue = []Kind{
	{SurveyCompleted, "The survey reached inventory_ready: its inventory is built from the customer's clips and checklist."},
	{SurveyFailed, "The survey reached failed: no clip was playable (the reason is kept for the operator)."},
	{EstimateReady, "The recommended estimate was computed (right after survey.completed, when the lead's addresses and home size allow an estimate)."},
	{DepositPaid, "A deposit was paid (beta): Stripe settled the customer's payment to the partner's connected account. lead.booked follows, unless the lead was lost or completed before the customer paid (lead_status says which)."},
	{LeadBooked, "The lead was booked (beta): its deposit was paid. Acceptance alone never books."},
	{DepositFailed, "A deposit failed (beta): its checkout expired unpaid, or an asynchronous payment failed. A new deposit can be created."},
	{DepositRefunded, "A paid deposit was refunded, fully or partly (beta)."},
	{DepositDisputed, "The customer disputed a deposit's charge (beta)."},
	{Test, "Sent by the operator (opctl webhook test) to check an endpoint; carries no lead."},
}

// Known reports whether t is in the catalogue.
func Known(t Type) bool {
	for _, k := range Catalogue {
		if k.Type == t {
			return true
		}
	}
	return false
}

// ParseTypes reads a comma-separated list of event types ("" is every
// type: nil). Unknown types fail, naming the known ones.
func ParseTypes(s string) ([]Type, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []Type
	for part := range strings.SplitSeq(s, ",") {
		t := Type(strings.TrimSpace(part))
		if !Known(t) {
			names := make([]string, len(Catalogue))
			for i, k := range Catalogue {
				names[i] = string(k.Type)
			}
			return nil, fmt.Errorf("unknown event type %q (known: %s)", t, strings.Join(names, ", "))
		}
		out = append(out, t)
	}
	return out, nil
}

// Event is one event owed to the partner's endpoints of its mode.
type Event struct {
	// ID is the event's id; the webhook-id of its delivery to an endpoint
	// is derived from it (MessageID), the same on every retry.
	ID   string
	Type Type
	// Mode is "test" or "live": events go only to endpoints of their mode.
	Mode string
	// At is when the event happened (the payload's timestamp).
	At time.Time
	// Data is the payload's data, already JSON.
	Data json.RawMessage
	// LeadID is the lead the event is about ("" for none: webhook.test),
	// by which listEvents filters.
	LeadID string
	// Endpoint, when set, is the one endpoint the event goes to (a
	// webhook.test an operator sends to check it); "" is every endpoint
	// of the partner and mode that receives the type.
	Endpoint string
}

// Payload is the body of a delivery, in the Standard Webhooks shape.
func (e Event) Payload() ([]byte, error) {
	return json.Marshal(struct {
		Type      Type            `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{e.Type, e.At.UTC().Format(time.RFC3339Nano), e.Data})
}

// MessageID is the webhook-id of event eventID's delivery to endpoint
// endpointID: "msg_" + both, stable across retries and redeliveries.
func MessageID(eventID, endpointID string) string { return "msg_" + eventID + "_" + endpointID }

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// secretBytes is the size of a new signing secret's key (the Standard
// Webhooks specification asks for 24 to 64 bytes).
const secretBytes = 32

// NewSecret returns a fresh signing secret: "whsec_" and the base64 of 32
// bytes from crypto/rand.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate signing secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// RotationOverlap is how long the previous secret keeps signing after a
// rotation, beside the new one.
const RotationOverlap = 24 * time.Hour

// Secrets are an endpoint's signing secrets.
type Secrets struct {
	Current string
	// Previous signs too until PreviousUntil (a rotation's overlap).
	Previous      string
	PreviousUntil time.Time
}

// Rotate returns s with next as the current secret and the current one
// signing beside it for RotationOverlap from now.
func (s Secrets) Rotate(next string, now time.Time) Secrets {
	return Secrets{Current: next, Previous: s.Current, PreviousUntil: now.Add(RotationOverlap)}
}

// Signing returns the secrets that sign at now: the current one, and the
// previous one during a rotation's overlap.
func (s Secrets) Signing(now time.Time) []string {
	out := []string{s.Current}
	if s.Previous != "" && now.Before(s.PreviousUntil) {
		out = append(out, s.Previous)
	}
	return out
}

// The Standard Webhooks headers of every delivery (shared/adapter/webhookhttp
// writes them).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// TestData is the data of a webhook.test event.
type TestData struct {
	EndpointID string `json:"endpoint_id"`
	Mode       string `json:"mode"`
	Message    string `json:"message"`
}

// TestEvent is the webhook.test an operator sends to endpoint ep (opctl
// webhook test) at now, with id (a fresh one each time: NewTestEventID):
// it goes to ep alone and carries no lead.
func TestEvent(id string, ep Endpoint, now time.Time) Event {
	data, _ := json.Marshal(TestData{ // three strings: never fails
		EndpointID: ep.ID, Mode: string(ep.Tenant.Mode),
		Message: "A test event sent by MoveLeads to check this endpoint. It carries no lead.",
	})
	return Event{ID: id, Type: Test, Mode: string(ep.Tenant.Mode), At: now, Data: data, Endpoint: ep.ID}
}

// NewTestEventID returns "evt_test_" and 16 random lowercase hex digits:
// a fresh event (and so a fresh webhook-id) for each webhook test.
func NewTestEventID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "evt_test_" + hex.EncodeToString(b[:])
}
