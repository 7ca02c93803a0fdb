// Package hookwiring holds the builders of the outgoing webhooks'
// functions (webhook-dispatcher, webhook-retrier) and their adapters: the
// table's stream records to the delivery service, the schedule's ticks to
// its retries, shared/safehttp to its Sender. Apart from shared/wiring so
// that only these functions link the HTTP client that calls partners'
// endpoints and the Standard Webhooks library.
package hookwiring

import (
	"context"
	"log/slog"
	"time"

	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/safehttp"
	"github.com/moveleads/partnerapi/shared/settings"
	"github.com/moveleads/partnerapi/shared/streamevent"
	"github.com/moveleads/partnerapi/shared/tick"
	"github.com/moveleads/partnerapi/shared/webhook"
	"github.com/moveleads/partnerapi/shared/webhooks"
	"github.com/moveleads/partnerapi/shared/webhooksign"
)

// Service returns the delivery service over e: the table, the sealing key
// (manifest.SecretWebhookSealing, read on first use), and a safehttp client
// that lets test-mode deliveries reach loopback only when
// settings.WebhookAllowLoopback is "1" (make dev; never deployed).
func Service(e *awsenv.Env) *webhooks.Service {
	client := safehttp.New(safehttp.Options{
		Timeout:       webhook.AttemptTimeout,
		AllowLoopback: e.Getenv(settings.WebhookAllowLoopback) == "1",
	})
	return webhooks.New(webhooks.Deps{
		Store: e.Store, Sender: Sender{client}, Sign: webhooksign.Sign,
		Sealer: webhook.SealerFrom(e.Secret(manifest.SecretWebhookSealing)),
		Log:    e.Log,
	})
}

// Dispatcher builds the webhook-dispatcher function's processor.
func Dispatcher(e *awsenv.Env) (streamevent.Processor, error) {
	return NewDispatcher(Service(e), e.Log), nil
}

// Retrier builds the webhook-retrier function's job.
func Retrier(e *awsenv.Env) (tick.Job, error) {
	return NewRetrier(Service(e)), nil
}

// Sender adapts a safehttp.Client to webhooks.Sender.
type Sender struct{ C *safehttp.Client }

func (s Sender) Post(ctx context.Context, url string, live bool, headers map[string]string, body []byte) (webhooks.Response, error) {
	r, err := s.C.Post(ctx, url, live, headers, body)
	return webhooks.Response{Status: r.Status, Body: r.Body, Latency: r.Latency}, err
}

// dispatcher hands each event item the stream inserts to Fanout.
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
func NewRetrier(svc *webhooks.Service) tick.Job { return retrier{svc} }

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
func (r retrier) Run(ctx context.Context) ([]tick.Metric, error) {
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
	return []tick.Metric{
		{Name: manifest.MetricWebhookMostOverdue, Unit: "Seconds", Value: first.MostOverdue.Seconds()},
		{Name: manifest.MetricWebhookDue, Unit: "Count", Value: float64(first.Due)},
	}, nil
}
