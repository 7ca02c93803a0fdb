package streamlocal

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/moveleads/partnerapi/shared/edge/streamevent"
)

// payload returns the JSON Lambda would invoke a function with for records
// of the stream streamARN: Lambda's event is the records as GetRecords
// returns them, each with the stream's ARN added (eventSourceARN).
func payload(records []stypes.Record, streamARN string) ([]byte, error) {
	ev := events.DynamoDBEvent{Records: make([]events.DynamoDBEventRecord, 0, len(records))}
	for _, r := range records {
		er, err := eventRecord(r, streamARN)
		if err != nil {
			return nil, fmt.Errorf("record %s: %w", sequenceNumber(r), err)
		}
		ev.Records = append(ev.Records, er)
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode the event: %w", err)
	}
	return b, nil
}

// eventRecord converts a record of the Streams API to the events
// package's. ApproximateCreationDateTime goes to the second, as Lambda's
// events carry it.
func eventRecord(r stypes.Record, streamARN string) (events.DynamoDBEventRecord, error) {
	er := events.DynamoDBEventRecord{
		AWSRegion:      aws.ToString(r.AwsRegion),
		EventID:        aws.ToString(r.EventID),
		EventName:      string(r.EventName),
		EventSource:    aws.ToString(r.EventSource),
		EventVersion:   aws.ToString(r.EventVersion),
		EventSourceArn: streamARN,
	}
	if id := r.UserIdentity; id != nil {
		er.UserIdentity = &events.DynamoDBUserIdentity{Type: aws.ToString(id.Type), PrincipalID: aws.ToString(id.PrincipalId)}
	}
	d := r.Dynamodb
	if d == nil {
		return er, fmt.Errorf("the record has no dynamodb part")
	}
	var err error
	c := &er.Change
	if c.Keys, err = streamevent.EventImage(d.Keys); err != nil {
		return er, fmt.Errorf("keys: %w", err)
	}
	if c.NewImage, err = streamevent.EventImage(d.NewImage); err != nil {
		return er, fmt.Errorf("new image: %w", err)
	}
	if c.OldImage, err = streamevent.EventImage(d.OldImage); err != nil {
		return er, fmt.Errorf("old image: %w", err)
	}
	c.ApproximateCreationDateTime = events.SecondsEpochTime{Time: aws.ToTime(d.ApproximateCreationDateTime).Truncate(time.Second)}
	c.SequenceNumber = aws.ToString(d.SequenceNumber)
	c.SizeBytes = aws.ToInt64(d.SizeBytes)
	c.StreamViewType = string(d.StreamViewType)
	return er, nil
}

// sequenceNumber is r's sequence number, "" when it has none.
func sequenceNumber(r stypes.Record) string {
	if r.Dynamodb == nil {
		return ""
	}
	return aws.ToString(r.Dynamodb.SequenceNumber)
}

// invoker runs a handler on a payload as the Lambda runtime does: through
// aws-lambda-go's handler wrapper, which decodes the event from the JSON
// and encodes the response to JSON.
type invoker struct{ h lambda.Handler }

func newInvoker(h func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)) invoker {
	return invoker{h: lambda.NewHandler(h)}
}

// invoke returns the handler's response, or an error when it fails or
// panics (a failed invocation, as in Lambda) or answers something that is
// not a DynamoDBEventResponse.
func (iv invoker) invoke(ctx context.Context, payload []byte) (resp events.DynamoDBEventResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	out, err := iv.h.Invoke(ctx, payload)
	if err != nil {
		return resp, err
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return resp, fmt.Errorf("the handler's response %.200s is not a DynamoDBEventResponse: %w", out, err)
	}
	return resp, nil
}
