package dynamo

import (
	"context"
	"encoding/json"
	"time"

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/lead"
	"github.com/moveleads/partnerapi/shared/webhook"
)

// Webhook events owed (the outbox). A state change that owes events writes
// them in its own transaction (AdvanceSurvey); the table's stream carries
// each new event item to the dispatcher, which fans it out to the tenant's
// endpoints. The item only has to outlive that hand-off: DynamoDB's TTL
// deletes it eventRetention after the event (the dispatcher ignores the
// stream's REMOVE records).
const eventRetention = 30 * 24 * time.Hour

// eventKey is an event owed by tenant t. Event ids are derived from what
// owes them (webhook.SurveyEvents), so writing one twice is refused.
func eventKey(t auth.Tenant, eventID string) (pk, sk string) {
	return tenantPrefix(t) + "#EVENT#" + eventID, "EVENT"
}

type eventItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	EventID   string `dynamodbav:"event_id"`
	EventType string `dynamodbav:"event_type"`
	PartnerID string `dynamodbav:"partner_id"`
	Mode      string `dynamodbav:"mode"`
	At        string `dynamodbav:"at"`
	Data      string `dynamodbav:"data"`       // the payload's data, JSON
	ExpiresAt int64  `dynamodbav:"expires_at"` // TTL
}

func newEventItem(t auth.Tenant, e webhook.Event) eventItem {
	pk, sk := eventKey(t, e.ID)
	return eventItem{
		PK: pk, SK: sk, Type: "event", EventID: e.ID, EventType: string(e.Type), PartnerID: t.PartnerID, Mode: string(t.Mode),
		At: lead.FormatTime(e.At), Data: string(e.Data), ExpiresAt: e.At.Add(eventRetention).Unix(),
	}
}

// GetEvent returns tenant t's event id (strongly consistent), or
// not_found. A failed read is upstream_failed.
func (s *Store) GetEvent(ctx context.Context, t auth.Tenant, id string) (webhook.Event, error) {
	pk, sk := eventKey(t, id)
	var it eventItem
	if err := s.getItem(ctx, pk, sk, "event", &it); err != nil {
		return webhook.Event{}, err
	}
	return it.event()
}

// event is the item as the webhook domain's Event.
func (it eventItem) event() (webhook.Event, error) {
	at, err := parseTime(it.PK, "at", it.At)
	if err != nil {
		return webhook.Event{}, err
	}
	return webhook.Event{ID: it.EventID, Type: webhook.Type(it.EventType), Mode: it.Mode, At: at, Data: json.RawMessage(it.Data)}, nil
}
