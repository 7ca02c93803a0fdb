package streamevent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestAttributeValueEveryType converts one value of every type, decoded
// from the stream's JSON by aws-lambda-go, to the SDK's type.
func TestAttributeValueEveryType(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       types.AttributeValue
	}{
		{"S", `{"S":"héllo"}`, &types.AttributeValueMemberS{Value: "héllo"}},
		{"empty S", `{"S":""}`, &types.AttributeValueMemberS{Value: ""}},
		{"N", `{"N":"-12.50E3"}`, &types.AttributeValueMemberN{Value: "-12.50E3"}},
		{"B", `{"B":"AAEqQQ=="}`, &types.AttributeValueMemberB{Value: []byte{0, 1, 42, 65}}},
		{"empty B", `{"B":""}`, &types.AttributeValueMemberB{Value: []byte{}}},
		{"BOOL true", `{"BOOL":true}`, &types.AttributeValueMemberBOOL{Value: true}},
		{"BOOL false", `{"BOOL":false}`, &types.AttributeValueMemberBOOL{Value: false}},
		{"NULL", `{"NULL":true}`, &types.AttributeValueMemberNULL{Value: true}},
		{"SS", `{"SS":["a","b"]}`, &types.AttributeValueMemberSS{Value: []string{"a", "b"}}},
		{"NS", `{"NS":["1","2.5"]}`, &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}}},
		{"BS", `{"BS":["AA==","AQI="]}`, &types.AttributeValueMemberBS{Value: [][]byte{{0}, {1, 2}}}},
		{"L", `{"L":[{"S":"a"},{"N":"1"},{"NULL":true}]}`, &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "a"}, &types.AttributeValueMemberN{Value: "1"}, &types.AttributeValueMemberNULL{Value: true},
		}}},
		{"empty L", `{"L":[]}`, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}},
		{"M", `{"M":{"a":{"BOOL":true},"b":{"M":{"c":{"SS":["x"]}}}}}`, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"a": &types.AttributeValueMemberBOOL{Value: true},
			"b": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"c": &types.AttributeValueMemberSS{Value: []string{"x"}}}},
		}}},
		{"empty M", `{"M":{}}`, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var av events.DynamoDBAttributeValue
			if err := json.Unmarshal([]byte(tc.json), &av); err != nil {
				t.Fatalf("decode %s: %v", tc.json, err)
			}
			got, err := attributeValue(av)
			if err != nil {
				t.Fatalf("attributeValue(%s): %v", tc.json, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("attributeValue(%s) = %#v; want %#v", tc.json, got, tc.want)
			}
		})
	}
}

// TestAttributeValueMalformed: a value built in Go that holds nothing (the
// zero value says B but has no bytes) is an error naming where it is, at
// any depth, never a panic.
func TestAttributeValueMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		av   events.DynamoDBAttributeValue
		want string
	}{
		{"zero", events.DynamoDBAttributeValue{}, "malformed B"},
		{"in a list", events.NewListAttribute([]events.DynamoDBAttributeValue{events.NewStringAttribute("a"), {}}), "element 1: malformed B"},
		{"in a map", events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{"x": {}}), `attribute "x": malformed B`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := attributeValue(tc.av)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("attributeValue = %v, %v; want an error with %q", got, err, tc.want)
			}
		})
	}
}

func TestImageNilStaysNil(t *testing.T) {
	got, err := image(nil)
	if err != nil || got != nil {
		t.Errorf("image(nil) = %v, %v; want nil, nil (an image the record does not carry)", got, err)
	}
}
