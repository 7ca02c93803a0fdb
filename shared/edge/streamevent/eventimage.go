package streamevent

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// EventImage converts keys or an image of a record of the Streams API
// (GetRecords) to the events package's, as Lambda's event carries them;
// nil for nil. The local stream poller builds its events with it, the
// reverse of what the handler does with them.
//
// It fails only for a type the SDK knows and this function does not
// (stypes.UnknownUnionMember: a type DynamoDB added).
func EventImage(m map[string]stypes.AttributeValue) (map[string]events.DynamoDBAttributeValue, error) {
	return convertImage(m, eventAttributeValue)
}

// eventAttributeValue converts one attribute value of the Streams API to
// the events package's.
func eventAttributeValue(av stypes.AttributeValue) (events.DynamoDBAttributeValue, error) {
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
		l, err := convertList(v.Value, eventAttributeValue)
		if err != nil {
			return events.DynamoDBAttributeValue{}, err
		}
		return events.NewListAttribute(l), nil
	case *stypes.AttributeValueMemberM:
		m, err := EventImage(v.Value)
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
