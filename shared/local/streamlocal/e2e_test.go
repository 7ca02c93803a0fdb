package streamlocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/edge/streamevent"
)

// processor is a streamevent.Processor that keeps what it processed and
// fails the records fail says to, once each.
type processor struct {
	mu     sync.Mutex
	got    []streamevent.Record
	calls  []string // item ids of every call, failed ones included
	fail   map[string]bool
	signal chan struct{}
}

func newProcessor(fail ...string) *processor {
	p := &processor{fail: map[string]bool{}, signal: make(chan struct{}, 1)}
	for _, id := range fail {
		p.fail[id] = true
	}
	return p
}

func (p *processor) Process(_ context.Context, r streamevent.Record) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	defer func() {
		select {
		case p.signal <- struct{}{}:
		default:
		}
	}()
	id := strings.TrimPrefix(r.Keys["pk"].(*types.AttributeValueMemberS).Value, "ITEM#")
	p.calls = append(p.calls, id)
	if p.fail[id] {
		delete(p.fail, id)
		return errors.New("endpoint unreachable")
	}
	p.got = append(p.got, r)
	return nil
}

// wait waits until n records were processed.
func (p *processor) wait(t *testing.T, n int) []streamevent.Record {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		p.mu.Lock()
		got := slices.Clone(p.got)
		p.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-p.signal:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("processed %d records after 10 s; want %d", len(got), n)
		}
	}
}

// everyType is an item with an attribute of every type, nested ones
// included, with numbers as DynamoDB writes them back (it normalises
// "1.50" to "1.5").
func everyType(id string) map[string]types.AttributeValue {
	item := key(id)
	for k, v := range map[string]types.AttributeValue{
		"s":       str("héllo"),
		"n":       &types.AttributeValueMemberN{Value: "1234.5"},
		"b":       &types.AttributeValueMemberB{Value: []byte{0, 1, 42, 255}},
		"t":       &types.AttributeValueMemberBOOL{Value: true},
		"f":       &types.AttributeValueMemberBOOL{Value: false},
		"nothing": &types.AttributeValueMemberNULL{Value: true},
		"ss":      &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":      &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs":      &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			str("x"), &types.AttributeValueMemberN{Value: "7"}, &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"ss": &types.AttributeValueMemberSS{Value: []string{"z"}}}},
			"empty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		}},
		// Empty maps at every depth: DynamoDB Local streams them as {}
		// (see repairEmptyMaps).
		"em": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"le": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}, str("after"),
		}},
	} {
		item[k] = v
	}
	return item
}

// sortSets orders the members of every set in an image, in place:
// DynamoDB keeps sets unordered.
func sortSets(img map[string]types.AttributeValue) map[string]types.AttributeValue {
	for _, v := range img {
		switch v := v.(type) {
		case *types.AttributeValueMemberSS:
			slices.Sort(v.Value)
		case *types.AttributeValueMemberNS:
			slices.Sort(v.Value)
		case *types.AttributeValueMemberBS:
			slices.SortFunc(v.Value, bytes.Compare)
		case *types.AttributeValueMemberM:
			sortSets(v.Value)
		}
	}
	return img
}

// TestEndToEndThroughStreamevent: Poll drives shared/edge/streamevent's handler
// as Lambda would; its processor gets the item written, every attribute
// type intact, as the DynamoDB SDK's values.
func TestEndToEndThroughStreamevent(t *testing.T) {
	db := newClient(t)
	tbl := newTable(t, db)
	p := newProcessor()
	startPoll(t, db, tbl, TrimHorizon, 10, streamevent.New(p, testLog(t)))
	item := everyType("all")
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &tbl, Item: item}); err != nil {
		t.Fatal(err)
	}
	_, err := db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: &tbl, Key: key("all"), UpdateExpression: aws.String("REMOVE nothing"),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := p.wait(t, 2)
	ins, mod := got[0], got[1]
	if ins.EventName != streamevent.Insert || mod.EventName != streamevent.Modify {
		t.Fatalf("events %s, %s; want INSERT, MODIFY", ins.EventName, mod.EventName)
	}
	if d := diff(sortSets(ins.NewImage), sortSets(everyType("all"))); d != "" {
		t.Errorf("INSERT's new image differs from the item written: %s", d)
	}
	if ins.OldImage != nil {
		t.Errorf("INSERT has an old image: %v", ins.OldImage)
	}
	want := everyType("all")
	delete(want, "nothing")
	if d := diff(sortSets(mod.NewImage), sortSets(want)); d != "" {
		t.Errorf("MODIFY's new image: %s", d)
	}
	if d := diff(sortSets(mod.OldImage), sortSets(everyType("all"))); d != "" {
		t.Errorf("MODIFY's old image: %s", d)
	}
	if !reflect.DeepEqual(ins.Keys, key("all")) {
		t.Errorf("keys %v; want %v", ins.Keys, key("all"))
	}
	if ins.SequenceNumber == "" || !seqLess(ins.SequenceNumber, mod.SequenceNumber) || ins.EventID == "" || ins.Created.IsZero() || ins.Expired {
		t.Errorf("record fields: sequence numbers %q, %q; event id %q; created %v; expired %v",
			ins.SequenceNumber, mod.SequenceNumber, ins.EventID, ins.Created, ins.Expired)
	}
}

// TestStreameventFailureIsRetriedFromTheRecord: the processor fails record
// 2 once; streamevent reports it, Poll delivers 2 and the rest again, and
// every record is processed once, in order.
func TestStreameventFailureIsRetriedFromTheRecord(t *testing.T) {
	db := newClient(t)
	tbl := newTable(t, db)
	for i := range 5 {
		put(t, db, tbl, fmt.Sprint(i), "v")
	}
	p := newProcessor("2")
	startPoll(t, db, tbl, TrimHorizon, 10, streamevent.New(p, testLog(t)))
	got := p.wait(t, 5)
	var processed []string
	for _, r := range got {
		processed = append(processed, strings.TrimPrefix(r.Keys["pk"].(*types.AttributeValueMemberS).Value, "ITEM#"))
	}
	if want := []string{"0", "1", "2", "3", "4"}; !slices.Equal(processed, want) {
		t.Errorf("processed %v; want %v", processed, want)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if want := []string{"0", "1", "2", "2", "3", "4"}; !slices.Equal(p.calls, want) {
		t.Errorf("calls %v; want %v (2 again after it failed, nothing after it before that)", p.calls, want)
	}
}

// diff names the attributes whose values differ between two images, ""
// when none does.
func diff(got, want map[string]types.AttributeValue) string {
	var out []string
	for k := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("%s: unexpected %#v", k, got[k]))
		}
	}
	for k, w := range want {
		g, ok := got[k]
		gm, gIsMap := g.(*types.AttributeValueMemberM)
		wm, wIsMap := w.(*types.AttributeValueMemberM)
		switch {
		case gIsMap && wIsMap:
			if d := diff(gm.Value, wm.Value); d != "" {
				out = append(out, fmt.Sprintf("%s.{%s}", k, d))
			}
		case !ok || !reflect.DeepEqual(g, w):
			out = append(out, fmt.Sprintf("%s: got %#v; want %#v", k, g, w))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
