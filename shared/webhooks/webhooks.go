// Package webhooks is the outgoing webhooks' service: it fans an owed
// event out to the endpoints of its partner and mode (one delivery each),
// makes each delivery's attempts on the Standard Webhooks schedule, signs
// them with the endpoint's secrets, logs each attempt, and disables an
// endpoint that has failed every attempt for five days. It is plain Go:
// storage is the Store interface (shared/dynamo), sending the Sender
// (shared/safehttp, adapted in shared/wiring), signing Deps.Sign
// (shared/webhooksign), time the Clock, so tests run the whole schedule in
// seconds.
//
// Never lost: an event is written with the state change that owes it
// (shared/dynamo AdvanceSurvey); the table's stream hands it to Fanout,
// which is retried until it returns (a stream record is retried until its
// handler succeeds). Fanout writes every delivery, pending and due at
// once, before it attempts any; an attempt is claimed under a lease before
// sending and recorded after. A crash anywhere leaves either the stream
// record to retry or a pending delivery that RetryDue attempts once due
// (or once its claim's lease ended): at least once, always with the same
// webhook-id.
package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/webhook"
)

// Store is the storage the service needs (shared/dynamo's Store).
type Store interface {
	TenantEndpoints(ctx context.Context, t auth.Tenant) ([]webhook.Endpoint, error)
	GetEndpoint(ctx context.Context, id string) (webhook.Endpoint, error)
	UpdateEndpoint(ctx context.Context, e webhook.Endpoint) error
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
	// (webhooksign.Sign): the headers of a delivery.
	Sign   func(secrets []string, id string, sentAt time.Time, payload []byte) (map[string]string, error)
	Sealer *webhook.Sealer
	Clock  Clock
	// Rand returns a number in [0, 1) for the schedule's jitter; nil is
	// math/rand/v2.
	Rand func() float64
	Log  *slog.Logger
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

// inProcess is the longest wait between two attempts that Fanout makes
// itself (the schedule's 5 s); longer waits are the retrier's.
const inProcess = 10 * time.Second

// The steps a Fault hook sees.
const (
	StepFanout  = "fanout"   // after listing endpoints, before any delivery is written
	StepCreated = "created"  // after a delivery is written, before its first attempt
	StepClaimed = "claimed"  // after an attempt is claimed, before it is sent
	StepSent    = "sent"     // after an attempt is sent, before it is recorded
	StepFinish  = "finished" // after an attempt is recorded
)

// Fanout delivers event e of tenant t to each of t's endpoints that
// receives its type: it writes every delivery first (a delivery that
// exists is not written again: a duplicate stream record makes no second
// one), then attempts each at once, and a failed first attempt once more
// after the schedule's 5 s; later attempts are RetryDue's. An error means
// the event may not be safely handed off yet (retry Fanout): every
// delivery that was written stays pending and due.
func (s *Service) Fanout(ctx context.Context, t auth.Tenant, e webhook.Event) error {
	if e.Mode != string(t.Mode) {
		return fmt.Errorf("webhooks: event %s of mode %q for tenant mode %q", e.ID, e.Mode, t.Mode)
	}
	eps, err := s.d.Store.TenantEndpoints(ctx, t)
	if err != nil {
		return err
	}
	if err := s.d.Fault(StepFanout); err != nil {
		return err
	}
	now := s.d.Clock.Now()
	var owed []webhook.Delivery
	for _, ep := range eps {
		if !ep.Receives(e.Type) {
			continue
		}
		d := webhook.Delivery{EndpointID: ep.ID, Event: e, Status: webhook.Pending, NextAt: now}
		if _, err := s.d.Store.CreateDelivery(ctx, d); err != nil {
			return err
		}
		if err := s.d.Fault(StepCreated); err != nil {
			return err
		}
		owed = append(owed, d)
	}
	var wg sync.WaitGroup
	for _, d := range owed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.firstAttempts(ctx, d)
		}()
	}
	wg.Wait()
	return nil
}

// firstAttempts makes a fresh delivery's first attempt and, when it fails,
// its second after the schedule's delay (5 s). A delivery another
// dispatcher already took (a duplicate record) is left to it.
func (s *Service) firstAttempts(ctx context.Context, d webhook.Delivery) {
	cur, err := s.d.Store.GetDelivery(ctx, d.EndpointID, d.Event)
	if err != nil || cur.Status != webhook.Pending || cur.Attempts > 0 {
		return
	}
	for {
		next, err := s.Attempt(ctx, cur)
		if err != nil || next.Status != webhook.Pending {
			return
		}
		wait := next.NextAt.Sub(s.d.Clock.Now())
		if wait > inProcess {
			return
		}
		if err := s.d.Clock.Sleep(ctx, max(wait, 0)); err != nil {
			return
		}
		cur = next
	}
}

// RetryDue attempts up to limit deliveries that are due, and returns how
// many it attempted. Errors of single attempts are logged, not returned:
// each delivery stays pending and is retried.
func (s *Service) RetryDue(ctx context.Context, limit int) (int, error) {
	due, err := s.d.Store.DueDeliveries(ctx, s.d.Clock.Now(), limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range due {
		if _, err := s.Attempt(ctx, d); err == nil {
			n++
		}
	}
	return n, nil
}

// Attempt makes delivery d's next attempt (d as read, pending): claim,
// sign, send, record, and mark the endpoint failing, healthy or disabled.
// It returns the delivery after the attempt. A delivery another dispatcher
// claimed first → an error wrapping surveyrec.ErrChanged (nothing sent).
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
		next, _ = webhook.NextAttempt(claimed.Attempts+1, now.Add(res.Latency), s.d.Rand())
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
	secrets, err := ep.Open(s.d.Sealer)
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
