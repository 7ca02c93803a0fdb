package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/webhooks"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Bounds of webhook deliveries --limit.
const (
	defaultDeliveries = 20
	maxDeliveries     = 200
)

// maxShownBody is how much of an attempt's answer webhook deliveries
// shows (the store keeps webhook.MaxLoggedBody).
const maxShownBody = 256

// messageIDPrefix starts every webhook-id (webhook.MessageID).
const messageIDPrefix = "msg_"

// deliveryLog is the output of webhook deliveries: the endpoint's
// deliveries, newest event first.
type deliveryLog struct {
	EndpointID     string         `json:"endpoint_id"`
	PartnerID      string         `json:"partner_id"`
	Mode           auth.Mode      `json:"mode"`
	EndpointStatus string         `json:"endpoint_status"`
	Deliveries     []deliveryView `json:"deliveries"`
}

// deliveryView is one delivery: its webhook-id (what redeliver takes and
// what the partner received in the webhook-id header), its event, where
// it is, its last attempt (null before the first) and every attempt,
// oldest first, as Stripe's dashboard lists them (a redelivery's round
// follows the earlier ones).
type deliveryView struct {
	WebhookID     string                 `json:"webhook_id"`
	EndpointID    string                 `json:"endpoint_id"`
	EventID       string                 `json:"event_id"`
	EventType     webhook.Type           `json:"event_type"`
	EventAt       string                 `json:"event_at"`
	Status        webhook.DeliveryStatus `json:"status"`
	Attempts      int                    `json:"attempts"`
	NextAttemptAt *string                `json:"next_attempt_at"`
	LastAttempt   *attemptView           `json:"last_attempt"`
	AttemptLog    []attemptView          `json:"attempt_log"`
}

// attemptView is one attempt: Status is the answer's HTTP status (null:
// no answer, Error says why); Body is the first bytes of the answer.
type attemptView struct {
	N         int     `json:"n"`
	At        string  `json:"at"`
	Status    *int    `json:"status"`
	LatencyMS int64   `json:"latency_ms"`
	Error     *string `json:"error"`
	Body      string  `json:"body"`
}

// redelivered is the output of webhook redeliver.
type redelivered struct {
	deliveryView
	PreviousStatus   webhook.DeliveryStatus `json:"previous_status"`
	PreviousAttempts int                    `json:"previous_attempts"`
	Note             string                 `json:"note"`
}

// testSent is the output of webhook test.
type testSent struct {
	EventID    string       `json:"event_id"`
	WebhookID  string       `json:"webhook_id"`
	EndpointID string       `json:"endpoint_id"`
	PartnerID  string       `json:"partner_id"`
	Mode       auth.Mode    `json:"mode"`
	Type       webhook.Type `json:"type"`
	Note       string       `json:"note"`
}

// replayed is the output of webhook replay: the event's deliveries as
// they stand after it.
type replayed struct {
	EventID    string         `json:"event_id"`
	EventType  webhook.Type   `json:"event_type"`
	PartnerID  string         `json:"partner_id"`
	Mode       auth.Mode      `json:"mode"`
	Deliveries []deliveryView `json:"deliveries"`
	Note       string         `json:"note"`
}

// viewLogged returns delivery l with its logged attempts.
func viewLogged(l webhooks.Logged) deliveryView {
	d := l.Delivery
	v := deliveryView{
		WebhookID: d.ID(), EndpointID: d.EndpointID, EventID: d.Event.ID, EventType: d.Event.Type,
		EventAt: lead.FormatTime(d.Event.At), Status: d.Status, Attempts: d.Attempts,
	}
	if d.Status == webhook.Pending {
		v.NextAttemptAt = optTime(d.NextAt)
	}
	v.AttemptLog = make([]attemptView, len(l.Attempts))
	for i, a := range l.Attempts {
		v.AttemptLog[i] = viewAttempt(a)
	}
	if len(l.Attempts) > 0 {
		last := v.AttemptLog[len(l.Attempts)-1]
		v.LastAttempt = &last
	}
	return v
}

// viewDelivery returns d with its logged attempts, read from the store.
func viewDelivery(ctx context.Context, s target, d webhook.Delivery) (deliveryView, error) {
	log, err := s.Attempts(ctx, d.EndpointID, d.Event)
	if err != nil {
		return deliveryView{}, err
	}
	return viewLogged(webhooks.Logged{Delivery: d, Attempts: log}), nil
}

// viewAttempt shows attempt a with the first maxShownBody bytes of its
// answer.
func viewAttempt(a webhook.Attempt) attemptView {
	av := attemptView{N: a.N, At: lead.FormatTime(a.At), LatencyMS: a.Latency.Milliseconds(), Body: headOf(a.Body, maxShownBody)}
	if a.Status != 0 {
		av.Status = &a.Status
	}
	if a.Error != "" {
		av.Error = &a.Error
	}
	return av
}

// headOf returns at most n bytes of s, cut at a character boundary.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// parseWebhookID splits a webhook-id, msg_<event_id>_<endpoint_id>, into
// its event and endpoint ids. Endpoint ids are webhook.EndpointPrefix
// ("we_") and hex, without another underscore (webhook.NewEndpoint), so
// the id splits at its last "_we_"; event ids may hold underscores. ok is
// false for anything else.
func parseWebhookID(id string) (eventID, endpointID string, ok bool) {
	rest, found := strings.CutPrefix(id, messageIDPrefix)
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(rest, "_"+webhook.EndpointPrefix)
	if i < 1 {
		return "", "", false
	}
	eventID, endpointID = rest[:i], rest[i+1:]
	suffix := endpointID[len(webhook.EndpointPrefix):]
	if suffix == "" || strings.Contains(suffix, "_") || webhook.MessageID(eventID, endpointID) != id {
		return "", "", false
	}
	return eventID, endpointID, true
}

func parseWebhookDeliveries(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("endpoint", "", "endpoint id (required)")
	limit := fs.Int("limit", defaultDeliveries, "show the N newest deliveries")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	endpointID, err := requiredID(fs, "endpoint", *id)
	if err != nil {
		return nil, err
	}
	if *limit < 1 || *limit > maxDeliveries {
		return nil, usagef(fs, "--limit must be from 1 to %d; got %d", maxDeliveries, *limit)
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		partnerID, err := ownerOf(ctx, s, endpointID)
		if err != nil {
			return nil, err
		}
		e, ds, err := s.endpoints().Deliveries(ctx, partnerID, endpointID, *limit)
		if err != nil {
			return nil, endpointErr(endpointID, err)
		}
		out := deliveryLog{
			EndpointID: e.ID, PartnerID: e.Tenant.PartnerID, Mode: e.Tenant.Mode,
			EndpointStatus: viewEndpoint(e, now).Status, Deliveries: make([]deliveryView, 0, len(ds)),
		}
		for _, d := range ds {
			out.Deliveries = append(out.Deliveries, viewLogged(d))
		}
		return out, nil
	}, nil
}

// sendErr turns the service's errors about endpoint id into the
// operator's messages: not found, or disabled (enable it first).
func sendErr(ctx context.Context, s target, id string, err error) error {
	if !errors.Is(err, webhooks.ErrDisabled) {
		return endpointErr(id, err)
	}
	e, gerr := s.GetEndpoint(ctx, id)
	if gerr != nil {
		return endpointErr(id, gerr)
	}
	return fmt.Errorf("webhook endpoint %s is disabled (%s); enable it first: opctl webhook enable --endpoint %s", id, e.DisabledReason, id)
}

func parseWebhookRedeliver(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("delivery", "", "the delivery's webhook-id, msg_<event_id>_<endpoint_id> (required)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	webhookID, err := requiredID(fs, "delivery", *id)
	if err != nil {
		return nil, err
	}
	eventID, endpointID, ok := parseWebhookID(webhookID)
	if !ok {
		return nil, usagef(fs, "--delivery %q is not a webhook-id: want msg_<event_id>_<endpoint_id>, as webhook deliveries shows it", webhookID)
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		partnerID, err := ownerOf(ctx, s, endpointID)
		if err != nil {
			return nil, err
		}
		r, err := s.endpoints().Redeliver(ctx, audit.ByOperator(), partnerID, endpointID, eventID)
		// The endpoint is the partner's (ownerOf): not found is the delivery.
		if ec := errcode.As(err); ec != nil && ec.Code == errcode.NotFound {
			return nil, fmt.Errorf("webhook delivery %s not found", webhookID)
		}
		if err != nil {
			return nil, sendErr(ctx, s, endpointID, err)
		}
		d, e := r.Before, r.After.Delivery
		return redelivered{
			deliveryView: viewLogged(r.After), PreviousStatus: d.Status, PreviousAttempts: d.Attempts,
			Note: "Pending and due now, on a new round of the retry schedule (earlier attempts stay in the log): the webhook-retrier sends it within a minute, " +
				"with the same webhook-id (the partner dedupes by it). Watch it with opctl webhook deliveries --endpoint " + e.EndpointID + ".",
		}, nil
	}, nil
}

func parseWebhookTest(fs *flag.FlagSet, args []string) (action, error) {
	endpointID, err := endpointFlag(fs, args)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		partnerID, err := ownerOf(ctx, s, endpointID)
		if err != nil {
			return nil, err
		}
		ev, err := s.endpoints().SendTest(ctx, audit.ByOperator(), partnerID, endpointID)
		if err != nil {
			return nil, sendErr(ctx, s, endpointID, err)
		}
		return testSent{
			EventID: ev.ID, WebhookID: webhook.MessageID(ev.ID, endpointID), EndpointID: endpointID,
			PartnerID: partnerID, Mode: auth.Mode(ev.Mode), Type: ev.Type,
			Note: "Written to the table: its stream hands it to the webhook-dispatcher, which sends it within seconds. " +
				"Watch it with opctl webhook deliveries --endpoint " + endpointID + ".",
		}, nil
	}, nil
}

func parseWebhookReplay(fs *flag.FlagSet, args []string) (action, error) {
	readTenant := tenantFlags(fs)
	eventFlag := fs.String("event", "", "event id (required)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	tenant, err := readTenant()
	if err != nil {
		return nil, err
	}
	partnerID, mode := tenant.PartnerID, tenant.Mode
	eventID, err := requiredID(fs, "event", *eventFlag)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		if _, err := s.GetPartner(ctx, partnerID); err != nil {
			return nil, partnerErr(partnerID, err)
		}
		t := auth.Tenant{PartnerID: partnerID, Mode: mode}
		ev, err := s.GetEvent(ctx, t, eventID)
		if ec := errcode.As(err); ec != nil && ec.Code == errcode.NotFound {
			return nil, fmt.Errorf("event %s not found for partner %s in %s mode (event records are deleted 30 days after the event)", eventID, partnerID, mode)
		}
		if err != nil {
			return nil, err
		}
		// Enqueue only writes deliveries (due now); the webhook-retrier
		// sends them. It needs no Sender, signer or sealing key.
		owed, err := webhooks.New(webhooks.Deps{Store: s.Store}).Enqueue(ctx, t, ev)
		if err != nil {
			return nil, err
		}
		out := replayed{
			EventID: ev.ID, EventType: ev.Type, PartnerID: partnerID, Mode: mode, Deliveries: make([]deliveryView, 0, len(owed)),
			Note: "Each endpoint that receives the event has one delivery; one that existed already was left as it was " +
				"(a delivered one is not sent again: use opctl webhook redeliver). New ones are pending and due now: " +
				"the webhook-retrier sends them within a minute.",
		}
		for _, d := range owed {
			cur, err := s.GetDelivery(ctx, d.EndpointID, ev)
			if err != nil {
				return nil, fmt.Errorf("read the delivery to %s after enqueueing: %w", d.EndpointID, err)
			}
			v, err := viewDelivery(ctx, s, cur)
			if err != nil {
				return nil, err
			}
			out.Deliveries = append(out.Deliveries, v)
		}
		return out, nil
	}, nil
}
