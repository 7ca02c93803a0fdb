package streamlocal

import (
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// desc is a shard as DescribeStream lists it; closed ones have an ending
// sequence number.
func desc(id, parent string, closed bool) stypes.Shard {
	s := stypes.Shard{ShardId: aws.String(id), SequenceNumberRange: &stypes.SequenceNumberRange{StartingSequenceNumber: aws.String("1")}}
	if parent != "" {
		s.ParentShardId = aws.String(parent)
	}
	if closed {
		s.SequenceNumberRange.EndingSequenceNumber = aws.String("9")
	}
	return s
}

func readyIDs(p *poller) []string {
	var out []string
	for _, s := range p.ready() {
		out = append(out, s.id)
	}
	return out
}

// TestShardsAreReadParentsFirst: a shard is read only once its parent is
// done (or when the stream no longer lists its parent), so an item's
// changes, which move from a parent shard to a child, stay in order.
func TestShardsAreReadParentsFirst(t *testing.T) {
	p := &poller{from: TrimHorizon, shards: map[string]*shard{}}
	// a split into b and c; d's parent has aged out of the stream.
	p.add([]stypes.Shard{desc("a", "", true), desc("b", "a", false), desc("c", "a", false), desc("d", "gone", false)})
	if got := readyIDs(p); !slices.Equal(got, []string{"a", "d"}) {
		t.Fatalf("ready %v; want [a d]", got)
	}
	for _, s := range p.shards {
		if s.start != stypes.ShardIteratorTypeTrimHorizon {
			t.Errorf("shard %s starts at %s; want TRIM_HORIZON", s.id, s.start)
		}
	}
	p.shards["a"].done = true
	if got := readyIDs(p); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("after a is done, ready %v; want [b c d]", got)
	}
	// A later listing adds only the new child of b.
	p.add([]stypes.Shard{desc("a", "", true), desc("b", "a", true), desc("c", "a", false), desc("d", "gone", false), desc("e", "b", false)})
	if len(p.order) != 5 {
		t.Fatalf("%d shards known; want 5", len(p.order))
	}
	if got := readyIDs(p); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Errorf("ready %v; want [b c d] (e waits for b)", got)
	}
	p.shards["b"].done = true
	if got := readyIDs(p); !slices.Equal(got, []string{"c", "d", "e"}) {
		t.Errorf("after b is done, ready %v; want [c d e]", got)
	}
}

// TestLatestStartsAtTheNewestRecordOfOpenShards: at a Latest start, closed
// shards are skipped and open ones start at their newest record; shards
// that appear later start at their oldest.
func TestLatestStartsAtTheNewestRecordOfOpenShards(t *testing.T) {
	p := &poller{from: Latest, shards: map[string]*shard{}}
	p.add([]stypes.Shard{desc("a", "", true), desc("b", "a", false)})
	if !p.shards["a"].done {
		t.Error("closed shard a is not skipped")
	}
	if got := p.shards["b"].start; got != stypes.ShardIteratorTypeLatest {
		t.Errorf("open shard b starts at %s; want LATEST", got)
	}
	if got := readyIDs(p); !slices.Equal(got, []string{"b"}) {
		t.Errorf("ready %v; want [b]", got)
	}
	p.add([]stypes.Shard{desc("a", "", true), desc("b", "a", true), desc("c", "b", false)})
	if got := p.shards["c"].start; got != stypes.ShardIteratorTypeTrimHorizon {
		t.Errorf("later shard c starts at %s; want TRIM_HORIZON", got)
	}
}

func TestFirstFailed(t *testing.T) {
	recs := []stypes.Record{
		{Dynamodb: &stypes.StreamRecord{SequenceNumber: aws.String("100")}},
		{Dynamodb: &stypes.StreamRecord{SequenceNumber: aws.String("200")}},
		{Dynamodb: &stypes.StreamRecord{SequenceNumber: aws.String("300")}},
	}
	fail := func(ids ...string) events.DynamoDBEventResponse {
		var r events.DynamoDBEventResponse
		for _, id := range ids {
			r.BatchItemFailures = append(r.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: id})
		}
		return r
	}
	for _, tc := range []struct {
		name string
		resp events.DynamoDBEventResponse
		err  error
		want int
	}{
		{"success", events.DynamoDBEventResponse{}, nil, -1},
		{"empty failure list", events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}, nil, -1},
		{"error", fail("300"), errors.New("x"), 0},
		{"one failure", fail("200"), nil, 1},
		{"lowest of several", fail("300", "200"), nil, 1},
		{"unknown identifier", fail("200", "999"), nil, 0},
		{"empty identifier", fail(""), nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := firstFailed(recs, tc.resp, tc.err)
			if got != tc.want {
				t.Errorf("firstFailed = %d; want %d", got, tc.want)
			}
			if (got >= 0) != (why != nil) {
				t.Errorf("firstFailed = %d with reason %v; want a reason exactly when it fails", got, why)
			}
		})
	}
}
