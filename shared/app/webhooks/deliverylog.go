package webhooks

import (
	"context"
	"fmt"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Logged is a delivery with every attempt it logged, oldest first: time,
// status (0: no answer, Error says why), latency and the first bytes of
// the answer (webhook.MaxLoggedBody).
type Logged struct {
	webhook.Delivery
	Attempts []webhook.Attempt
}

// Deliveries returns partner partnerID's endpoint id and its newest limit
// deliveries, newest event first, each with its attempts. Another
// partner's endpoint, or none, → not_found.
func (s *Endpoints) Deliveries(ctx context.Context, partnerID, id string, limit int) (webhook.Endpoint, []Logged, error) {
	e, err := s.Get(ctx, partnerID, id)
	if err != nil {
		return webhook.Endpoint{}, nil, err
	}
	ds, err := s.d.Store.EndpointDeliveries(ctx, id, limit)
	if err != nil {
		return webhook.Endpoint{}, nil, err
	}
	out := make([]Logged, 0, len(ds))
	for _, d := range ds {
		l, err := s.logged(ctx, d)
		if err != nil {
			return webhook.Endpoint{}, nil, err
		}
		out = append(out, l)
	}
	return e, out, nil
}

func (s *Endpoints) logged(ctx context.Context, d webhook.Delivery) (Logged, error) {
	as, err := s.d.Store.Attempts(ctx, d.EndpointID, d.Event)
	if err != nil {
		return Logged{}, err
	}
	return Logged{Delivery: d, Attempts: as}, nil
}

// Redelivered is a redelivery: the delivery before it and after it (with
// its attempts).
type Redelivered struct {
	Before webhook.Delivery
	After  Logged
}

// Redeliver makes partner partnerID's delivery of event eventID to
// endpoint endpointID pending and due now, on a new round of the retry
// schedule (same webhook-id), on behalf of actor, and audits it right
// after. Another partner's endpoint or delivery, or none, → not_found; a
// disabled endpoint → conflict wrapping ErrDisabled.
func (s *Endpoints) Redeliver(ctx context.Context, actor audit.Actor, partnerID, endpointID, eventID string) (Redelivered, error) {
	e, err := s.enabled(ctx, actor, partnerID, endpointID)
	if err != nil {
		return Redelivered{}, err
	}
	d, err := s.d.Store.FindDelivery(ctx, e.ID, eventID)
	if ec := errcode.As(err); ec != nil && ec.Code == errcode.NotFound {
		return Redelivered{}, errcode.New(errcode.NotFound, "No webhook delivery %s in this account.", webhook.MessageID(eventID, endpointID))
	}
	if err != nil {
		return Redelivered{}, err
	}
	now := s.d.Now()
	re, err := s.d.Store.Redeliver(ctx, d, now)
	if err != nil {
		return Redelivered{}, err
	}
	if err := s.d.Store.PutAudit(ctx, audit.Entry{
		PartnerID: partnerID, Actor: actor, Action: audit.DeliveryRedelivered, TargetKind: audit.TargetDelivery,
		TargetID: d.ID(), Detail: string(d.Event.Type), At: now,
	}); err != nil {
		return Redelivered{}, fmt.Errorf("delivery %s is redelivered, but its audit entry was not written: %w", d.ID(), err)
	}
	after, err := s.logged(ctx, re)
	if err != nil {
		return Redelivered{}, err
	}
	return Redelivered{Before: d, After: after}, nil
}

// enabled checks actor and returns partner partnerID's endpoint id,
// which must be enabled (an attempt on a disabled one fails at once).
func (s *Endpoints) enabled(ctx context.Context, actor audit.Actor, partnerID, id string) (webhook.Endpoint, error) {
	e, err := s.change(ctx, actor, partnerID, id)
	if err != nil {
		return webhook.Endpoint{}, err
	}
	if e.Disabled {
		ce := errcode.New(errcode.Conflict, "The webhook endpoint %s is disabled (%s); enable it first.", id, e.DisabledReason)
		ce.Cause = ErrDisabled
		return webhook.Endpoint{}, ce
	}
	return e, nil
}

// SendTest writes a test event for partner partnerID's endpoint id alone
// (the table's stream hands it to the dispatcher, which sends it within
// seconds) on behalf of actor, audited right after, and returns it.
// Another partner's endpoint, or none, → not_found; a disabled one →
// conflict wrapping ErrDisabled.
func (s *Endpoints) SendTest(ctx context.Context, actor audit.Actor, partnerID, id string) (webhook.Event, error) {
	e, err := s.enabled(ctx, actor, partnerID, id)
	if err != nil {
		return webhook.Event{}, err
	}
	now := s.d.Now()
	ev := webhook.TestEvent(webhook.NewTestEventID(), e, now)
	created, err := s.d.Store.PutEvent(ctx, e.Tenant, ev)
	if err != nil {
		return webhook.Event{}, err
	}
	if !created {
		return webhook.Event{}, errcode.New(errcode.Conflict, "Event %s exists already; nothing was written: send the test again.", ev.ID)
	}
	if err := s.d.Store.PutAudit(ctx, entry(actor, audit.EndpointTestSent, e, ev.ID, now)); err != nil {
		return webhook.Event{}, fmt.Errorf("test event %s is written, but its audit entry was not: %w", ev.ID, err)
	}
	return ev, nil
}

// EventDeliveries returns the deliveries of tenant t's event eventID to
// each of t's endpoints that has one, with their attempts (the events
// page's "delivered to").
func (s *Endpoints) EventDeliveries(ctx context.Context, t auth.Tenant, eventID string) ([]Logged, error) {
	eps, err := s.d.Store.TenantEndpoints(ctx, t)
	if err != nil {
		return nil, err
	}
	out := []Logged{}
	for _, e := range eps {
		d, err := s.d.Store.FindDelivery(ctx, e.ID, eventID)
		if ec := errcode.As(err); ec != nil && ec.Code == errcode.NotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		l, err := s.logged(ctx, d)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}
