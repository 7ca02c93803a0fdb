// Package queuelocal is an in-process stand-in for an Amazon SQS queue
// and its Lambda event source mapping, for the local stack (make dev) and
// tests: Send takes messages as the SQS adapter (shared/adapter/sqsqueue) sends
// them, and Run hands batches of them to a queue-triggered function's
// handler (shared/edge/queueevent's) as events.SQSEvent, decoded from JSON
// through aws-lambda-go's handler wrapper as the Lambda runtime delivers
// it, with the same contract:
//
//   - A message is visible after its delay; at most Concurrency batches
//     (the mapping's MaximumConcurrency) of at most BatchSize messages run
//     at once.
//   - Delivery is at least once. A message the handler reports in
//     BatchItemFailures, or every message of a batch whose handler failed
//     (an error or a panic), is visible again after Visibility; after
//     MaxReceives receives it goes to the dead-letter list (DeadLetters)
//     and is logged. The others are deleted.
//
// What it does differently: messages live in memory (a stopped stack
// loses them; the retrier is the safety net there too), there is no
// batching window, and ordering is by visibility time, then arrival.
// No Lambda function imports this package.
package queuelocal

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

// Options tune a Queue; zero fields take the defaults.
type Options struct {
	// BatchSize is the most messages a batch holds (default 10).
	BatchSize int
	// Concurrency is how many batches run at once (default 2).
	Concurrency int
	// Visibility is how long a failed message stays invisible (default
	// 30 s, SQS's default visibility timeout).
	Visibility time.Duration
	// MaxReceives is how often a message is received before it goes to
	// the dead-letter list (default 5).
	MaxReceives int
	Log         *slog.Logger
}

// Queue is one local queue.
type Queue struct {
	name string
	opts Options

	mu      sync.Mutex
	msgs    []*message
	dead    []string
	seq     int
	changed chan struct{} // closed and replaced when a message is added
}

type message struct {
	id, body  string
	visibleAt time.Time
	receives  int
	inFlight  bool
}

// New returns an empty queue called name.
func New(name string, opts Options) *Queue {
	if opts.BatchSize < 1 {
		opts.BatchSize = 10
	}
	if opts.Concurrency < 1 {
		opts.Concurrency = 2
	}
	if opts.Visibility <= 0 {
		opts.Visibility = 30 * time.Second
	}
	if opts.MaxReceives < 1 {
		opts.MaxReceives = 5
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Queue{name: name, opts: opts, changed: make(chan struct{})}
}

// Send adds each body as a message, visible after delay. It never fails.
func (q *Queue) Send(_ context.Context, bodies []string, delay time.Duration) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	at := time.Now().Add(max(delay, 0))
	for _, b := range bodies {
		q.seq++
		q.msgs = append(q.msgs, &message{id: fmt.Sprintf("local-%s-%d", q.name, q.seq), body: b, visibleAt: at})
	}
	close(q.changed)
	q.changed = make(chan struct{})
	return nil
}

// Len is how many messages the queue holds (in flight included).
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.msgs)
}

// DeadLetters returns the bodies of the messages given up on.
func (q *Queue) DeadLetters() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.dead...)
}

// Run hands batches to h until ctx ends, Concurrency at once; it returns
// nil then.
func (q *Queue) Run(ctx context.Context, h func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)) error {
	var wg sync.WaitGroup
	for range q.opts.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// An instance per worker: aws-lambda-go's handler encodes every
			// answer into one buffer of its own, as a Lambda instance
			// serves one batch at a time.
			invoke := lambda.NewHandler(h)
			for ctx.Err() == nil {
				batch, wait, changed := q.take()
				if len(batch) == 0 {
					t := time.NewTimer(wait)
					select {
					case <-ctx.Done():
					case <-changed:
					case <-t.C:
					}
					t.Stop()
					continue
				}
				q.settle(ctx, batch, q.invoke(ctx, invoke, batch))
			}
		}()
	}
	wg.Wait()
	return nil
}

// idle is the longest a worker sleeps with nothing visible.
const idle = time.Second

// take marks up to BatchSize visible messages in flight and returns them;
// with none, how long until one may be and the channel that a Send
// closes.
func (q *Queue) take() ([]*message, time.Duration, <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	wait := idle
	var batch []*message
	for _, m := range q.msgs {
		if m.inFlight {
			continue
		}
		if m.visibleAt.After(now) {
			wait = min(wait, m.visibleAt.Sub(now))
			continue
		}
		m.inFlight = true
		m.receives++
		batch = append(batch, m)
		if len(batch) == q.opts.BatchSize {
			break
		}
	}
	return batch, wait, q.changed
}

// invoke runs the handler on batch as Lambda would (JSON in and out) and
// returns the ids of the messages that failed.
func (q *Queue) invoke(ctx context.Context, h lambda.Handler, batch []*message) map[string]bool {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, len(batch))}
	all := map[string]bool{}
	for i, m := range batch {
		all[m.id] = true
		ev.Records[i] = events.SQSMessage{
			MessageId: m.id, ReceiptHandle: m.id + "-" + strconv.Itoa(m.receives), Body: m.body,
			Attributes: map[string]string{
				"ApproximateReceiveCount": strconv.Itoa(m.receives),
				"SentTimestamp":           strconv.FormatInt(m.visibleAt.UnixMilli(), 10),
			},
			EventSource: "aws:sqs", EventSourceARN: "arn:aws:sqs:local:000000000000:" + q.name, AWSRegion: "local",
		}
	}
	payload, _ := json.Marshal(ev) // strings and maps of strings always marshal
	out, err := h.Invoke(ctx, payload)
	if err != nil {
		q.opts.Log.ErrorContext(ctx, "local queue: batch failed", "queue", q.name, "messages", len(batch), "error", err.Error())
		return all
	}
	var resp events.SQSEventResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		return all
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		if !all[f.ItemIdentifier] {
			return all // as Lambda: an unknown identifier fails the batch
		}
		failed[f.ItemIdentifier] = true
	}
	return failed
}

// settle deletes the batch's messages that succeeded and makes the failed
// ones visible after Visibility, or dead letters after MaxReceives.
func (q *Queue) settle(ctx context.Context, batch []*message, failed map[string]bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	drop := map[*message]bool{}
	for _, m := range batch {
		m.inFlight = false
		switch {
		case !failed[m.id]:
			drop[m] = true
		case m.receives >= q.opts.MaxReceives:
			drop[m] = true
			q.dead = append(q.dead, m.body)
			q.opts.Log.ErrorContext(ctx, "local queue: message given up on", "queue", q.name, "message_id", m.id, "receives", m.receives)
		default:
			m.visibleAt = time.Now().Add(q.opts.Visibility)
		}
	}
	kept := q.msgs[:0]
	for _, m := range q.msgs {
		if !drop[m] {
			kept = append(kept, m)
		}
	}
	q.msgs = kept
}
