package webhooks

import (
	"context"
	"errors"
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Handoff hands deliveries' next attempts to the workers that make them
// (Deliver): the webhook attempts queue (SQS in AWS, shared/local/queuelocal
// locally), each ref one message, visible after delay. It may deliver a
// message more than once. An error may have sent some of them; nothing is
// lost either way, since the deliveries are pending and RetryDue attempts
// them once due.
type Handoff interface {
	Send(ctx context.Context, refs []webhook.Ref, delay time.Duration) error
}

// handoff sends refs after delay through Deps.Handoff, if any, and logs a
// failure (RetryDue is the safety net).
func (s *Service) handoff(ctx context.Context, refs []webhook.Ref, delay time.Duration) {
	if s.d.Handoff == nil || len(refs) == 0 {
		return
	}
	if err := s.d.Handoff.Send(ctx, refs, delay); err != nil {
		ids := make([]string, len(refs))
		for i, r := range refs {
			ids[i] = r.ID()
		}
		s.d.Log.WarnContext(ctx, "webhook hand-off failed; the retrier attempts them once due", "webhook_ids", ids, "error", err.Error())
	}
}

// Deliver makes the attempt that queue message r names, when it is still
// the delivery's next one: the delivery is pending, has made r.Attempts
// attempts and is due. A message that is stale (the delivery moved on, or
// another worker claimed it first), or names no delivery (one expired
// from the table), is dropped (nil). A delivery due within InProcess (the schedule's 5 s after a
// failed first attempt, or a message early) is handed back with that
// delay; a later one is RetryDue's. An error means r may be tried again
// (a storage failure): the message should come back.
func (s *Service) Deliver(ctx context.Context, r webhook.Ref) error {
	cur, err := s.d.Store.GetDelivery(ctx, r.EndpointID, webhook.Event{ID: r.EventID, At: r.EventAt})
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		s.d.Log.InfoContext(ctx, "webhook queue message names no delivery; dropped", "endpoint_id", r.EndpointID, "webhook_id", r.ID())
		return nil
	}
	if err != nil {
		return err
	}
	if cur.Status != webhook.Pending || cur.Attempts != r.Attempts {
		return nil
	}
	if wait := cur.NextAt.Sub(s.d.Clock.Now()); wait > 0 {
		if wait <= InProcess {
			s.handoff(ctx, []webhook.Ref{r}, wait)
		}
		return nil
	}
	next, err := s.Attempt(ctx, cur)
	if errors.Is(err, record.ErrChanged) {
		return nil
	}
	if err != nil {
		return err
	}
	if next.Status == webhook.Pending {
		if wait := next.NextAt.Sub(s.d.Clock.Now()); wait <= InProcess {
			s.handoff(ctx, []webhook.Ref{webhook.RefOf(next)}, max(wait, 0))
		}
	}
	return nil
}
