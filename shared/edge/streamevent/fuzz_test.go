package streamevent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// gen draws attribute values from a fuzzer's bytes (zeros once they run
// out).
type gen struct{ b []byte }

func (g *gen) next() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

// raw returns up to 15 bytes, never nil (the events package decodes "" to
// an empty slice).
func (g *gen) raw() []byte {
	k := min(int(g.next()%16), len(g.b))
	out := append([]byte{}, g.b[:k]...)
	g.b = g.b[k:]
	return out
}

// str returns a string that JSON carries unchanged (DynamoDB's strings
// are UTF-8).
func (g *gen) str() string { return strings.ToValidUTF8(string(g.raw()), "\uFFFD") }

func (g *gen) strs() []string {
	out := make([]string, 0, 4)
	for range g.next() % 4 {
		out = append(out, g.str())
	}
	return out
}

// value returns a random attribute value as the SDK's type (what the
// processor must get) and as the stream's JSON has it.
func (g *gen) value(depth int) (types.AttributeValue, any) {
	kind := g.next() % 10
	if depth >= 4 && kind >= 8 {
		kind = 0 // no deeper nesting
	}
	switch kind {
	case 0:
		v := g.str()
		return &types.AttributeValueMemberS{Value: v}, map[string]any{"S": v}
	case 1:
		v := g.str()
		return &types.AttributeValueMemberN{Value: v}, map[string]any{"N": v}
	case 2:
		v := g.raw()
		return &types.AttributeValueMemberB{Value: v}, map[string]any{"B": base64.StdEncoding.EncodeToString(v)}
	case 3:
		v := g.next()%2 == 1
		return &types.AttributeValueMemberBOOL{Value: v}, map[string]any{"BOOL": v}
	case 4:
		return &types.AttributeValueMemberNULL{Value: true}, map[string]any{"NULL": true}
	case 5:
		v := g.strs()
		return &types.AttributeValueMemberSS{Value: v}, map[string]any{"SS": v}
	case 6:
		v := g.strs()
		return &types.AttributeValueMemberNS{Value: v}, map[string]any{"NS": v}
	case 7:
		var v [][]byte
		enc := []string{}
		for range g.next() % 4 {
			b := g.raw()
			v = append(v, b)
			enc = append(enc, base64.StdEncoding.EncodeToString(b))
		}
		if v == nil {
			v = [][]byte{}
		}
		return &types.AttributeValueMemberBS{Value: v}, map[string]any{"BS": enc}
	case 8:
		v := []types.AttributeValue{}
		enc := []any{}
		for range g.next() % 4 {
			a, j := g.value(depth + 1)
			v = append(v, a)
			enc = append(enc, j)
		}
		return &types.AttributeValueMemberL{Value: v}, map[string]any{"L": enc}
	default:
		v, enc := g.image(depth + 1)
		return &types.AttributeValueMemberM{Value: v}, map[string]any{"M": enc}
	}
}

// image returns up to 5 named attribute values.
func (g *gen) image(depth int) (map[string]types.AttributeValue, map[string]any) {
	v := map[string]types.AttributeValue{}
	enc := map[string]any{}
	for range g.next() % 6 {
		name := g.str()
		v[name], enc[name] = g.value(depth)
	}
	return v, enc
}

// FuzzStreamJSONRoundTrip builds random items, writes them as a stream
// record's JSON (as Lambda delivers it), decodes that into
// events.DynamoDBEvent with aws-lambda-go, runs the handler, and checks
// that the processor gets exactly the items built.
func FuzzStreamJSONRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{5, 0, 3, 'a', 'b', 'c', 1, 4, '1', '2', '.', '5'})
	f.Add([]byte{5, 1, 'm', 9, 3, 1, 'l', 8, 3, 2, 2, 0xff, 0, 7, 2, 1, 'x', 0, 3, 1, 4, 0})
	f.Add([]byte("\x05\x02\xc3\xa9\x05\x03\x01a\x01b\x01c\x01n\x06\x02\x011\x022.\x04\x01z\x03\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{b: data}
		newImage, newJSON := g.image(0)
		oldImage, oldJSON := g.image(0)
		keys := map[string]any{"pk": map[string]any{"S": "p"}, "sk": map[string]any{"S": "s"}}
		payload, err := json.Marshal(map[string]any{"Records": []any{map[string]any{
			"eventID": "1", "eventName": Modify, "eventVersion": "1.1", "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
			"dynamodb": map[string]any{
				"ApproximateCreationDateTime": 1767225600, "Keys": keys,
				"NewImage": newJSON, "OldImage": oldJSON,
				"SequenceNumber": "100000000000000000001", "SizeBytes": 1, "StreamViewType": "NEW_AND_OLD_IMAGES",
			},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		var ev events.DynamoDBEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			t.Fatalf("decode %s: %v", payload, err)
		}
		p := &recorder{}
		resp, err := New(p, nil)(context.Background(), ev)
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("handler: %v, %v", resp, err)
		}
		if len(p.got) != 1 {
			t.Fatalf("processor got %d records; want 1", len(p.got))
		}
		if got := p.got[0]; !reflect.DeepEqual(got.NewImage, newImage) || !reflect.DeepEqual(got.OldImage, oldImage) {
			t.Errorf("from %s\ngot  new %s old %s\nwant new %s old %s", payload,
				dumpImage(got.NewImage), dumpImage(got.OldImage), dumpImage(newImage), dumpImage(oldImage))
		}
	})
}

// dumpImage renders an image for a failure message in the stream's JSON
// notation, types included.
func dumpImage(m map[string]types.AttributeValue) string {
	b, _ := json.Marshal(tagged(m))
	return string(b)
}

func tagged(m map[string]types.AttributeValue) map[string]any {
	if m == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range m {
		out[k] = taggedValue(v)
	}
	return out
}

func taggedValue(v types.AttributeValue) any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": v.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		return map[string]any{"BS": v.Value}
	case *types.AttributeValueMemberL:
		l := []any{}
		for _, e := range v.Value {
			l = append(l, taggedValue(e))
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": tagged(v.Value)}
	}
	return map[string]any{"?": v}
}
