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
	if c.Keys, err = image(d.Keys); err != nil {
		return er, fmt.Errorf("keys: %w", err)
	}
	if c.NewImage, err = image(d.NewImage); err != nil {
		return er, fmt.Errorf("new image: %w", err)
	}
	if c.OldImage, err = image(d.OldImage); err != nil {
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

// image converts keys or an image, nil for nil (an image the record does
// not carry, which the event then leaves out).
func image(m map[string]stypes.AttributeValue) (map[string]events.DynamoDBAttributeValue, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for name, av := range m {
		v, err := attributeValue(av)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// attributeValue converts one attribute value of the Streams API to the
// events package's. It fails only for a type the SDK knows and this
// function does not (stypes.UnknownUnionMember: a type DynamoDB added).
func attributeValue(av stypes.AttributeValue) (events.DynamoDBAttributeValue, error) {
	switch v := av.(type) {
	case *stypes.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value), nil
	case *stypes.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value), nil
	case *stypes.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value), nil
	case *stypes.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value), nil
	case *stypes.AttributeValueMemberNULL:
		return events.NewNullAttribute(), nil
	case *stypes.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value), nil
	case *stypes.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value), nil
	case *stypes.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value), nil
	case *stypes.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			var err error
			if l[i], err = attributeValue(e); err != nil {
				return events.DynamoDBAttributeValue{}, fmt.Errorf("element %d: %w", i, err)
			}
		}
		return events.NewListAttribute(l), nil
	case *stypes.AttributeValueMemberM:
		m, err := image(v.Value)
		if err != nil {
			return events.DynamoDBAttributeValue{}, err
		}
		if m == nil {
			m = map[string]events.DynamoDBAttributeValue{}
		}
		return events.NewMapAttribute(m), nil
	}
	return events.DynamoDBAttributeValue{}, fmt.Errorf("unsupported attribute value %T", av)
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
