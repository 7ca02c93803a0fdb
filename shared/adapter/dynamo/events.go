package dynamo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Webhook events owed (the outbox), the only items of the events table
// (table.EventsName). A state change that owes events writes them in its
// own transaction (AdvanceSurvey), which names both tables; the events
// table's stream carries each new event item to the dispatcher, which fans
// it out to the tenant's endpoints. The item only has to outlive that hand-off: DynamoDB's TTL
// deletes it eventRetention after the event (the dispatcher ignores the
// stream's REMOVE records). The same item is what listEvents and getEvent
// read, through the listing indexes (eventListKeys).
const eventRetention = webhook.Retention

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
	Data      string `dynamodbav:"data"`                  // the payload's data, JSON
	Endpoint  string `dynamodbav:"endpoint_id,omitempty"` // the one endpoint it goes to, if any
	LeadID    string `dynamodbav:"lead_id,omitempty"`
	ExpiresAt int64  `dynamodbav:"expires_at"` // TTL
	// The listing indexes' keys (table.EventIndexes), all unset on a
	// webhook.test to one endpoint, the lead ones on an event of no lead.
	TenantPK   string `dynamodbav:"tenant_pk,omitempty"`
	TypePK     string `dynamodbav:"type_pk,omitempty"`
	LeadPK     string `dynamodbav:"lead_pk,omitempty"`
	LeadTypePK string `dynamodbav:"lead_type_pk,omitempty"`
	ListSK     string `dynamodbav:"list_sk,omitempty"`
}

func newEventItem(t auth.Tenant, e webhook.Event) eventItem {
	pk, sk := eventKey(t, e.ID)
	it := eventItem{
		PK: pk, SK: sk, Type: EventItemType, EventID: e.ID, EventType: string(e.Type), PartnerID: t.PartnerID, Mode: string(t.Mode),
		At: lead.FormatTime(e.At), Data: string(e.Data), Endpoint: e.Endpoint, LeadID: e.LeadID, ExpiresAt: e.At.Add(eventRetention).Unix(),
	}
	if e.Endpoint == "" {
		k := eventListKeys(t, e.Type, e.LeadID)
		it.TenantPK, it.TypePK, it.LeadPK, it.LeadTypePK = k.tenant, k.byType, k.byLead, k.byLeadType
		it.ListSK = eventListSK(it.At, e.ID)
	}
	return it
}

// PutEvent writes event e owed by tenant t on its own (an operator's
// webhook.test); state changes write theirs in their transaction
// (AdvanceSurvey). created is false when the event exists already.
func (s *Store) PutEvent(ctx context.Context, t auth.Tenant, e webhook.Event) (created bool, err error) {
	put, err := s.putNewEvent(t, e)
	if err != nil {
		return false, err
	}
	return s.putOnce(ctx, put, "event")
}

// putNewEvent is the transaction item that writes event e owed by tenant
// t into the events table, unless it exists.
func (s *Store) putNewEvent(t auth.Tenant, e webhook.Event) (types.TransactWriteItem, error) {
	return putNewIn(s.events, newEventItem(t, e))
}

// GetEvent returns tenant t's event id (strongly consistent), or
// not_found, whatever its age (getEvent hides what webhook.Event.Listed
// does not show). A failed read is upstream_failed.
func (s *Store) GetEvent(ctx context.Context, t auth.Tenant, id string) (webhook.Event, error) {
	pk, sk := eventKey(t, id)
	var it eventItem
	if err := s.getItemIn(ctx, s.events, pk, sk, "event", &it); err != nil {
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
	return webhook.Event{ID: it.EventID, Type: webhook.Type(it.EventType), Mode: it.Mode, At: at, Data: json.RawMessage(it.Data), Endpoint: it.Endpoint, LeadID: it.LeadID}, nil
}

// EventItemType is the "type" attribute of event items: the webhook
// dispatcher's stream filter (manifest.StreamTrigger.InsertsOf).
const EventItemType = "event"

// EventFromImage reads an event item from a stream record's image (the
// item's attributes): the tenant that owes it and the event. ok is false
// for an item of another type. A malformed event item is an error.
func EventFromImage(img map[string]types.AttributeValue) (t auth.Tenant, e webhook.Event, ok bool, err error) {
	var it eventItem
	if err := attributevalue.UnmarshalMap(img, &it); err != nil {
		return auth.Tenant{}, webhook.Event{}, false, fmt.Errorf("event item: %w", err)
	}
	if it.Type != EventItemType {
		return auth.Tenant{}, webhook.Event{}, false, nil
	}
	mode, err := auth.ParseMode(it.Mode)
	if err != nil || it.PartnerID == "" || it.EventID == "" || !webhook.Known(webhook.Type(it.EventType)) {
		return auth.Tenant{}, webhook.Event{}, false, fmt.Errorf("event item %s: partner %q, mode %q, type %q", it.PK, it.PartnerID, it.Mode, it.EventType)
	}
	e, err = it.event()
	if err != nil {
		return auth.Tenant{}, webhook.Event{}, false, err
	}
	return auth.Tenant{PartnerID: it.PartnerID, Mode: mode}, e, true, nil
}
