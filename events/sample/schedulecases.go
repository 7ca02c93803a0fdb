package sample

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"
)

// ScheduleCase is one sample scheduled event: the event an EventBridge
// rule's schedule sends its target at each tick, as a schedule-triggered
// function receives it (events.EventBridgeEvent). The event carries
// nothing but the time: the job looks at the table.
type ScheduleCase struct {
	Slug string // the function it is for (manifest.Functions)
	Name string // what it shows, e.g. "tick"; no dots
}

// ScheduleCases returns every sample scheduled event. Each
// schedule-triggered function has at least one. The retrier's attempts
// the deliveries that are due: against the fixtures (whose partner has no
// webhook endpoint, so no delivery exists) it finds none and succeeds,
// reporting 0 due; against make dev's table it attempts whatever is due
// there, as the stack's own ticker does every minute.
func ScheduleCases() []ScheduleCase {
	return []ScheduleCase{{Slug: "webhook-retrier", Name: "tick"}}
}

// FileName returns the name of c's file in events/: <slug>.<name>.json (a
// schedule-triggered function answers no status; it succeeds or fails).
func (c ScheduleCase) FileName() string { return fmt.Sprintf("%s.%s.json", c.Slug, c.Name) }

// event returns c as EventBridge sends it: a "Scheduled Event" from
// aws.events at the fixed event time, in make dev's region, naming the
// rule (as the CDK stack names it, in a documentation account) and with
// an empty detail.
func (c ScheduleCase) event() events.EventBridgeEvent {
	id := uuid.NewMD5(uuid.NameSpaceURL, []byte("sample/"+c.FileName()))
	return events.EventBridgeEvent{
		Version: "0", ID: id.String(), DetailType: "Scheduled Event", Source: "aws.events",
		AccountID: "123456789012", Time: eventTime, Region: "us-east-1",
		Resources: []string{"arn:aws:events:us-east-1:123456789012:rule/PartnerApi-dev-" + c.Slug + "-schedule"},
		Detail:    json.RawMessage("{}"),
	}
}
