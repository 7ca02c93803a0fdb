package streamevent_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/moveleads/partnerapi/shared/edge/streamevent"
)

// owedEvent is the item a processor reads from a record's new image.
type owedEvent struct {
	Type    string `dynamodbav:"type"`
	Attempt int    `dynamodbav:"attempt"`
}

type dispatcher struct{}

// Process unmarshals the new image of inserted items into the adapter's
// item struct with the SDK's attributevalue package and skips the rest.
func (dispatcher) Process(_ context.Context, r streamevent.Record) error {
	if r.EventName != streamevent.Insert {
		return nil
	}
	var e owedEvent
	if err := attributevalue.UnmarshalMap(r.NewImage, &e); err != nil {
		return nil // not an owed event: refused for good, not retried
	}
	fmt.Printf("dispatch %s (attempt %d), sequence number %s\n", e.Type, e.Attempt, r.SequenceNumber)
	return nil
}

// A stream-triggered function's main is one line, streamevent.Start with
// its slug and the builder of its processor (in shared/wire/wiring). Here the
// handler runs on a batch as Lambda would deliver it.
func ExampleNew() {
	h := streamevent.New(dispatcher{}, nil)
	resp, err := h(context.Background(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{
		EventName: streamevent.Insert,
		Change: events.DynamoDBStreamRecord{
			SequenceNumber: "100000000000000000001",
			NewImage: map[string]events.DynamoDBAttributeValue{
				"type":    events.NewStringAttribute("lead.updated"),
				"attempt": events.NewNumberAttribute("0"),
			},
		},
	}}})
	fmt.Println(len(resp.BatchItemFailures), err)
	// Output:
	// dispatch lead.updated (attempt 0), sequence number 100000000000000000001
	// 0 <nil>
}
