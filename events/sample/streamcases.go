package sample

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// StreamCase is one sample DynamoDB stream event: a batch of one record
// of the table's stream, as the event source mapping invokes a
// stream-triggered function with it. The record is the INSERT of a
// webhook event item (the only records the dispatcher's filter lets
// through), with the item's new image as the store writes it
// (dynamo.Store.PutEvent; a test compares the two).
type StreamCase struct {
	Slug string // the function it is for (manifest.Functions)
	Name string // what it shows, e.g. "event-inserted"; no dots
	// Tenant owes Event; the item is in Tenant's partition.
	Tenant auth.Tenant
	Event  webhook.Event
	// SequenceNumber orders the record in its shard.
	SequenceNumber string
}

// StreamCases returns every sample stream event. Each stream-triggered
// function has at least one. Running one again succeeds and changes
// nothing more: the stream delivers at least once, and the dispatcher's
// deliveries are keyed by event and endpoint.
func StreamCases() []StreamCase {
	// The survey.completed event the fixture survey FinishSurveyID owes
	// once it is inventory_ready, as the state change writes it
	// (webhook.SurveyEvents). The fixture partner has no webhook
	// endpoint, so fanning it out writes and sends nothing: invoking it is
	// a no-op that succeeds, against a fresh table or make dev's.
	evs, err := webhook.SurveyEvents(string(auth.Test), FinishLeadID, FinishSurveyID, survey.InventoryReady, nil, nil, eventTime)
	if err != nil || len(evs) == 0 {
		panic(fmt.Sprintf("sample: survey events: %v (%d)", err, len(evs)))
	}
	return []StreamCase{
		{
			Slug: "webhook-dispatcher", Name: "event-inserted",
			Tenant: auth.Tenant{PartnerID: PartnerID, Mode: auth.Test}, Event: evs[0],
			SequenceNumber: "4421584500000000017450439091",
		},
	}
}

// FileName returns the name of c's file in events/: <slug>.<name>.json (a
// stream-triggered function answers no status, only its batch's
// failures).
func (c StreamCase) FileName() string { return fmt.Sprintf("%s.%s.json", c.Slug, c.Name) }

// eventItemRetention is how long after the event its item lives (its
// expires_at, DynamoDB's TTL): dynamo's eventRetention, 30 days
// (TestStreamEventIsTheStoredItem compares the image with the stored item).
const eventItemRetention = 30 * 24 * time.Hour

// localStreamARN is the ARN of make dev's events table's stream as the
// events name it (a fixed label: the records do not depend on it).
var localStreamARN = "arn:aws:dynamodb:us-east-1:123456789012:table/" + table.EventsName(table.DefaultName) + "/stream/2026-11-21T12:00:00.000"

// Keys returns the record's keys: the event item's pk and sk
// (PARTNER#<partner>#MODE#<mode>#EVENT#<id>, EVENT).
func (c StreamCase) Keys() map[string]events.DynamoDBAttributeValue {
	return map[string]events.DynamoDBAttributeValue{
		table.PK: events.NewStringAttribute("PARTNER#" + c.Tenant.PartnerID + "#MODE#" + string(c.Tenant.Mode) + "#EVENT#" + c.Event.ID),
		table.SK: events.NewStringAttribute("EVENT"),
	}
}

// NewImage returns the event item as inserted: its keys, type "event",
// the event's id, type, tenant, time (lead.TimeLayout), data (JSON) and
// lead, expires_at, and the listing indexes' keys.
func (c StreamCase) NewImage() map[string]events.DynamoDBAttributeValue {
	img := c.Keys()
	for k, v := range map[string]string{
		"type": dynamo.EventItemType, "event_id": c.Event.ID, "event_type": string(c.Event.Type),
		"partner_id": c.Tenant.PartnerID, "mode": string(c.Tenant.Mode),
		"at": lead.FormatTime(c.Event.At), "data": string(c.Event.Data),
	} {
		img[k] = events.NewStringAttribute(v)
	}
	img[table.TTLAttribute] = events.NewNumberAttribute(strconv.FormatInt(c.Event.At.Add(eventItemRetention).Unix(), 10))
	// The listing indexes' keys (table.EventIndexes) and the lead id.
	tenant := "PARTNER#" + c.Tenant.PartnerID + "#MODE#" + string(c.Tenant.Mode) + "#EVENTS"
	byLead := tenant + "#LEAD#" + c.Event.LeadID
	for k, v := range map[string]string{
		"lead_id": c.Event.LeadID, table.EventsByTenant.PK: tenant, table.EventsByType.PK: tenant + "#TYPE#" + string(c.Event.Type),
		table.EventsByLead.PK: byLead, table.EventsByLeadType.PK: byLead + "#TYPE#" + string(c.Event.Type),
		table.EventListSK: lead.FormatTime(c.Event.At) + "#" + c.Event.ID,
	} {
		img[k] = events.NewStringAttribute(v)
	}
	return img
}

// event returns c as the event source mapping sends it: one INSERT record
// from aws:dynamodb, with the item's keys and new image (no old image: it
// is new), in make dev's region, at the fixed event time.
func (c StreamCase) event() events.DynamoDBEvent {
	img := c.NewImage()
	id := md5.Sum([]byte(c.FileName()))
	return events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{
		AWSRegion: "us-east-1",
		Change: events.DynamoDBStreamRecord{
			ApproximateCreationDateTime: events.SecondsEpochTime{Time: eventTime},
			Keys:                        c.Keys(),
			NewImage:                    img,
			SequenceNumber:              c.SequenceNumber,
			SizeBytes:                   int64(imageSize(c.Keys()) + imageSize(img)),
			StreamViewType:              table.StreamView,
		},
		EventID:        hex.EncodeToString(id[:]),
		EventName:      "INSERT",
		EventSource:    "aws:dynamodb",
		EventVersion:   "1.1",
		EventSourceArn: localStreamARN,
	}}}
}

// imageSize approximates the bytes of an image of string and number
// attributes as DynamoDB counts an item's size: names and values.
func imageSize(img map[string]events.DynamoDBAttributeValue) int {
	n := 0
	for name, v := range img {
		n += len(name)
		switch v.DataType() {
		case events.DataTypeString:
			n += len(v.String())
		case events.DataTypeNumber:
			n += len(v.Number())
		}
	}
	return n
}
