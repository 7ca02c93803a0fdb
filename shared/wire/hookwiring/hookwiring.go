// The builders of the outgoing webhooks' functions (webhook-dispatcher,
// webhook-sender, webhook-retrier) and their adapters: the table's stream
// records to the delivery service, the attempts queue (shared/adapter/sqsqueue) to
// its Handoff and the queue's messages to its Deliver, the schedule's
// ticks to its retries, shared/adapter/webhookhttp to its Sender.

package hookwiring

import (
	"context"
	"log/slog"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/adapter/sqsqueue"
	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/app/webhooks"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/edge/queueevent"
	"github.com/moveleads/partnerapi/shared/edge/schedule"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// WebhookService returns the delivery service over e: the table, the sealing key
// (manifest.SecretWebhookSealing, read on first use), a webhookhttp client
// that lets test-mode deliveries reach loopback only when
// settings.WebhookAllowLoopback is "1" (make dev; never deployed), and
// the attempts queue q (nil: none, every attempt is the retrier's).
func WebhookService(e *awsenv.Env, q WebhookQueue) *webhooks.Service {
	client := webhookhttp.New(webhookhttp.Options{
		Timeout:       webhook.AttemptTimeout,
		AllowLoopback: e.Getenv(settings.WebhookAllowLoopback) == "1",
	})
	var h webhooks.Handoff
	if q != nil {
		h = Handoff{q}
	}
	return webhooks.New(webhooks.Deps{
		Store: e.Store, Sender: WebhookSender{client}, Sign: webhookhttp.Sign,
		Sealer:  webhook.SealerFrom(e.Secret(manifest.SecretWebhookSealing)),
		Log:     e.Log,
		Handoff: h,
	})
}

// WebhookQueue is the webhook attempts queue: shared/adapter/sqsqueue in AWS,
// shared/local/queuelocal in make dev and tests.
type WebhookQueue interface {
	Send(ctx context.Context, bodies []string, delay time.Duration) error
}

// Handoff adapts a WebhookQueue to webhooks.Handoff: one message per ref.
type Handoff struct{ Q WebhookQueue }

func (h Handoff) Send(ctx context.Context, refs []webhook.Ref, delay time.Duration) error {
	bodies := make([]string, len(refs))
	for i, r := range refs {
		bodies[i] = r.Body()
	}
	return h.Q.Send(ctx, bodies, delay)
}

// queueOf is the attempts queue settings.WebhookQueueURL names (SQS, at
// AWS_ENDPOINT_URL_SQS when set), or nil when it is unset.
func queueOf(e *awsenv.Env) WebhookQueue {
	url := e.Getenv(settings.WebhookQueueURL)
	if url == "" {
		return nil
	}
	return sqsqueue.New(e.Config, awsenv.Endpoint(e.Getenv, "SQS"), url)
}

// Dispatcher builds the webhook-dispatcher function's processor, handing
// deliveries to the queue settings.WebhookQueueURL names.
func Dispatcher(e *awsenv.Env) (streamevent.Processor, error) {
	return DispatcherWith(e, queueOf(e))
}

// DispatcherWith is Dispatcher handing deliveries to q (make dev, tests).
func DispatcherWith(e *awsenv.Env, q WebhookQueue) (streamevent.Processor, error) {
	return NewDispatcher(WebhookService(e, q), e.Log), nil
}

// Attempts builds the webhook-sender function's processor: each message
// of the attempts queue is one delivery's attempt; a second attempt due
// within seconds goes back to the queue settings.WebhookQueueURL names.
func Attempts(e *awsenv.Env) (queueevent.Processor, error) {
	return AttemptsWith(e, queueOf(e))
}

// AttemptsWith is Attempts with q as the attempts queue (make dev, tests).
func AttemptsWith(e *awsenv.Env, q WebhookQueue) (queueevent.Processor, error) {
	return attempter{WebhookService(e, q), e.Log}, nil
}

// attempter makes the attempt each queue message names.
type attempter struct {
	svc *webhooks.Service
	log *slog.Logger
}

// Process makes the attempt m names (webhooks.Deliver). A malformed
// message is logged and dropped, not failed: retrying cannot mend it.
func (a attempter) Process(ctx context.Context, m queueevent.Message) error {
	r, err := webhook.ParseRef(m.Body)
	if err != nil {
		a.log.ErrorContext(ctx, "malformed webhook attempt message dropped", "message_id", m.ID, "error", err.Error())
		return nil
	}
	return a.svc.Deliver(ctx, r)
}

// Retrier builds the webhook-retrier function's job.
func Retrier(e *awsenv.Env) (schedule.Job, error) {
	return NewRetrier(WebhookService(e, nil)), nil
}

// WebhookSender adapts a webhookhttp.Client to webhooks.Sender.
type WebhookSender struct{ C *webhookhttp.Client }

func (s WebhookSender) Post(ctx context.Context, url string, live bool, headers map[string]string, body []byte) (webhooks.Response, error) {
	r, err := s.C.Post(ctx, url, live, headers, body)
	return webhooks.Response{Status: r.Status, Body: r.Body, Latency: r.Latency}, err
}

// dispatcher hands each event item the stream inserts to Fanout, which
// writes its deliveries and hands them to the attempts queue.
type dispatcher struct {
	svc *webhooks.Service
	log *slog.Logger
}

// NewDispatcher returns the stream processor over svc; log (nil discards)
// gets a line for each malformed event item.
func NewDispatcher(svc *webhooks.Service, log *slog.Logger) streamevent.Processor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return dispatcher{svc, log}
}

// Process fans out the event of an INSERT of an event item, and ignores
// every other record (the stack's filter lets only those through; the
// local poller delivers all). A malformed event item is logged and
// skipped, not failed: retrying cannot mend it, and a failed record would
// hold up its shard until the stream drops it.
func (d dispatcher) Process(ctx context.Context, r streamevent.Record) error {
	if r.EventName != streamevent.Insert {
		return nil
	}
	t, e, ok, err := dynamo.EventFromImage(r.NewImage)
	if err != nil {
		d.log.ErrorContext(ctx, "malformed webhook event item skipped", "sequence_number", r.SequenceNumber, "error", err.Error())
		return nil
	}
	if !ok {
		return nil
	}
	return d.svc.Fanout(ctx, t, e)
}

// retrier makes the due attempts at each tick.
type retrier struct{ svc *webhooks.Service }

// NewRetrier returns the schedule's job over svc.
func NewRetrier(svc *webhooks.Service) schedule.Job { return retrier{svc} }

// batch is how many due deliveries one RetryDue pass takes: three rounds
// of webhooks.Parallel attempts, so a pass whose endpoints all time out
// lasts about 3 × webhook.AttemptTimeout (30 s).
const batch = 3 * webhooks.Parallel

// reserve is the time a pass needs left before the invocation's deadline
// (the stack gives the retrier 60 s): its worst case, and a margin.
const reserve = 3*webhook.AttemptTimeout + 5*time.Second

// Run attempts due deliveries in passes of batch until a pass finds fewer
// than batch, makes no attempt (others hold the claims), or the
// invocation's deadline is near; what is left waits for the next tick. It
// reports the first pass's figures: how overdue the most overdue delivery
// was and how many were due.
func (r retrier) Run(ctx context.Context) ([]schedule.Metric, error) {
	var first webhooks.Report
	for pass := 0; ; pass++ {
		rep, err := r.svc.RetryDue(ctx, batch)
		if err != nil {
			return nil, err
		}
		if pass == 0 {
			first = rep
		}
		if rep.Due < batch || rep.Attempted == 0 {
			break
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < reserve {
			break
		}
	}
	return []schedule.Metric{
		{Name: manifest.MetricWebhookMostOverdue, Unit: "Seconds", Value: first.MostOverdue.Seconds()},
		{Name: manifest.MetricWebhookDue, Unit: "Count", Value: float64(first.Due)},
	}, nil
}
