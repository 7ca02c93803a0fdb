package streamevent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestEventAttributeValueEveryType converts one value of every type of the
// Streams API and checks the JSON the events package writes for it: the
// stream's own notation.
func TestEventAttributeValueEveryType(t *testing.T) {
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
			v, err := eventAttributeValue(tc.av)
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

func TestEventImageUnknownType(t *testing.T) {
	_, err := EventImage(map[string]stypes.AttributeValue{"x": &stypes.UnknownUnionMember{Tag: "V2"}})
	if err == nil || !strings.Contains(err.Error(), `attribute "x"`) {
		t.Errorf("EventImage with an unknown type: err = %v; want one naming the attribute", err)
	}
}
