// Package webhooks is the outgoing webhooks' service: it fans an owed
// event out to the endpoints of its partner and mode (one delivery each),
// makes each delivery's attempts on the Standard Webhooks schedule, signs
// them with the endpoint's secrets, logs each attempt, and disables an
// endpoint that has failed every attempt for five days. It is plain Go:
// storage is the Store interface (shared/adapter/dynamo), sending the Sender
// (shared/adapter/webhookhttp, adapted in shared/wire/hookwiring), signing
// Deps.Sign (shared/adapter/webhookhttp too), time the Clock, so tests run
// the whole schedule in seconds.
//
// Never lost: an event is written with the state change that owes it
// (shared/adapter/dynamo AdvanceSurvey); the table's stream hands it to Fanout,
// which is retried until it returns (a stream record is retried until its
// handler succeeds). Fanout writes every delivery, pending and due at
// once, and hands them to a queue (Handoff) whose workers attempt each
// (Deliver), so no endpoint holds up the stream; an attempt is claimed
// under a lease before sending and recorded after. A crash anywhere, or a
// lost queue message, leaves either the stream record to retry or a
// pending delivery that RetryDue attempts once due (or once its claim's
// lease ended): at least once, always with the same webhook-id. A
// duplicate message sends nothing: it names the attempt count it was sent
// at, and a delivery that has moved on skips it.
package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Store is the storage the service needs (shared/adapter/dynamo's Store).
type Store interface {
	TenantEndpoints(ctx context.Context, t auth.Tenant) ([]webhook.Endpoint, error)
	GetEndpoint(ctx context.Context, id string) (webhook.Endpoint, error)
	UpdateEndpoint(ctx context.Context, e webhook.Endpoint, audits ...audit.Entry) error
	CreateDelivery(ctx context.Context, d webhook.Delivery) (bool, error)
	GetDelivery(ctx context.Context, endpointID string, e webhook.Event) (webhook.Delivery, error)
	ClaimAttempt(ctx context.Context, d webhook.Delivery, now time.Time, lease time.Duration) (webhook.Delivery, error)
	FinishAttempt(ctx context.Context, d webhook.Delivery, a webhook.Attempt, next time.Time) (webhook.Delivery, error)
	DueDeliveries(ctx context.Context, now time.Time, limit int) ([]webhook.Delivery, error)
}

// Response is an endpoint's answer: its status, the first KiB of its body
// and how long it took.
type Response struct {
	Status  int
	Body    []byte
	Latency time.Duration
}

// Sender posts a signed delivery: live deliveries only to https and never
// to a loopback, private, link-local or metadata address; an answer that
// is not 2xx is a Response, not an error; no answer within
// webhook.AttemptTimeout, a refused address or a refused connection is an
// error.
type Sender interface {
	Post(ctx context.Context, url string, live bool, headers map[string]string, body []byte) (Response, error)
}

// Clock is the service's time: tests run the schedule on a fake one.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Deps is what a Service needs.
type Deps struct {
	Store  Store
	Sender Sender
	// Sign signs a payload with the Standard Webhooks library
	// (webhookhttp.Sign): the headers of a delivery.
	Sign func(secrets []string, id string, sentAt time.Time, payload []byte) (map[string]string, error)
	// Sealer returns the sealer that opens endpoints' signing secrets; its
	// key is a secret read on first use (webhook.SealerFrom), never at init.
	Sealer func(context.Context) (*webhook.Sealer, error)
	Clock  Clock
	// Rand returns a number in [0, 1) for the schedule's jitter; nil is
	// math/rand/v2.
	Rand func() float64
	Log  *slog.Logger
	// Handoff hands the deliveries Fanout wrote, and the next attempts
	// Deliver schedules within InProcess, to the attempts' workers; nil
	// leaves them all to RetryDue.
	Handoff Handoff
	// Fault, when set, is called at each step of a delivery with the
	// step's name; an error it returns stops the delivery there, as a
	// crash would (tests).
	Fault func(step string) error
}

// Service delivers webhook events.
type Service struct{ d Deps }

// New returns the service over d.
func New(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = RealClock{}
	}
	if d.Rand == nil {
		d.Rand = rand.Float64
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Fault == nil {
		d.Fault = func(string) error { return nil }
	}
	return &Service{d: d}
}

// Lease is how long a claimed attempt is not due again: longer than an
// attempt can take, so a live attempt is never doubled, and short enough
// that a crashed one is soon retried.
const Lease = webhook.AttemptTimeout + 20*time.Second

// InProcess is the longest wait before a next attempt that Deliver hands
// back to the queue with a delay (the schedule's 5 s); longer waits are
// the retrier's (RetryDue).
const InProcess = 10 * time.Second

// The steps a Fault hook sees.
const (
	StepFanout  = "fanout"   // after listing endpoints, before any delivery is written
	StepCreated = "created"  // after a delivery is written, before its first attempt
	StepHandoff = "handoff"  // after every delivery is written, before they are handed off
	StepClaimed = "claimed"  // after an attempt is claimed, before it is sent
	StepSent    = "sent"     // after an attempt is sent, before it is recorded
	StepFinish  = "finished" // after an attempt is recorded
)

// Fanout hands event e of tenant t to each of t's endpoints that receives
// its type (or to e.Endpoint alone, when set): it writes every delivery
// (Enqueue), pending and due, then hands them to the attempts' workers
// (Deps.Handoff) and returns, without waiting for any endpoint: a slow or
// failing endpoint delays only its own deliveries. A failed hand-off is
// logged, not returned: the deliveries are written and due, and RetryDue
// attempts them. An error means the event may not be safely handed off
// yet (retry Fanout): every delivery that was written stays pending and
// due.
func (s *Service) Fanout(ctx context.Context, t auth.Tenant, e webhook.Event) error {
	owed, err := s.Enqueue(ctx, t, e)
	if err != nil {
		return err
	}
	if err := s.d.Fault(StepHandoff); err != nil {
		return err
	}
	refs := make([]webhook.Ref, len(owed))
	for i, d := range owed {
		refs[i] = webhook.RefOf(d)
	}
	s.handoff(ctx, refs, 0)
	return nil
}

// Enqueue writes event e's deliveries, pending and due now, to each of
// tenant t's endpoints that receives its type (to e.Endpoint alone, when
// set, if it is t's), and returns them; a delivery that exists already is
// not written again (a duplicate stream record, a replayed event makes no
// second one) but is returned. RetryDue attempts what Enqueue leaves.
func (s *Service) Enqueue(ctx context.Context, t auth.Tenant, e webhook.Event) ([]webhook.Delivery, error) {
	if e.Mode != string(t.Mode) {
		return nil, fmt.Errorf("webhooks: event %s of mode %q for tenant mode %q", e.ID, e.Mode, t.Mode)
	}
	eps, err := s.d.Store.TenantEndpoints(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := s.d.Fault(StepFanout); err != nil {
		return nil, err
	}
	now := s.d.Clock.Now()
	var owed []webhook.Delivery
	for _, ep := range eps {
		if e.Endpoint != "" && ep.ID != e.Endpoint {
			continue
		}
		if e.Endpoint == "" && !ep.Receives(e.Type) {
			continue
		}
		d := webhook.Delivery{EndpointID: ep.ID, Event: e, Status: webhook.Pending, NextAt: now}
		if _, err := s.d.Store.CreateDelivery(ctx, d); err != nil {
			return nil, err
		}
		if err := s.d.Fault(StepCreated); err != nil {
			return nil, err
		}
		owed = append(owed, d)
	}
	return owed, nil
}

// Parallel is how many attempts RetryDue makes at once: an endpoint that
// times out holds one of them for webhook.AttemptTimeout.
const Parallel = 8

// Report is what one RetryDue pass did.
type Report struct {
	// Attempted counts the attempts made (each recorded).
	Attempted int
	// Due counts the deliveries found due.
	Due int
	// MostOverdue is how long past its due time the most overdue delivery
	// found was (0 when none was due): it grows when the retrier stops
	// running or cannot keep up, which the stack alarms on.
	MostOverdue time.Duration
}

// RetryDue attempts up to limit deliveries that are due, Parallel at a
// time, and reports what it did. Errors of single attempts are logged, not
// returned: each delivery stays pending and is retried.
func (s *Service) RetryDue(ctx context.Context, limit int) (Report, error) {
	now := s.d.Clock.Now()
	due, err := s.d.Store.DueDeliveries(ctx, now, limit)
	if err != nil {
		return Report{}, err
	}
	r := Report{Due: len(due)}
	if len(due) > 0 {
		r.MostOverdue = max(now.Sub(due[0].NextAt), 0)
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, Parallel)
	)
	for _, d := range due {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if _, err := s.Attempt(ctx, d); err != nil {
				s.d.Log.WarnContext(ctx, "webhook attempt not made", "endpoint_id", d.EndpointID, "webhook_id", d.ID(), "error", err.Error())
				return
			}
			mu.Lock()
			r.Attempted++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return r, nil
}

// Attempt makes delivery d's next attempt (d as read, pending): claim,
// sign, send, record, and mark the endpoint failing, healthy or disabled.
// It returns the delivery after the attempt. A delivery another dispatcher
// claimed first → an error wrapping record.ErrChanged (nothing sent).
func (s *Service) Attempt(ctx context.Context, d webhook.Delivery) (webhook.Delivery, error) {
	now := s.d.Clock.Now()
	claimed, err := s.d.Store.ClaimAttempt(ctx, d, now, Lease)
	if err != nil {
		return webhook.Delivery{}, err
	}
	if err := s.d.Fault(StepClaimed); err != nil {
		return webhook.Delivery{}, err
	}
	ep, err := s.d.Store.GetEndpoint(ctx, d.EndpointID)
	if err != nil {
		return webhook.Delivery{}, err
	}
	a := webhook.Attempt{N: claimed.Attempts, At: now}
	if ep.Disabled {
		a.Error = "endpoint disabled: " + ep.DisabledReason
		return s.d.Store.FinishAttempt(ctx, claimed, a, time.Time{})
	}
	res, sendErr := s.send(ctx, ep, claimed, now)
	if err := s.d.Fault(StepSent); err != nil {
		return webhook.Delivery{}, err
	}
	a.Status, a.Latency, a.Body = res.Status, res.Latency, string(res.Body)
	if sendErr != nil {
		a.Error = sendErr.Error()
	}
	var next time.Time
	if !a.OK() {
		next, _ = webhook.NextAttempt(claimed.InRound()+1, now.Add(res.Latency), s.d.Rand())
	}
	out, err := s.d.Store.FinishAttempt(ctx, claimed, a, next)
	if err != nil {
		return webhook.Delivery{}, err
	}
	if err := s.d.Fault(StepFinish); err != nil {
		return out, err
	}
	s.d.Log.InfoContext(ctx, "webhook attempt", "endpoint_id", ep.ID, "webhook_id", d.ID(), "event_type", string(d.Event.Type),
		"attempt", a.N, "status", a.Status, "latency_ms", a.Latency.Milliseconds(), "delivery", string(out.Status))
	if err := s.health(ctx, ep, a, now); err != nil {
		s.d.Log.ErrorContext(ctx, "webhook endpoint health", "endpoint_id", ep.ID, "error", err.Error())
	}
	return out, nil
}

// send signs d's payload with ep's secrets at now and posts it.
func (s *Service) send(ctx context.Context, ep webhook.Endpoint, d webhook.Delivery, now time.Time) (Response, error) {
	sealer, err := s.d.Sealer(ctx)
	if err != nil {
		return Response{}, fmt.Errorf("webhook sealing key: %w", err)
	}
	secrets, err := ep.Open(sealer)
	if err != nil {
		return Response{}, fmt.Errorf("open the endpoint's signing secret: %w", err)
	}
	payload, err := d.Event.Payload()
	if err != nil {
		return Response{}, err
	}
	headers, err := s.d.Sign(secrets.Signing(now), d.ID(), now, payload)
	if err != nil {
		return Response{}, err
	}
	actx, cancel := context.WithTimeout(ctx, webhook.AttemptTimeout)
	defer cancel()
	return s.d.Sender.Post(actx, ep.URL, ep.Tenant.Mode == auth.Live, headers, payload)
}

// health records an attempt's outcome on its endpoint: a success ends a
// run of failures; a failure starts one, and disables the endpoint when
// the run has lasted webhook.DisableAfter.
func (s *Service) health(ctx context.Context, ep webhook.Endpoint, a webhook.Attempt, now time.Time) error {
	switch {
	case a.OK() && !ep.FailingSince.IsZero():
		ep.FailingSince = time.Time{}
	case a.OK():
		return nil
	case ep.FailingSince.IsZero():
		ep.FailingSince = now
	case webhook.ShouldDisable(ep.FailingSince, now):
		ep.Disabled, ep.DisabledAt = true, now
		ep.DisabledReason = fmt.Sprintf("every attempt failed since %s (%s); last: %s",
			ep.FailingSince.UTC().Format(time.RFC3339), webhook.DisableAfter, attemptSummary(a))
	default:
		return nil
	}
	return s.d.Store.UpdateEndpoint(ctx, ep)
}

func attemptSummary(a webhook.Attempt) string {
	if a.Error != "" {
		return a.Error
	}
	return fmt.Sprintf("status %d", a.Status)
}
