package streamlocal

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestAttributeValueEveryType converts one value of every type of the
// Streams API and checks the JSON the events package writes for it: the
// stream's own notation.
func TestAttributeValueEveryType(t *testing.T) {
	for _, tc := range []struct {
		name string
		av   stypes.AttributeValue
		json string
	}{
		{"S", &stypes.AttributeValueMemberS{Value: "héllo"}, `{"S":"héllo"}`},
		{"N", &stypes.AttributeValueMemberN{Value: "-12.5"}, `{"N":"-12.5"}`},
		{"B", &stypes.AttributeValueMemberB{Value: []byte{0, 1, 42, 65}}, `{"B":"AAEqQQ=="}`},
		{"BOOL", &stypes.AttributeValueMemberBOOL{Value: true}, `{"BOOL":true}`},
		{"NULL", &stypes.AttributeValueMemberNULL{Value: true}, `{"NULL":true}`},
		{"SS", &stypes.AttributeValueMemberSS{Value: []string{"a", "b"}}, `{"SS":["a","b"]}`},
		{"NS", &stypes.AttributeValueMemberNS{Value: []string{"1", "2.5"}}, `{"NS":["1","2.5"]}`},
		{"BS", &stypes.AttributeValueMemberBS{Value: [][]byte{{0}, {1, 2}}}, `{"BS":["AA==","AQI="]}`},
		{"L", &stypes.AttributeValueMemberL{Value: []stypes.AttributeValue{
			&stypes.AttributeValueMemberS{Value: "a"}, &stypes.AttributeValueMemberL{Value: []stypes.AttributeValue{}},
		}}, `{"L":[{"S":"a"},{"L":[]}]}`},
		{"M", &stypes.AttributeValueMemberM{Value: map[string]stypes.AttributeValue{
			"x": &stypes.AttributeValueMemberM{Value: map[string]stypes.AttributeValue{}},
			"y": &stypes.AttributeValueMemberN{Value: "1"},
		}}, `{"M":{"x":{"M":{}},"y":{"N":"1"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := attributeValue(tc.av)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			_ = json.Unmarshal([]byte(tc.json), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("JSON of %T = %s; want %s", tc.av, b, tc.json)
			}
		})
	}
}

func TestAttributeValueUnknownType(t *testing.T) {
	_, err := image(map[string]stypes.AttributeValue{"x": &stypes.UnknownUnionMember{Tag: "V2"}})
	if err == nil || !strings.Contains(err.Error(), `attribute "x"`) {
		t.Errorf("image with an unknown type: err = %v; want one naming the attribute", err)
	}
}

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
