// Package queueevent is the SQS edge of the service: it turns a batch of
// queue messages (aws-lambda-go's events.SQSEvent, as Lambda delivers it
// to a function with an SQS trigger and as shared/local/queuelocal delivers it
// locally) into one call of a Processor per message, at most Parallel at
// once, and logs one JSON line per message (its id and receive count,
// never its body). Like shared/edge/streamevent for the table's stream, it only
// decodes and reports; the work lives in the feature package.
//
// # Partial batch failures
//
// Messages of a queue are independent, so every message of a batch is
// processed, concurrently, and the handler reports the ones that failed
// (events.SQSEventResponse.BatchItemFailures, the ReportBatchItemFailures
// response of the event source mapping). SQS deletes the others and makes
// the failed ones visible again after the queue's visibility timeout;
// after the queue's maxReceiveCount they go to its dead-letter queue. The
// handler never returns an error (that would retry the whole batch).
package queueevent

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Message is one queue message as a processor sees it.
type Message struct {
	// ID is SQS's message id.
	ID   string
	Body string
	// ReceiveCount is how many times the queue has handed it out, this
	// time included (1 the first time).
	ReceiveCount int
}

// Processor handles one message. A queue delivers every message at least
// once, so Process must be idempotent. An error means "try again later":
// the message comes back after the visibility timeout. A message that
// retrying cannot mend (malformed) must not be an error, or it would come
// back until the dead-letter queue takes it.
type Processor interface {
	Process(ctx context.Context, m Message) error
}

// Handler is the signature aws-lambda-go starts for SQS batches with
// partial batch failures reported.
type Handler func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// New returns the handler that runs p on every message of a batch, at
// most parallel at once (at least 1), logs one line per message to log
// (nil discards), and reports the messages p failed as the batch's item
// failures. It never returns an error.
func New(p Processor, parallel int, log *slog.Logger) Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	parallel = max(parallel, 1)
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var (
			mu     sync.Mutex
			failed []events.SQSBatchItemFailure
			wg     sync.WaitGroup
			sem    = make(chan struct{}, parallel)
		)
		for i, m := range ev.Records {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				start := time.Now()
				n, _ := strconv.Atoi(m.Attributes["ApproximateReceiveCount"])
				err := p.Process(ctx, Message{ID: m.MessageId, Body: m.Body, ReceiveCount: n})
				attrs := []slog.Attr{
					slog.String("message_id", m.MessageId), slog.Int("record", i), slog.Int("receive_count", n),
					slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
				}
				if err != nil {
					log.LogAttrs(ctx, slog.LevelError, "queue message failed", append(attrs, slog.String("error", err.Error()))...)
					mu.Lock()
					failed = append(failed, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
					mu.Unlock()
					return
				}
				log.LogAttrs(ctx, slog.LevelInfo, "queue message", attrs...)
			}()
		}
		wg.Wait()
		return events.SQSEventResponse{BatchItemFailures: failed}, nil
	}
}

// Start is every queue-triggered function's main: it builds the
// function's processor from the environment (awsenv.Load), checks the
// secrets it read against the manifest entry of slug, and hands the
// handler (its batch's messages processed concurrently) to lambda.Start.
// It exits 1 with one line on stderr when the wiring fails.
func Start(slug string, build func(*awsenv.Env) (Processor, error)) {
	awsenv.Run(Build(awsenv.Load, slug, build))
}

// Build is Start without the runtime (scripts/invoke, make dev, tests):
// the handler of the manifest's queue-triggered function slug, each batch
// processed with the trigger's BatchSize messages at once.
func Build(load func() (*awsenv.Env, error), slug string, build func(*awsenv.Env) (Processor, error)) (Handler, error) {
	return awsenv.BuildEdge(load, slug, manifest.TriggerQueue, "queue-triggered", build,
		func(f manifest.Function, p Processor, env *awsenv.Env) Handler {
			return New(p, f.Queue.BatchSize, env.Log)
		})
}
