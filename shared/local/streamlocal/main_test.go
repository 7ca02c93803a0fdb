package streamlocal

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// TestMain runs the package's tests against DynamoDB Local: the
// developer's running one when AWS_ENDPOINT_URL_DYNAMODB is set, else one
// started for this test binary.
func TestMain(m *testing.M) { dynamolocal.RunTests(m) }

var tableSeq atomic.Int64

// newClient returns a DynamoDB client for DynamoDB Local.
func newClient(t testing.TB) *dynamodb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatalf("load AWS config: %v", err)
	}
	return dynamodb.NewFromConfig(cfg)
}

// newTable creates fresh tables from the schema, the events table's
// stream on, and returns the streamed one's name; both are dropped when
// the test ends (after the Poll of startPoll, whose cleanup runs first).
func newTable(t testing.TB, db *dynamodb.Client) string {
	t.Helper()
	name := fmt.Sprintf("stream-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	if err := dynamo.CreateTablesWithStream(context.Background(), db, name); err != nil {
		t.Fatalf("create tables: %v", err)
	}
	t.Cleanup(func() { _ = dynamo.DeleteTables(context.Background(), db, name) })
	return table.EventsName(name)
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// key is the key of the test item named id.
func key(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": str("ITEM#" + id), "sk": str("A")}
}

// put writes the test item id with attribute v = value.
func put(t testing.TB, db *dynamodb.Client, table, id, value string) {
	t.Helper()
	item := key(id)
	item["v"] = str(value)
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
		t.Fatalf("put %s: %v", id, err)
	}
}

// batches is a handler's record of what it was given; behave decides its
// answer to each delivery (n counts deliveries from 1).
type batches struct {
	mu     sync.Mutex
	got    [][]events.DynamoDBEventRecord
	behave func(n int, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
	signal chan struct{}
}

func newBatches(behave func(int, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)) *batches {
	return &batches{behave: behave, signal: make(chan struct{}, 1)}
}

func (b *batches) handle(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	b.mu.Lock()
	b.got = append(b.got, ev.Records)
	n := len(b.got)
	b.mu.Unlock()
	defer func() {
		select {
		case b.signal <- struct{}{}:
		default:
		}
	}()
	if b.behave == nil {
		return events.DynamoDBEventResponse{}, nil
	}
	return b.behave(n, ev)
}

// snapshot returns the batches delivered so far.
func (b *batches) snapshot() [][]events.DynamoDBEventRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.got)
}

// waitFor waits until done holds for the batches delivered, or fails t
// after timeout.
func (b *batches) waitFor(t testing.TB, timeout time.Duration, what string, done func([][]events.DynamoDBEventRecord) bool) [][]events.DynamoDBEventRecord {
	t.Helper()
	deadline := time.After(timeout)
	for {
		got := b.snapshot()
		if done(got) {
			return got
		}
		select {
		case <-b.signal:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("after %v, still waiting for %s; batches: %s", timeout, what, dumpBatches(got))
		}
	}
}

// records counts the records of batches.
func records(got [][]events.DynamoDBEventRecord) int {
	n := 0
	for _, b := range got {
		n += len(b)
	}
	return n
}

// ids names the records of a batch by the item id in their key.
func ids(batch []events.DynamoDBEventRecord) []string {
	out := make([]string, 0, len(batch))
	for _, r := range batch {
		out = append(out, strings.TrimPrefix(r.Change.Keys["pk"].String(), "ITEM#"))
	}
	return out
}

func dumpBatches(got [][]events.DynamoDBEventRecord) string {
	var parts []string
	for _, b := range got {
		parts = append(parts, fmt.Sprint(ids(b)))
	}
	return strings.Join(parts, " ")
}

// poll is a running Poll.
type poll struct {
	cancel context.CancelFunc
	done   chan error
}

// startPoll runs Poll on table in the background until the test ends (or
// stop), with a short idle interval and backoff.
func startPoll(t testing.TB, db *dynamodb.Client, table string, from Position, batchSize int,
	h func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error), opts ...Option) *poll {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &poll{cancel: cancel, done: make(chan error, 1)}
	opts = append([]Option{IdleInterval(20 * time.Millisecond), RetryBackoff(10*time.Millisecond, 100*time.Millisecond)}, opts...)
	log := testLog(t)
	go func() { p.done <- Poll(ctx, db, StreamsClient(db), table, from, batchSize, h, log, opts...) }()
	t.Cleanup(func() {
		if err := p.stop(t, 5*time.Second); err != nil {
			t.Errorf("Poll: %v", err)
		}
	})
	return p
}

// stop cancels Poll and returns what it returned, failing t if it takes
// longer than within.
func (p *poll) stop(t testing.TB, within time.Duration) error {
	t.Helper()
	p.cancel()
	select {
	case err := <-p.done:
		p.done <- err // a second stop (the cleanup) gets it again
		return err
	case <-time.After(within):
		t.Fatalf("Poll did not return within %v of its context's end", within)
		return nil
	}
}

// streamARN is the table's stream's ARN.
func streamARN(t testing.TB, db *dynamodb.Client, table string) string {
	t.Helper()
	out, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Table.LatestStreamArn)
}

// testLog returns a logger whose lines t prints if it fails.
func testLog(t testing.TB) *slog.Logger {
	t.Helper()
	w := &lockedBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Poll's log:\n%s", w.String())
		}
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
