package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

func testEndpoint(id string, tn auth.Tenant) webhook.Endpoint {
	return webhook.Endpoint{
		ID: id, Tenant: tn, URL: "https://hooks.example.com/" + id, Types: []webhook.Type{webhook.SurveyCompleted},
		CreatedAt: t0, Sealed: webhook.SealedSecrets{Current: "v1:sealed-" + id},
	}
}

func TestEndpoints(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	live := auth.Tenant{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}
	a, b, c := testEndpoint("we_a", surveyTenant), testEndpoint("we_b", surveyTenant), testEndpoint("we_c", live)
	b.CreatedAt = t0.Add(time.Second)
	for _, e := range []webhook.Endpoint{a, b, c} {
		if err := s.PutEndpoint(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, s.PutEndpoint(ctx, a), errcode.Conflict)
	got, err := s.TenantEndpoints(ctx, surveyTenant)
	if err != nil || len(got) != 2 || got[0].ID != "we_a" || got[1].ID != "we_b" {
		t.Fatalf("test endpoints = %+v, %v; want we_a, we_b (never the live one)", got, err)
	}
	if got, _ := s.TenantEndpoints(ctx, live); len(got) != 1 || got[0].ID != "we_c" {
		t.Errorf("live endpoints = %+v; want we_c only", got)
	}
	a.Disabled, a.DisabledReason, a.DisabledAt = true, "every attempt failed for 5 days", t0.Add(time.Hour)
	a.FailingSince = t0
	a.Sealed = webhook.SealedSecrets{Current: "v1:new", Previous: "v1:old", PreviousUntil: t0.Add(24 * time.Hour)}
	if err := s.UpdateEndpoint(ctx, a); err != nil {
		t.Fatal(err)
	}
	back, err := s.GetEndpoint(ctx, "we_a")
	if err != nil || !back.Disabled || back.DisabledReason != a.DisabledReason || !back.FailingSince.Equal(t0) ||
		back.Sealed != a.Sealed || back.URL != a.URL || len(back.Types) != 1 {
		t.Errorf("endpoint after update = %+v, %v; want %+v", back, err, a)
	}
	a.Disabled, a.DisabledReason, a.DisabledAt, a.FailingSince = false, "", time.Time{}, time.Time{}
	if err := s.UpdateEndpoint(ctx, a); err != nil {
		t.Fatal(err)
	}
	if back, _ := s.GetEndpoint(ctx, "we_a"); back.Disabled || back.DisabledReason != "" || !back.FailingSince.IsZero() {
		t.Errorf("re-enabled endpoint %+v", back)
	}
	wantCode(t, s.UpdateEndpoint(ctx, testEndpoint("we_gone", surveyTenant)), errcode.NotFound)
	_, err = s.GetEndpoint(ctx, "we_gone")
	wantCode(t, err, errcode.NotFound)
}

func TestDeliveryLifecycle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	ev := webhook.Event{ID: "evt_1", Type: webhook.SurveyCompleted, Mode: "test", At: t0, Data: json.RawMessage(`{"lead_id":"l"}`)}
	d := webhook.Delivery{EndpointID: "we_a", Event: ev, Status: webhook.Pending, NextAt: t0}
	if created, err := s.CreateDelivery(ctx, d); err != nil || !created {
		t.Fatalf("CreateDelivery = %v, %v", created, err)
	}
	if created, err := s.CreateDelivery(ctx, d); err != nil || created {
		t.Fatalf("second CreateDelivery = %v, %v; want false (no second delivery)", created, err)
	}
	due, err := s.DueDeliveries(ctx, t0, 10)
	if err != nil || len(due) != 1 || due[0].ID() != d.ID() || string(due[0].Event.Data) != string(ev.Data) {
		t.Fatalf("due = %+v, %v; want the delivery", due, err)
	}
	claimed, err := s.ClaimAttempt(ctx, due[0], t0, time.Minute)
	if err != nil || claimed.Attempts != 1 {
		t.Fatalf("ClaimAttempt = %+v, %v", claimed, err)
	}
	if _, err := s.ClaimAttempt(ctx, due[0], t0, time.Minute); !errors.Is(err, ErrChanged) {
		t.Errorf("claiming the same attempt twice = %v; want ErrChanged", err)
	}
	if due, _ := s.DueDeliveries(ctx, t0.Add(30*time.Second), 10); len(due) != 0 {
		t.Errorf("a claimed delivery is due within its lease: %+v", due)
	}
	if due, _ := s.DueDeliveries(ctx, t0.Add(time.Minute), 10); len(due) != 1 {
		t.Errorf("a claim whose lease ended is not due again: %+v", due)
	}
	next := t0.Add(5 * time.Second)
	long := strings.Repeat("x", 3000)
	after, err := s.FinishAttempt(ctx, claimed, webhook.Attempt{N: 1, At: t0, Status: 500, Latency: 12 * time.Millisecond, Body: long}, next)
	if err != nil || after.Status != webhook.Pending || !after.NextAt.Equal(next) {
		t.Fatalf("FinishAttempt(500) = %+v, %v; want pending until %s", after, err, next)
	}
	if _, err := s.FinishAttempt(ctx, claimed, webhook.Attempt{N: 1, At: t0, Status: 200}, time.Time{}); !errors.Is(err, ErrChanged) {
		t.Errorf("finishing the same attempt twice = %v; want ErrChanged", err)
	}
	if due, _ := s.DueDeliveries(ctx, next.Add(-time.Millisecond), 10); len(due) != 0 {
		t.Errorf("due before its next attempt: %+v", due)
	}
	due, _ = s.DueDeliveries(ctx, next, 10)
	if len(due) != 1 {
		t.Fatalf("not due at its next attempt: %+v", due)
	}
	claimed, _ = s.ClaimAttempt(ctx, due[0], next, time.Minute)
	if _, err := s.FinishAttempt(ctx, claimed, webhook.Attempt{N: 2, At: next, Status: 204, Latency: time.Millisecond}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetDelivery(ctx, "we_a", ev)
	if err != nil || got.Status != webhook.Delivered || got.Attempts != 2 {
		t.Errorf("delivery %+v, %v; want delivered after 2 attempts", got, err)
	}
	if due, _ := s.DueDeliveries(ctx, next.Add(time.Hour), 10); len(due) != 0 {
		t.Errorf("a delivered delivery is due: %+v", due)
	}
	log, err := s.Attempts(ctx, "we_a", ev)
	if err != nil || len(log) != 2 || log[0].Status != 500 || len(log[0].Body) != webhook.MaxLoggedBody || log[0].Latency != 12*time.Millisecond || !log[1].OK() {
		t.Errorf("attempts %+v, %v; want 500 (body cut at 1 KiB) then 204", log, err)
	}
	stale := got
	stale.Attempts = 1
	if _, err := s.Redeliver(ctx, stale, next.Add(time.Hour)); !errors.Is(err, ErrChanged) {
		t.Errorf("Redeliver of a stale read = %v; want ErrChanged", err)
	}
	re, err := s.Redeliver(ctx, got, next.Add(time.Hour))
	if err != nil || re.Status != webhook.Pending || re.Attempts != 2 || re.InRound() != 0 {
		t.Fatalf("Redeliver = %+v, %v; want pending, 2 attempts kept, a new round", re, err)
	}
	due, _ = s.DueDeliveries(ctx, next.Add(time.Hour), 10)
	if len(due) != 1 || due[0].ID() != d.ID() || due[0].InRound() != 0 || due[0].Attempts != 2 {
		t.Fatalf("redelivered delivery not due as a new round: %+v", due)
	}
	// The new round's attempt is logged as the third: the log keeps both
	// earlier ones.
	claimed, err = s.ClaimAttempt(ctx, due[0], next.Add(time.Hour), time.Minute)
	if err != nil || claimed.Attempts != 3 || claimed.InRound() != 1 {
		t.Fatalf("claim after redeliver = %+v, %v", claimed, err)
	}
	if _, err := s.FinishAttempt(ctx, claimed, webhook.Attempt{N: 3, At: next.Add(time.Hour), Status: 200}, time.Time{}); err != nil {
		t.Fatalf("finish the redelivery's attempt: %v", err)
	}
	if log, _ := s.Attempts(ctx, "we_a", ev); len(log) != 3 || log[2].N != 3 || log[0].Status != 500 {
		t.Errorf("attempt log after a redelivery: %+v; want 3 attempts", log)
	}
}

// TestEndpointDeliveries: an endpoint's delivery log lists newest event
// first, never its attempts, other endpoints' deliveries or the endpoint
// item; limit cuts it; FindDelivery finds one by event id alone.
func TestEndpointDeliveries(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.PutEndpoint(ctx, testEndpoint("we_a", surveyTenant)); err != nil {
		t.Fatal(err)
	}
	var evs []webhook.Event
	for i, id := range []string{"evt_old", "evt_mid", "evt_new"} {
		ev := webhook.Event{ID: id, Type: webhook.SurveyCompleted, Mode: "test", At: t0.Add(time.Duration(i) * time.Minute), Data: json.RawMessage(`{}`)}
		evs = append(evs, ev)
		if _, err := s.CreateDelivery(ctx, webhook.Delivery{EndpointID: "we_a", Event: ev, Status: webhook.Pending, NextAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateDelivery(ctx, webhook.Delivery{EndpointID: "we_b", Event: evs[2], Status: webhook.Pending, NextAt: t0}); err != nil {
		t.Fatal(err)
	}
	// An attempt item in the same partition must not list as a delivery.
	claimed, err := s.ClaimAttempt(ctx, webhook.Delivery{EndpointID: "we_a", Event: evs[1], Status: webhook.Pending, NextAt: t0}, t0, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishAttempt(ctx, claimed, webhook.Attempt{N: 1, At: t0, Status: 204}, time.Time{}); err != nil {
		t.Fatal(err)
	}

	ids := func(ds []webhook.Delivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Event.ID)
		}
		return out
	}
	tests := []struct {
		name     string
		endpoint string
		limit    int
		want     []string
	}{
		{"all", "we_a", 10, []string{"evt_new", "evt_mid", "evt_old"}},
		{"limit", "we_a", 2, []string{"evt_new", "evt_mid"}},
		{"other endpoint", "we_b", 10, []string{"evt_new"}},
		{"unknown endpoint", "we_none", 10, nil},
		{"zero limit", "we_a", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.EndpointDeliveries(ctx, tt.endpoint, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Error("EndpointDeliveries = nil; want an empty slice")
			}
			if g := ids(got); strings.Join(g, ",") != strings.Join(tt.want, ",") {
				t.Errorf("EndpointDeliveries(%s, %d) = %q; want %q", tt.endpoint, tt.limit, g, tt.want)
			}
		})
	}
	all, _ := s.EndpointDeliveries(ctx, "we_a", 10)
	if len(all) == 3 && (all[1].Status != webhook.Delivered || all[1].Attempts != 1) {
		t.Errorf("evt_mid's delivery = %+v; want delivered after 1 attempt", all[1])
	}

	d, err := s.FindDelivery(ctx, "we_a", "evt_old")
	if err != nil || d.Event.ID != "evt_old" || !d.Event.At.Equal(evs[0].At) || d.EndpointID != "we_a" {
		t.Errorf("FindDelivery(we_a, evt_old) = %+v, %v; want evt_old's delivery", d, err)
	}
	_, err = s.FindDelivery(ctx, "we_a", "evt_none")
	wantCode(t, err, errcode.NotFound)
	_, err = s.FindDelivery(ctx, "we_b", "evt_old")
	wantCode(t, err, errcode.NotFound)
}
