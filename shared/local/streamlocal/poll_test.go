package streamlocal

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// seqLess orders sequence numbers: decimals of different lengths.
func seqLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

func flatten(got [][]events.DynamoDBEventRecord) []events.DynamoDBEventRecord {
	var out []events.DynamoDBEventRecord
	for _, b := range got {
		out = append(out, b...)
	}
	return out
}

// value is the v attribute of an image, "" when the image is absent.
func value(img map[string]events.DynamoDBAttributeValue) string {
	if img == nil {
		return ""
	}
	return img["v"].String()
}

func TestDeliversChangesInOrderWithImages(t *testing.T) {
	db := newClient(t)
	tbl := newTable(t, db)
	b := newBatches(nil)
	start := time.Now()
	startPoll(t, db, tbl, TrimHorizon, 100, b.handle)
	ctx := context.Background()
	put(t, db, tbl, "a", "1")
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &tbl, Key: key("a"), UpdateExpression: aws.String("SET v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": str("2")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &tbl, Key: key("a")}); err != nil {
		t.Fatal(err)
	}
	put(t, db, tbl, "b", "x")
	recs := flatten(b.waitFor(t, 10*time.Second, "4 records", func(g [][]events.DynamoDBEventRecord) bool { return records(g) >= 4 }))

	want := []struct{ event, id, newV, oldV string }{
		{"INSERT", "a", "1", ""},
		{"MODIFY", "a", "2", "1"},
		{"REMOVE", "a", "", "2"},
		{"INSERT", "b", "x", ""},
	}
	if len(recs) != len(want) {
		t.Fatalf("got %d records; want %d", len(recs), len(want))
	}
	arn := streamARN(t, db, tbl)
	seen := map[string]bool{}
	for i, w := range want {
		r := recs[i]
		got := struct{ event, id, newV, oldV string }{r.EventName, ids(recs[i : i+1])[0], value(r.Change.NewImage), value(r.Change.OldImage)}
		if got != w {
			t.Errorf("record %d = %+v; want %+v", i, got, w)
		}
		if (w.newV == "") != (r.Change.NewImage == nil) || (w.oldV == "") != (r.Change.OldImage == nil) {
			t.Errorf("record %d: images present new=%v old=%v; want new=%v old=%v", i,
				r.Change.NewImage != nil, r.Change.OldImage != nil, w.newV != "", w.oldV != "")
		}
		if k := r.Change.Keys; len(k) != 2 || k[table.SK].String() != "A" {
			t.Errorf("record %d: keys %v; want pk and sk", i, k)
		}
		if r.EventSourceArn != arn || r.EventSource != "aws:dynamodb" || r.EventVersion == "" || r.AWSRegion == "" {
			t.Errorf("record %d: eventSourceARN %q eventSource %q eventVersion %q awsRegion %q; want %s, aws:dynamodb and non-empty",
				i, r.EventSourceArn, r.EventSource, r.EventVersion, r.AWSRegion, arn)
		}
		if r.Change.StreamViewType != table.StreamView || r.Change.SizeBytes <= 0 {
			t.Errorf("record %d: StreamViewType %q SizeBytes %d; want %s and > 0", i, r.Change.StreamViewType, r.Change.SizeBytes, table.StreamView)
		}
		if r.EventID == "" || seen[r.EventID] {
			t.Errorf("record %d: eventID %q is empty or repeated", i, r.EventID)
		}
		seen[r.EventID] = true
		if i > 0 && !seqLess(recs[i-1].Change.SequenceNumber, r.Change.SequenceNumber) {
			t.Errorf("record %d: sequence number %s does not follow %s", i, r.Change.SequenceNumber, recs[i-1].Change.SequenceNumber)
		}
		// DynamoDB Local rounds the time down to the minute; Lambda's
		// events carry whole seconds.
		at := r.Change.ApproximateCreationDateTime.Time
		if at.Before(start.Add(-time.Minute-time.Second)) || at.After(time.Now()) || at.Nanosecond() != 0 {
			t.Errorf("record %d: ApproximateCreationDateTime %v; want whole seconds within the minute before %v", i, at, start)
		}
	}
}

func TestBatchesHoldAtMostBatchSizeInOrder(t *testing.T) {
	db := newClient(t)
	tbl := newTable(t, db)
	var want []string
	for i := range 7 {
		put(t, db, tbl, fmt.Sprint(i), "v")
		want = append(want, fmt.Sprint(i))
	}
	b := newBatches(nil)
	startPoll(t, db, tbl, TrimHorizon, 3, b.handle)
	got := b.waitFor(t, 10*time.Second, "7 records", func(g [][]events.DynamoDBEventRecord) bool { return records(g) >= 7 })
	var sizes []int
	for _, batch := range got {
		sizes = append(sizes, len(batch))
	}
	if !slices.Equal(sizes, []int{3, 3, 1}) {
		t.Errorf("batch sizes %v; want [3 3 1]", sizes)
	}
	if all := ids(flatten(got)); !slices.Equal(all, want) {
		t.Errorf("records %v; want %v", all, want)
	}
}

// failures reports the given records of a batch (by item id) as failed.
func failures(ev events.DynamoDBEvent, ids ...string) events.DynamoDBEventResponse {
	var resp events.DynamoDBEventResponse
	for _, id := range ids {
		for _, r := range ev.Records {
			if r.Change.Keys["pk"].String() == "ITEM#"+id {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
			}
		}
	}
	return resp
}

// TestFailedBatchIsDeliveredAgainAsLambdaWould: six records in one batch,
// the first delivery fails in each of the ways a handler can fail; the
// second delivery starts where Lambda's would, and nothing is lost.
func TestFailedBatchIsDeliveredAgainAsLambdaWould(t *testing.T) {
	all := []string{"0", "1", "2", "3", "4", "5"}
	fromTwo := []string{"2", "3", "4", "5"}
	for _, tc := range []struct {
		name  string
		first func(ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
		again []string
	}{
		{"item failure", func(ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return failures(ev, "2"), nil
		}, fromTwo},
		{"item failures: from the lowest", func(ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return failures(ev, "4", "2"), nil
		}, fromTwo},
		{"item failure of the last record", func(ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return failures(ev, "5"), nil
		}, []string{"5"}},
		{"error", func(events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return events.DynamoDBEventResponse{}, errors.New("boom")
		}, all},
		{"panic", func(events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			panic("boom")
		}, all},
		{"identifier of no record", func(events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: "42"}}}, nil
		}, all},
		{"empty identifier", func(events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{}}}, nil
		}, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newClient(t)
			tbl := newTable(t, db)
			for _, id := range all {
				put(t, db, tbl, id, "v")
			}
			b := newBatches(func(n int, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				if n == 1 {
					return tc.first(ev)
				}
				return events.DynamoDBEventResponse{}, nil
			})
			startPoll(t, db, tbl, TrimHorizon, 10, b.handle)
			b.waitFor(t, 10*time.Second, "a second delivery", func(g [][]events.DynamoDBEventRecord) bool { return len(g) >= 2 })
			time.Sleep(200 * time.Millisecond) // a third delivery would come by now
			got := b.snapshot()
			if len(got) != 2 || !slices.Equal(ids(got[0]), all) || !slices.Equal(ids(got[1]), tc.again) {
				t.Errorf("batches %s; want %v then %v", dumpBatches(got), all, tc.again)
			}
		})
	}
}

// TestFailingRecordHoldsBackLaterOnes: a handler that processes records in
// order and reports the first failure (as shared/edge/streamevent does) sees
// record 2 fail three times while more records are written; every record
// is processed exactly once, in write order, and the retries back off.
func TestFailingRecordHoldsBackLaterOnes(t *testing.T) {
	db := newClient(t)
	tbl := newTable(t, db)
	for i := range 4 {
		put(t, db, tbl, fmt.Sprint(i), "v")
	}
	var mu sync.Mutex // guards processed and failedAt
	var processed []string
	var failedAt []time.Time
	b := newBatches(func(_ int, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range ev.Records {
			id := ids([]events.DynamoDBEventRecord{r})[0]
			if id == "2" && len(failedAt) < 3 {
				failedAt = append(failedAt, time.Now())
				return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: r.Change.SequenceNumber}}}, nil
			}
			processed = append(processed, id)
		}
		return events.DynamoDBEventResponse{}, nil
	})
	startPoll(t, db, tbl, TrimHorizon, 10, b.handle, RetryBackoff(50*time.Millisecond, time.Second))
	b.waitFor(t, 10*time.Second, "the first failure", func(g [][]events.DynamoDBEventRecord) bool { return len(g) >= 1 })
	put(t, db, tbl, "4", "v")
	put(t, db, tbl, "5", "v")
	b.waitFor(t, 10*time.Second, "every record processed", func([][]events.DynamoDBEventRecord) bool {
		mu.Lock()
		defer mu.Unlock()
		return len(processed) >= 6
	})
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"0", "1", "2", "3", "4", "5"}; !slices.Equal(processed, want) {
		t.Errorf("processed %v; want %v, each once, in order", processed, want)
	}
	if len(failedAt) != 3 {
		t.Fatalf("record 2 failed %d times; want 3", len(failedAt))
	}
	// Backoff 50 ms, then 100 ms.
	for i, want := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond} {
		if gap := failedAt[i+1].Sub(failedAt[i]); gap < want {
			t.Errorf("retry %d came %v after the failure; want at least %v", i+1, gap, want)
		}
	}
}

func TestLatestSkipsEarlierRecords(t *testing.T) {
	db := newClient(t)
	tbl := newTable(t, db)
	put(t, db, tbl, "before", "v")
	b := newBatches(nil)
	startPoll(t, db, tbl, Latest, 10, b.handle)
	// Poll reads the shard's newest position some time after it starts:
	// write markers until one arrives.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; records(b.snapshot()) == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatal("no marker arrived within 10 s")
		}
		put(t, db, tbl, fmt.Sprint("marker", i), "v")
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	for _, id := range ids(flatten(b.snapshot())) {
		if !strings.HasPrefix(id, "marker") {
			t.Errorf("got record %q, written before Poll started at Latest", id)
		}
	}
}

func TestCancelStopsPollPromptly(t *testing.T) {
	const within = time.Second
	t.Run("idle", func(t *testing.T) {
		db := newClient(t)
		tbl := newTable(t, db)
		b := newBatches(nil)
		p := startPoll(t, db, tbl, TrimHorizon, 10, b.handle, IdleInterval(time.Minute))
		put(t, db, tbl, "a", "v")
		time.Sleep(300 * time.Millisecond)
		if err := p.stop(t, within); err != nil {
			t.Errorf("Poll = %v; want nil once its context ends", err)
		}
	})
	t.Run("waiting to retry", func(t *testing.T) {
		db := newClient(t)
		tbl := newTable(t, db)
		put(t, db, tbl, "a", "v")
		b := newBatches(func(int, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return events.DynamoDBEventResponse{}, errors.New("down")
		})
		p := startPoll(t, db, tbl, TrimHorizon, 10, b.handle, RetryBackoff(time.Minute, time.Minute))
		b.waitFor(t, 10*time.Second, "a delivery", func(g [][]events.DynamoDBEventRecord) bool { return len(g) >= 1 })
		if err := p.stop(t, within); err != nil {
			t.Errorf("Poll = %v; want nil once its context ends", err)
		}
	})
	t.Run("in the handler", func(t *testing.T) {
		db := newClient(t)
		tbl := newTable(t, db)
		put(t, db, tbl, "a", "v")
		entered := make(chan struct{})
		p := startPoll(t, db, tbl, TrimHorizon, 10, func(ctx context.Context, _ events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			close(entered)
			<-ctx.Done()
			return events.DynamoDBEventResponse{}, ctx.Err()
		})
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the handler was not called")
		}
		if err := p.stop(t, within); err != nil {
			t.Errorf("Poll = %v; want nil once its context ends", err)
		}
	})
}

func TestPollRefuses(t *testing.T) {
	db := newClient(t)
	tbl := newTable(t, db)
	noStream := fmt.Sprintf("nostream-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	in := dynamo.CreateTableInput(noStream)
	in.StreamSpecification = nil
	if _, err := db.CreateTable(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &noStream}) })
	ok := newBatches(nil).handle
	for _, tc := range []struct {
		name, table string
		from        Position
		batch       int
		handler     func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
		want        string
	}{
		{"no such table", "no-such-table", TrimHorizon, 10, ok, "describe table no-such-table"},
		{"table without a stream", noStream, TrimHorizon, 10, ok, "has no stream"},
		{"unknown position", tbl, "AT_TIMESTAMP", 10, ok, "position"},
		{"batch size 0", tbl, TrimHorizon, 0, ok, "batch size"},
		{"batch size over the maximum", tbl, TrimHorizon, MaxBatchSize + 1, ok, "batch size"},
		{"no handler", tbl, TrimHorizon, 10, nil, "no handler"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := Poll(ctx, db, StreamsClient(db), tc.table, tc.from, tc.batch, tc.handler, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Poll = %v; want an error with %q", err, tc.want)
			}
		})
	}
}

// TestClosedShardIsReadToItsEnd: turning the stream off closes its shard;
// Poll delivers what it held, finds no child, and goes on waiting for
// one without failing.
func TestClosedShardIsReadToItsEnd(t *testing.T) {
	db := newClient(t)
	tbl := newTable(t, db)
	b := newBatches(nil)
	p := startPoll(t, db, tbl, TrimHorizon, 10, b.handle)
	put(t, db, tbl, "a", "v")
	b.waitFor(t, 10*time.Second, "record a", func(g [][]events.DynamoDBEventRecord) bool { return records(g) >= 1 })
	put(t, db, tbl, "b", "v")
	_, err := db.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
		TableName: &tbl, StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)},
	})
	if err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, 10*time.Second, "record b", func(g [][]events.DynamoDBEventRecord) bool { return records(g) >= 2 })
	select {
	case err := <-p.done:
		t.Fatalf("Poll returned %v after its shard closed; want it to go on", err)
	case <-time.After(describeInterval + 500*time.Millisecond):
	}
	if got := ids(flatten(b.snapshot())); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("records %v; want [a b]", got)
	}
}
