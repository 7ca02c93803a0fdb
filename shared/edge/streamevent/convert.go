package streamevent

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// image converts a record's keys or image, nil for nil (an image the
// record does not carry).
func image(m map[string]events.DynamoDBAttributeValue) (map[string]types.AttributeValue, error) {
	return convertImage(m, attributeValue)
}

// convertImage converts keys or an image attribute by attribute with conv,
// in either direction; nil for nil.
func convertImage[A, B any](m map[string]A, conv func(A) (B, error)) (map[string]B, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]B, len(m))
	for name, av := range m {
		v, err := conv(av)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// convertList converts a list value's elements with conv.
func convertList[A, B any](l []A, conv func(A) (B, error)) ([]B, error) {
	out := make([]B, len(l))
	for i, e := range l {
		var err error
		if out[i], err = conv(e); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return out, nil
}

// attributeValue converts one attribute value of the events package, which
// aws-lambda-go decodes from the stream's JSON, to the DynamoDB SDK's type
// of the same kind: S, N, B, SS, NS, BS, M, L, NULL and BOOL. Numbers stay
// the decimal strings DynamoDB sent. It fails for a value that holds no
// value of its kind, which only a value built in Go (the zero
// DynamoDBAttributeValue, say) can be: aws-lambda-go's accessors would
// panic on it.
func attributeValue(av events.DynamoDBAttributeValue) (v types.AttributeValue, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("malformed %s attribute value: %v", typeName(av.DataType()), p)
		}
	}()
	switch av.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: av.String()}, nil
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: av.Number()}, nil
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: av.Binary()}, nil
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: av.Boolean()}, nil
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: av.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: av.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: av.BinarySet()}, nil
	case events.DataTypeList:
		l, err := convertList(av.List(), attributeValue)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case events.DataTypeMap:
		m, err := image(av.Map())
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]types.AttributeValue{}
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown attribute value type %d", av.DataType())
}

// typeName names a data type as the stream's JSON does.
func typeName(t events.DynamoDBDataType) string {
	switch t {
	case events.DataTypeString:
		return "S"
	case events.DataTypeNumber:
		return "N"
	case events.DataTypeBinary:
		return "B"
	case events.DataTypeBoolean:
		return "BOOL"
	case events.DataTypeNull:
		return "NULL"
	case events.DataTypeStringSet:
		return "SS"
	case events.DataTypeNumberSet:
		return "NS"
	case events.DataTypeBinarySet:
		return "BS"
	case events.DataTypeList:
		return "L"
	case events.DataTypeMap:
		return "M"
	}
	return fmt.Sprintf("type %d", t)
}
