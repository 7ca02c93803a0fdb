package streamevent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// recorder is a Processor that keeps the records it gets and fails those
// whose sequence number is in fail.
type recorder struct {
	got  []Record
	fail map[string]error
}

func (p *recorder) Process(_ context.Context, r Record) error {
	p.got = append(p.got, r)
	return p.fail[r.SequenceNumber]
}

// invoke runs h on the JSON payload through aws-lambda-go's handler
// wrapper, as the Lambda runtime does, and decodes its response.
func invoke(t *testing.T, h Handler, payload []byte) events.DynamoDBEventResponse {
	t.Helper()
	out, err := lambda.NewHandler(h).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	var resp events.DynamoDBEventResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("decode response %s: %v", out, err)
	}
	return resp
}

func fixture(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/dynamodb-event.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// TestHandlerDeliversRecordsAsLambdaSendsThem: the fixture (Lambda's JSON
// for a batch of an INSERT, a MODIFY and a TTL REMOVE) reaches the
// processor in order, every attribute type converted.
func TestHandlerDeliversRecordsAsLambdaSendsThem(t *testing.T) {
	p := &recorder{}
	resp := invoke(t, New(p, nil), fixture(t))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("BatchItemFailures = %v; want none", resp.BatchItemFailures)
	}
	hook := s("PARTNER#ptn_1#MODE#live#HOOK#evt_1")
	lead := s("PARTNER#ptn_1#MODE#live#LEAD#lead_1")
	idem := s("PARTNER#ptn_1#MODE#live#IDEM#createLead#ab12")
	want := []Record{
		{
			EventID: "c4ca4238a0b923820dcc509a6f75849b", EventName: Insert,
			Keys: map[string]types.AttributeValue{"pk": hook, "sk": s("EVENT")},
			NewImage: map[string]types.AttributeValue{
				"pk": hook, "sk": s("EVENT"), "type": s("lead.updated"),
				"attempt": n("0"), "price": n("1234.50"),
				"digest":         &types.AttributeValueMemberB{Value: []byte{0, 1, 42, 65}},
				"signing_secret": s("whsec_do-not-log-me"),
				"delivered":      &types.AttributeValueMemberBOOL{Value: false},
				"error":          &types.AttributeValueMemberNULL{Value: true},
				"endpoints":      &types.AttributeValueMemberSS{Value: []string{"https://a.example", "https://b.example"}},
				"codes":          &types.AttributeValueMemberNS{Value: []string{"200", "503"}},
				"blobs":          &types.AttributeValueMemberBS{Value: [][]byte{{0, 1, 42, 65}, {65, 42, 1, 0}}},
				"payload": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
					"lead_id": s("lead_1"),
					"rooms": &types.AttributeValueMemberL{Value: []types.AttributeValue{
						s("kitchen"), n("2"),
						&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
						&types.AttributeValueMemberL{Value: []types.AttributeValue{}},
					}},
				}},
			},
			SequenceNumber: "111100000000000000000001",
			Created:        time.Unix(1767225600, 0),
		},
		{
			EventID: "c81e728d9d4c2f636f067f89cc14862c", EventName: Modify,
			Keys:           map[string]types.AttributeValue{"pk": lead, "sk": s("LEAD")},
			NewImage:       map[string]types.AttributeValue{"pk": lead, "sk": s("LEAD"), "status": s("surveyed")},
			OldImage:       map[string]types.AttributeValue{"pk": lead, "sk": s("LEAD"), "status": s("new")},
			SequenceNumber: "111100000000000000000002",
			Created:        time.Unix(1767225601, 0),
		},
		{
			EventID: "eccbc87e4b5ce2fe28308fd9f2a7baf3", EventName: Remove,
			Keys:           map[string]types.AttributeValue{"pk": idem, "sk": s("IDEM")},
			OldImage:       map[string]types.AttributeValue{"pk": idem, "sk": s("IDEM"), "expires_at": n("1767225000")},
			SequenceNumber: "111100000000000000000003",
			Created:        time.Unix(1767225602, 0),
			Expired:        true,
		},
	}
	if len(p.got) != len(want) {
		t.Fatalf("processor got %d records; want %d", len(p.got), len(want))
	}
	for i := range want {
		got := p.got[i]
		if !got.Created.Equal(want[i].Created) {
			t.Errorf("record %d: Created = %v; want %v", i, got.Created, want[i].Created)
		}
		got.Created = want[i].Created
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("record %d:\ngot  %s\nwant %s", i, dump(got), dump(want[i]))
		}
	}
}

// dump renders a record for a failure message (attribute values are
// pointers, which %v would print as addresses).
func dump(r Record) string {
	b, _ := json.Marshal(struct {
		Record
		Keys, NewImage, OldImage map[string]any
	}{r, tagged(r.Keys), tagged(r.NewImage), tagged(r.OldImage)})
	return string(b)
}

// TestFailedRecordIsReportedAndStopsTheBatch: the first failing record is
// the batch's one item failure; the records after it are not processed (the
// retry delivers them), and the log has one line per processed record,
// with keys and never other attribute values.
func TestFailedRecordIsReportedAndStopsTheBatch(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fail      []string // sequence numbers that fail
		processed int
		reported  string // "" when the batch succeeds
	}{
		{"none fails", nil, 3, ""},
		{"first fails", []string{"111100000000000000000001"}, 1, "111100000000000000000001"},
		{"second fails", []string{"111100000000000000000002"}, 2, "111100000000000000000002"},
		{"second and third fail", []string{"111100000000000000000002", "111100000000000000000003"}, 2, "111100000000000000000002"},
		{"last fails", []string{"111100000000000000000003"}, 3, "111100000000000000000003"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &recorder{fail: map[string]error{}}
			for _, seq := range tc.fail {
				p.fail[seq] = errors.New("endpoint unreachable")
			}
			var logBuf bytes.Buffer
			resp := invoke(t, New(p, slog.New(slog.NewJSONHandler(&logBuf, nil))), fixture(t))
			if len(p.got) != tc.processed {
				t.Errorf("processed %d records; want %d", len(p.got), tc.processed)
			}
			var reported []string
			for _, f := range resp.BatchItemFailures {
				reported = append(reported, f.ItemIdentifier)
			}
			if tc.reported == "" && len(reported) != 0 || tc.reported != "" && !reflect.DeepEqual(reported, []string{tc.reported}) {
				t.Errorf("BatchItemFailures = %v; want [%s]", reported, tc.reported)
			}
			lines := logLines(t, &logBuf)
			if len(lines) != tc.processed {
				t.Fatalf("%d log lines; want %d (one per processed record)", len(lines), tc.processed)
			}
			for i, l := range lines {
				if l["pk"] == "" || l["sk"] == "" || l["event"] == "" || l["sequence_number"] == "" {
					t.Errorf("log line %d lacks event, keys or sequence number: %v", i, l)
				}
			}
			if tc.reported != "" {
				last := lines[len(lines)-1]
				if last["level"] != "ERROR" || last["error"] != "endpoint unreachable" || last["sequence_number"] != tc.reported {
					t.Errorf("last log line = %v; want an ERROR line with the error for %s", last, tc.reported)
				}
			}
			for _, secret := range []string{"whsec_do-not-log-me", "lead.updated", "surveyed"} {
				if strings.Contains(logBuf.String(), secret) {
					t.Errorf("the log holds the attribute value %q:\n%s", secret, logBuf.String())
				}
			}
		})
	}
}

func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestMalformedRecordIsAFailure: a record whose value cannot be converted
// (the zero DynamoDBAttributeValue, on which aws-lambda-go's accessors
// panic) is reported failed without reaching the processor, and the
// handler does not panic.
func TestMalformedRecordIsAFailure(t *testing.T) {
	p := &recorder{}
	ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{
		EventName: Insert,
		Change: events.DynamoDBStreamRecord{
			SequenceNumber: "5",
			Keys:           map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute("a")},
			NewImage:       map[string]events.DynamoDBAttributeValue{"bad": {}},
		},
	}}}
	resp, err := New(p, nil)(context.Background(), ev)
	if err != nil {
		t.Fatalf("handler error: %v", err)
	}
	if len(p.got) != 0 {
		t.Errorf("processor got %d records; want 0", len(p.got))
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "5" {
		t.Errorf("BatchItemFailures = %v; want [5]", resp.BatchItemFailures)
	}
}

func TestEmptyBatchSucceeds(t *testing.T) {
	resp := invoke(t, New(&recorder{}, nil), []byte(`{"Records":[]}`))
	if len(resp.BatchItemFailures) != 0 {
		t.Errorf("BatchItemFailures = %v; want none", resp.BatchItemFailures)
	}
}
