package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// hookEvent returns an event of type typ for mode at at.
func hookEvent(id string, typ webhook.Type, mode auth.Mode, at time.Time) webhook.Event {
	return webhook.Event{ID: id, Type: typ, Mode: string(mode), At: at, Data: json.RawMessage(`{"lead_id":"l1"}`)}
}

// deliver stores ev's delivery to endpointID and makes its attempts, one
// per status (0: no answer), finishing as failed after the last unless it
// succeeded; it returns the delivery as stored.
func (h hookEnv) deliver(t *testing.T, endpointID string, ev webhook.Event, statuses ...int) webhook.Delivery {
	t.Helper()
	ctx := context.Background()
	d := webhook.Delivery{EndpointID: endpointID, Event: ev, Status: webhook.Pending, NextAt: ev.At}
	if _, err := h.s.CreateDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	for i, st := range statuses {
		at := ev.At.Add(time.Duration(i) * time.Minute)
		claimed, err := h.s.ClaimAttempt(ctx, d, at, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		a := webhook.Attempt{N: claimed.Attempts, At: at, Status: st, Latency: 42 * time.Millisecond, Body: strings.Repeat("é", 300)}
		if st == 0 {
			a.Error, a.Body = "dial tcp: connection refused", ""
		}
		var next time.Time
		if !a.OK() && i < len(statuses)-1 {
			next = at.Add(time.Minute)
		}
		if d, err = h.s.FinishAttempt(ctx, claimed, a, next); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestWebhookDeliveries(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	ep := h.add(t, id, "--mode", "test", "--url", "https://hooks.example.com/")
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	h.deliver(t, ep.EndpointID, hookEvent("evt_a", webhook.SurveyCompleted, auth.Test, t0))
	h.deliver(t, ep.EndpointID, hookEvent("evt_b", webhook.SurveyFailed, auth.Test, t0.Add(time.Hour)), 500, 0)
	h.deliver(t, ep.EndpointID, hookEvent("evt_c", webhook.EstimateReady, auth.Test, t0.Add(2*time.Hour)), 503, 204)

	r := h.run(t, "webhook", "deliveries", "--endpoint", ep.EndpointID)
	out := ok[deliveryLog](t, r)
	if out.EndpointID != ep.EndpointID || out.PartnerID != id || out.Mode != auth.Test || out.EndpointStatus != statusEnabled {
		t.Errorf("header %+v; want the endpoint's", out)
	}
	var got []string
	for _, d := range out.Deliveries {
		got = append(got, d.EventID)
	}
	if strings.Join(got, ",") != "evt_c,evt_b,evt_a" {
		t.Fatalf("deliveries %q; want newest first: evt_c, evt_b, evt_a", got)
	}
	c, b, a := out.Deliveries[0], out.Deliveries[1], out.Deliveries[2]
	if c.WebhookID != webhook.MessageID("evt_c", ep.EndpointID) || c.EventType != webhook.EstimateReady || c.EventAt != lead.FormatTime(t0.Add(2*time.Hour)) ||
		c.Status != webhook.Delivered || c.Attempts != 2 || c.NextAttemptAt != nil {
		t.Errorf("delivered delivery %+v", c)
	}
	if la := c.LastAttempt; la == nil || la.N != 2 || la.Status == nil || *la.Status != 204 || la.LatencyMS != 42 || la.Error != nil ||
		len(la.Body) > maxShownBody || !strings.HasPrefix(strings.Repeat("é", 300), la.Body) || len(la.Body) < maxShownBody-1 {
		t.Errorf("last attempt of the delivered one %+v; want attempt 2, 204, 42 ms, the body cut at %d bytes on a character", la, maxShownBody)
	}
	if b.Status != webhook.Failed || b.Attempts != 2 || b.LastAttempt == nil || b.LastAttempt.Status != nil ||
		b.LastAttempt.Error == nil || *b.LastAttempt.Error != "dial tcp: connection refused" {
		t.Errorf("failed delivery %+v (last %+v); want failed after 2, the last without answer", b, b.LastAttempt)
	}
	if a.Status != webhook.Pending || a.Attempts != 0 || a.LastAttempt != nil || a.NextAttemptAt == nil || *a.NextAttemptAt != lead.FormatTime(t0) {
		t.Errorf("pending delivery %+v; want pending, due at the event, no attempt", a)
	}
	if !strings.Contains(r.stdout, `"last_attempt": null`) {
		t.Error(`stdout lacks "last_attempt": null for the delivery not yet attempted`)
	}

	if out := ok[deliveryLog](t, h.run(t, "webhook", "deliveries", "--endpoint", ep.EndpointID, "--limit", "1")); len(out.Deliveries) != 1 || out.Deliveries[0].EventID != "evt_c" {
		t.Errorf("--limit 1 = %+v; want evt_c only", out.Deliveries)
	}
	empty := h.add(t, id, "--mode", "test", "--url", "https://hooks.example.com/2")
	if r := h.run(t, "webhook", "deliveries", "--endpoint", empty.EndpointID); !strings.Contains(r.stdout, `"deliveries": []`) {
		t.Errorf("an endpoint without deliveries: %q; want \"deliveries\": []", r.stdout)
	}
	fails(t, h.run(t, "webhook", "deliveries", "--endpoint", "we_0000000000000000"), exitFailure, "opctl: webhook endpoint we_0000000000000000 not found")
	for _, limit := range []string{"0", "-1", "201"} {
		fails(t, opctl(t, "", "webhook", "deliveries", "--endpoint", "we_1", "--limit", limit), exitUsage, "--limit must be from 1 to 200")
	}
}

func TestWebhookRedeliver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	ep := h.add(t, id, "--mode", "test", "--url", "https://hooks.example.com/")
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		event    webhook.Event
		statuses []int
		was      webhook.DeliveryStatus
	}{
		{"delivered", hookEvent("evt_sv_1_survey.completed", webhook.SurveyCompleted, auth.Test, t0), []int{204}, webhook.Delivered},
		{"failed", hookEvent("evt_sv_2_survey.failed", webhook.SurveyFailed, auth.Test, t0.Add(time.Hour)), []int{500, 0}, webhook.Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := h.deliver(t, ep.EndpointID, tt.event, tt.statuses...)
			if before.Status != tt.was {
				t.Fatalf("set-up delivery %s; want %s", before.Status, tt.was)
			}
			wid := webhook.MessageID(tt.event.ID, ep.EndpointID)
			start := time.Now()
			out := ok[redelivered](t, h.run(t, "webhook", "redeliver", "--delivery", wid))
			if out.WebhookID != wid || out.EventID != tt.event.ID || out.Status != webhook.Pending || out.Attempts != len(tt.statuses) ||
				out.PreviousStatus != tt.was || out.PreviousAttempts != len(tt.statuses) || out.NextAttemptAt == nil {
				t.Errorf("redeliver output %+v; want %s pending, its attempts kept, previously %s after %d", out, wid, tt.was, len(tt.statuses))
			}
			d, err := h.s.GetDelivery(ctx, ep.EndpointID, tt.event)
			if err != nil || d.Status != webhook.Pending || d.Attempts != len(tt.statuses) || d.InRound() != 0 || d.NextAt.Before(start.Add(-time.Second)) || d.NextAt.After(time.Now()) {
				t.Errorf("stored delivery %+v, %v; want pending, a new round of the schedule, due now", d, err)
			}
			due, err := h.s.DueDeliveries(ctx, time.Now(), 10)
			if err != nil || !containsDelivery(due, wid) {
				t.Errorf("due deliveries %+v, %v; want %s among them", due, err, wid)
			}
		})
	}

	for _, tt := range []struct {
		name, delivery string
		code           int
		want           string
	}{
		{"unknown delivery", webhook.MessageID("evt_none", ep.EndpointID), exitFailure, "opctl: webhook delivery msg_evt_none_" + ep.EndpointID + " not found\n"},
		{"unknown endpoint", "msg_evt_a_we_0000000000000000", exitFailure, "opctl: webhook endpoint we_0000000000000000 not found\n"},
		{"not a webhook-id", "evt_a", exitUsage, "opctl: webhook redeliver: --delivery \"evt_a\" is not a webhook-id: want msg_<event_id>_<endpoint_id>, as webhook deliveries shows it\n"},
		{"no endpoint", "msg_evt_a", exitUsage, "is not a webhook-id"},
		{"none given", " ", exitUsage, "opctl: webhook redeliver: --delivery is required\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := h.run(t, "webhook", "redeliver", "--delivery", tt.delivery)
			fails(t, r, tt.code, tt.want)
		})
	}

	t.Run("disabled endpoint", func(t *testing.T) {
		off := h.add(t, id, "--mode", "test", "--url", "https://hooks.example.com/off")
		ev := hookEvent("evt_off", webhook.SurveyCompleted, auth.Test, t0)
		h.deliver(t, off.EndpointID, ev, 204)
		ok[endpointView](t, h.run(t, "webhook", "disable", "--endpoint", off.EndpointID))
		r := h.run(t, "webhook", "redeliver", "--delivery", webhook.MessageID(ev.ID, off.EndpointID))
		fails(t, r, exitFailure, "is disabled ("+operatorDisabled+"); enable it first: opctl webhook enable --endpoint "+off.EndpointID)
		if d, _ := h.s.GetDelivery(ctx, off.EndpointID, ev); d.Status != webhook.Delivered {
			t.Errorf("delivery to a disabled endpoint became %s; want it left delivered", d.Status)
		}
	})
}

func containsDelivery(ds []webhook.Delivery, webhookID string) bool {
	for _, d := range ds {
		if d.ID() == webhookID {
			return true
		}
	}
	return false
}

func TestWebhookTest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	ep := h.add(t, id, "--mode", "live", "--url", "https://hooks.example.com/", "--events", "survey.completed")
	tenant := auth.Tenant{PartnerID: id, Mode: auth.Live}

	start := time.Now()
	first := ok[testSent](t, h.run(t, "webhook", "test", "--endpoint", ep.EndpointID))
	second := ok[testSent](t, h.run(t, "webhook", "test", "--endpoint", ep.EndpointID))
	if first.EventID == second.EventID || first.WebhookID == second.WebhookID {
		t.Errorf("two tests share event id %s; want a fresh one each call", first.EventID)
	}
	if first.WebhookID != webhook.MessageID(first.EventID, ep.EndpointID) || first.EndpointID != ep.EndpointID || first.PartnerID != id ||
		first.Mode != auth.Live || first.Type != webhook.Test || !strings.Contains(first.Note, "webhook deliveries --endpoint "+ep.EndpointID) {
		t.Errorf("test output %+v", first)
	}
	if _, _, ok := parseWebhookID(first.WebhookID); !ok {
		t.Errorf("the test's webhook-id %s does not parse back (redeliver could not take it)", first.WebhookID)
	}
	ev, err := h.s.GetEvent(ctx, tenant, first.EventID)
	if err != nil {
		t.Fatalf("GetEvent: %v", err)
	}
	if ev.Type != webhook.Test || ev.Endpoint != ep.EndpointID || ev.Mode != "live" || ev.At.Before(start.Add(-time.Second)) || ev.At.After(time.Now()) {
		t.Errorf("stored event %+v; want webhook.test, live, targeted at %s, now", ev, ep.EndpointID)
	}
	var data webhook.TestData
	dec := json.NewDecoder(strings.NewReader(string(ev.Data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&data); err != nil || data.EndpointID != ep.EndpointID || data.Mode != "live" || data.Message == "" {
		t.Errorf("event data %s (%v); want endpoint_id, mode and a message", ev.Data, err)
	}
	if ds, _ := h.s.EndpointDeliveries(ctx, ep.EndpointID, 10); len(ds) != 0 {
		t.Errorf("webhook test wrote deliveries %+v; want none (the dispatcher writes them from the stream)", ds)
	}

	fails(t, h.run(t, "webhook", "test", "--endpoint", "we_0000000000000000"), exitFailure, "opctl: webhook endpoint we_0000000000000000 not found")
	ok[endpointView](t, h.run(t, "webhook", "disable", "--endpoint", ep.EndpointID))
	fails(t, h.run(t, "webhook", "test", "--endpoint", ep.EndpointID), exitFailure, "is disabled")
	fails(t, opctl(t, "", "webhook", "test"), exitUsage, "opctl: webhook test: --endpoint is required")
}

func TestWebhookReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	tenant := auth.Tenant{PartnerID: id, Mode: auth.Test}
	all := h.add(t, id, "--mode", "test", "--url", "https://hooks.example.com/all")
	other := h.add(t, id, "--mode", "test", "--url", "https://hooks.example.com/est", "--events", "estimate.ready")
	live := h.add(t, id, "--mode", "live", "--url", "https://hooks.example.com/live")
	ev := hookEvent("evt_sv_9_survey.completed", webhook.SurveyCompleted, auth.Test, time.Now().Add(-time.Hour))
	if _, err := h.s.PutEvent(ctx, tenant, ev); err != nil {
		t.Fatal(err)
	}
	args := []string{"webhook", "replay", "--partner", id, "--mode", "test", "--event", ev.ID}

	for i := range 2 {
		out := ok[replayed](t, h.run(t, args...))
		if out.EventID != ev.ID || out.EventType != ev.Type || out.PartnerID != id || out.Mode != auth.Test ||
			len(out.Deliveries) != 1 || out.Deliveries[0].EndpointID != all.EndpointID || out.Deliveries[0].Status != webhook.Pending {
			t.Errorf("replay %d = %+v; want one pending delivery to %s", i+1, out, all.EndpointID)
		}
	}
	if ds, _ := h.s.EndpointDeliveries(ctx, all.EndpointID, 10); len(ds) != 1 || ds[0].Event.ID != ev.ID || ds[0].Status != webhook.Pending {
		t.Errorf("deliveries to %s after two replays = %+v; want one, pending", all.EndpointID, ds)
	}
	for _, e := range []string{other.EndpointID, live.EndpointID} {
		if ds, _ := h.s.EndpointDeliveries(ctx, e, 10); len(ds) != 0 {
			t.Errorf("replay delivered to %s (%+v); want only endpoints of the mode that receive the type", e, ds)
		}
	}
	due, err := h.s.DueDeliveries(ctx, time.Now(), 10)
	if err != nil || !containsDelivery(due, webhook.MessageID(ev.ID, all.EndpointID)) {
		t.Errorf("due deliveries %+v, %v; want the replayed one", due, err)
	}

	// A delivery made already is left as it is.
	d, _ := h.s.GetDelivery(ctx, all.EndpointID, ev)
	claimed, _ := h.s.ClaimAttempt(ctx, d, time.Now(), time.Minute)
	if _, err := h.s.FinishAttempt(ctx, claimed, webhook.Attempt{N: 1, At: time.Now(), Status: 200}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	out := ok[replayed](t, h.run(t, args...))
	if len(out.Deliveries) != 1 || out.Deliveries[0].Status != webhook.Delivered || out.Deliveries[0].Attempts != 1 {
		t.Errorf("replay after delivery = %+v; want the delivery shown delivered, untouched", out.Deliveries)
	}

	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown event", []string{"--partner", id, "--mode", "test", "--event", "evt_none"}, exitFailure,
			"opctl: event evt_none not found for partner " + id + " in test mode (event records are deleted 30 days after the event)\n"},
		{"other mode", []string{"--partner", id, "--mode", "live", "--event", ev.ID}, exitFailure, "not found for partner " + id + " in live mode"},
		{"unknown partner", []string{"--partner", "ptn_x", "--mode", "test", "--event", ev.ID}, exitFailure, "opctl: partner ptn_x not found\n"},
		{"no event", []string{"--partner", id, "--mode", "test"}, exitUsage, "opctl: webhook replay: --event is required\n"},
		{"no mode", []string{"--partner", id, "--event", ev.ID}, exitUsage, "opctl: webhook replay: --mode is required (test or live)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fails(t, h.run(t, append([]string{"webhook", "replay"}, tt.args...)...), tt.code, tt.want)
		})
	}
}

func TestParseWebhookID(t *testing.T) {
	tests := []struct {
		id              string
		event, endpoint string
		ok              bool
	}{
		{"msg_evt_1_we_0123456789abcdef", "evt_1", "we_0123456789abcdef", true},
		{"msg_evt_sv_survey.completed_we_ab", "evt_sv_survey.completed", "we_ab", true},
		{"msg_evt_x_we_y_we_z", "evt_x_we_y", "we_z", true},
		{"msg_we_a_we_b", "we_a", "we_b", true},
		{"msg__we_a", "", "", false},
		{"msg_evt_1_we_", "", "", false},
		{"msg_evt_1", "", "", false},
		{"evt_1_we_a", "", "", false},
		{"msg_evt_1_we_a_b", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			event, endpoint, ok := parseWebhookID(tt.id)
			if event != tt.event || endpoint != tt.endpoint || ok != tt.ok {
				t.Errorf("parseWebhookID(%q) = %q, %q, %v; want %q, %q, %v", tt.id, event, endpoint, ok, tt.event, tt.endpoint, tt.ok)
			}
		})
	}
}

// FuzzParseWebhookID checks that parseWebhookID never panics and that
// what it accepts is exactly the webhook-id of what it returns.
func FuzzParseWebhookID(f *testing.F) {
	for _, s := range []string{"msg_evt_1_we_0123456789abcdef", "msg__we_", "msg_we_", "msg_a_we_b_we_", "msg_\x00_we_\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		event, endpoint, ok := parseWebhookID(id)
		if !ok {
			return
		}
		if webhook.MessageID(event, endpoint) != id || event == "" || !strings.HasPrefix(endpoint, webhook.EndpointPrefix) {
			t.Errorf("parseWebhookID(%q) = %q, %q; want parts whose webhook-id is the input", id, event, endpoint)
		}
	})
}

// TestWebhookDeliveriesShowEveryAttempt: webhook deliveries lists every
// attempt of a delivery, oldest first, with its time, status (null: no
// answer), latency, error and the first bytes of the answer, as Stripe's
// dashboard does (issue 23, item 8: before, only the last attempt).
func TestWebhookDeliveriesShowEveryAttempt(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	ep := h.add(t, id, "--mode", "test", "--url", "https://hooks.example.com/")
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	h.deliver(t, ep.EndpointID, hookEvent("evt_new", webhook.SurveyCompleted, auth.Test, t0.Add(time.Hour)))
	h.deliver(t, ep.EndpointID, hookEvent("evt_retried", webhook.SurveyFailed, auth.Test, t0), 500, 0, 503, 204)

	r := h.run(t, "webhook", "deliveries", "--endpoint", ep.EndpointID)
	var out struct {
		Deliveries []struct {
			EventID    string           `json:"event_id"`
			AttemptLog []map[string]any `json:"attempt_log"`
		} `json:"deliveries"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if len(out.Deliveries) != 2 || out.Deliveries[0].EventID != "evt_new" || out.Deliveries[1].EventID != "evt_retried" {
		t.Fatalf("deliveries %+v; want evt_new, evt_retried", out.Deliveries)
	}
	if log := out.Deliveries[0].AttemptLog; log == nil || len(log) != 0 {
		t.Errorf("attempt_log of a delivery not yet attempted = %v; want []", log)
	}
	log := out.Deliveries[1].AttemptLog
	want := []struct {
		status any // float64, or nil: no answer
		err    any
	}{{float64(500), nil}, {nil, "dial tcp: connection refused"}, {float64(503), nil}, {float64(204), nil}}
	if len(log) != len(want) {
		t.Fatalf("attempt_log %v; want %d attempts", log, len(want))
	}
	for i, a := range log {
		if a["n"] != float64(i+1) || a["at"] != lead.FormatTime(t0.Add(time.Duration(i)*time.Minute)) ||
			a["status"] != want[i].status || a["error"] != want[i].err || a["latency_ms"] != float64(42) {
			t.Errorf("attempt %d = %v; want n %d, status %v, error %v, 42 ms", i+1, a, i+1, want[i].status, want[i].err)
		}
		body, _ := a["body"].(string)
		if want[i].status == nil && body != "" || want[i].status != nil && (len(body) > maxShownBody || len(body) < maxShownBody-1 || !strings.HasPrefix(strings.Repeat("é", 300), body)) {
			t.Errorf("attempt %d body %q; want the answer's first %d bytes (none without an answer)", i+1, body, maxShownBody)
		}
	}
}
