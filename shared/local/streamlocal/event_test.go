package streamlocal

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestPayloadIsLambdasJSON: the payload has the fields of Lambda's event
// for a DynamoDB stream, under Lambda's names, and decodes into the
// record it came from.
func TestPayloadIsLambdasJSON(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 20, 30, 456_000_000, time.UTC)
	s := func(v string) stypes.AttributeValue { return &stypes.AttributeValueMemberS{Value: v} }
	rec := stypes.Record{
		AwsRegion: aws.String("us-east-1"), EventID: aws.String("e1"), EventName: stypes.OperationTypeRemove,
		EventSource: aws.String("aws:dynamodb"), EventVersion: aws.String("1.1"),
		UserIdentity: &stypes.Identity{Type: aws.String("Service"), PrincipalId: aws.String("dynamodb.amazonaws.com")},
		Dynamodb: &stypes.StreamRecord{
			ApproximateCreationDateTime: &at,
			Keys:                        map[string]stypes.AttributeValue{"pk": s("p"), "sk": s("s")},
			OldImage:                    map[string]stypes.AttributeValue{"pk": s("p"), "sk": s("s"), "v": s("1")},
			SequenceNumber:              aws.String("000000000000000000042"), SizeBytes: aws.Int64(21),
			StreamViewType: stypes.StreamViewTypeNewAndOldImages,
		},
	}
	const arn = "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2026-01-01T00:00:00.000"
	body, err := payload([]stypes.Record{rec}, arn)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Records []map[string]json.RawMessage
	}
	if err := json.Unmarshal(body, &raw); err != nil || len(raw.Records) != 1 {
		t.Fatalf("payload %s: %v", body, err)
	}
	var top []string
	for k := range raw.Records[0] {
		top = append(top, k)
	}
	slices.Sort(top)
	if want := []string{"awsRegion", "dynamodb", "eventID", "eventName", "eventSource", "eventSourceARN", "eventVersion", "userIdentity"}; !slices.Equal(top, want) {
		t.Errorf("record fields %v; want %v", top, want)
	}
	var change map[string]json.RawMessage
	_ = json.Unmarshal(raw.Records[0]["dynamodb"], &change)
	var inner []string
	for k := range change {
		inner = append(inner, k)
	}
	slices.Sort(inner)
	// NewImage is left out of a REMOVE, as Lambda leaves it out.
	if want := []string{"ApproximateCreationDateTime", "Keys", "OldImage", "SequenceNumber", "SizeBytes", "StreamViewType"}; !slices.Equal(inner, want) {
		t.Errorf("dynamodb fields %v; want %v", inner, want)
	}
	if got := string(change["ApproximateCreationDateTime"]); got != "1767262830" {
		t.Errorf("ApproximateCreationDateTime = %s; want 1767262830 (epoch seconds, whole)", got)
	}

	var ev events.DynamoDBEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	r := ev.Records[0]
	if r.EventSourceArn != arn || r.EventName != "REMOVE" || r.EventID != "e1" || r.AWSRegion != "us-east-1" ||
		r.UserIdentity == nil || r.UserIdentity.PrincipalID != "dynamodb.amazonaws.com" ||
		r.Change.SequenceNumber != "000000000000000000042" || r.Change.SizeBytes != 21 ||
		r.Change.StreamViewType != "NEW_AND_OLD_IMAGES" || r.Change.OldImage["v"].String() != "1" || r.Change.NewImage != nil ||
		!r.Change.ApproximateCreationDateTime.Equal(at.Truncate(time.Second)) {
		t.Errorf("decoded record %+v does not match the stream record", r)
	}
}

func TestPayloadRefusesARecordWithoutChange(t *testing.T) {
	if _, err := payload([]stypes.Record{{EventID: aws.String("e")}}, "arn"); err == nil {
		t.Error("payload of a record without its dynamodb part: no error")
	}
}
