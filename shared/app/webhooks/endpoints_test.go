package webhooks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/app/webhooks"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// endpoints returns the management service over st's store, with
// partners A and B.
func (st *stack) endpoints(t *testing.T) *webhooks.Endpoints {
	t.Helper()
	for _, id := range []string{tenantA.PartnerID, tenantB.PartnerID} {
		p := partner.Partner{ID: id, Name: id, RateCard: estimate.DefaultRateCard("usd"), CreatedAt: time.Now()}
		if err := st.store.CreatePartner(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	return webhooks.NewEndpoints(webhooks.EndpointDeps{
		Store: st.store, CheckURL: webhookhttp.CheckURL, Now: st.clock.Now,
		Sealer: func(context.Context) (*webhook.Sealer, error) { return st.sealer, nil },
	})
}

func wantCode(t *testing.T, what string, err error, code errcode.Code) {
	t.Helper()
	if e := errcode.As(err); e == nil || e.Code != code {
		t.Errorf("%s: error %v; want %s", what, err, code)
	}
}

// TestEndpointsWithinOnePartner: partner B's person can neither read nor
// change A's endpoint, its deliveries or its secret, and nothing of A's
// changes when B tries; A's delivery log shows a failed attempt's status,
// latency and first bytes; A's changes are audited with the actor.
func TestEndpointsWithinOnePartner(t *testing.T) {
	st := newStack(t)
	svc := st.endpoints(t)
	ctx := context.Background()
	alice := audit.ByPerson("per_alice", "alice@a.example")
	bob := audit.ByPerson("per_bob", "bob@b.example")
	rcv := newReceiver(t, 503, 503)

	added, err := svc.Add(ctx, alice, tenantA, rcv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if added.Secret == "" || added.Endpoint.Sealed.Current == "" {
		t.Fatalf("Add = %+v; want a secret, stored sealed", added)
	}
	ep := added.Endpoint
	bAdded, err := svc.Add(ctx, bob, tenantB, rcv.URL, []webhook.Type{webhook.SurveyCompleted})
	if err != nil {
		t.Fatal(err)
	}
	ev := event("evt_log", auth.Test, st.clock.Now())
	if err := st.fanout(t, tenantA, ev); err != nil {
		t.Fatal(err)
	}

	// B against A's endpoint and delivery: not found, every time.
	_, err = svc.Get(ctx, "ptn_b", ep.ID)
	wantCode(t, "Get", err, errcode.NotFound)
	_, _, err = svc.Deliveries(ctx, "ptn_b", ep.ID, 10)
	wantCode(t, "Deliveries", err, errcode.NotFound)
	_, err = svc.Disable(ctx, bob, "ptn_b", ep.ID, "bob")
	wantCode(t, "Disable", err, errcode.NotFound)
	_, err = svc.Enable(ctx, bob, "ptn_b", ep.ID)
	wantCode(t, "Enable", err, errcode.NotFound)
	_, err = svc.RotateSecret(ctx, bob, "ptn_b", ep.ID)
	wantCode(t, "RotateSecret", err, errcode.NotFound)
	_, err = svc.SendTest(ctx, bob, "ptn_b", ep.ID)
	wantCode(t, "SendTest", err, errcode.NotFound)
	_, err = svc.Redeliver(ctx, bob, "ptn_b", ep.ID, ev.ID)
	wantCode(t, "Redeliver", err, errcode.NotFound)
	_, err = svc.Redeliver(ctx, bob, "ptn_b", bAdded.Endpoint.ID, ev.ID)
	wantCode(t, "Redeliver of an event B's endpoint never had", err, errcode.NotFound)
	if eps, _ := svc.List(ctx, "ptn_b"); len(eps) != 1 || eps[0].ID != bAdded.Endpoint.ID {
		t.Errorf("List(b) = %+v; want B's one endpoint", eps)
	}

	// A's delivery log: both attempts failed with 503, as logged.
	got, logs, err := svc.Deliveries(ctx, "ptn_a", ep.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got.Disabled || got.FailingSince.IsZero() {
		t.Errorf("endpoint after B's attempts and two failures = %+v; want enabled (B changed nothing), failing", got)
	}
	if len(logs) != 1 || len(logs[0].Attempts) != 2 {
		t.Fatalf("delivery log = %+v; want one delivery with two attempts", logs)
	}
	for _, a := range logs[0].Attempts {
		if a.Status != 503 || a.Latency <= 0 || a.Body != "answer 503" || a.At.IsZero() {
			t.Errorf("attempt %+v; want status 503, a latency, body %q, a time", a, "answer 503")
		}
	}

	// A redelivers: pending, due now, and the third attempt succeeds.
	st.clock.Advance(time.Second) // the trail sorts by time
	re, err := svc.Redeliver(ctx, alice, "ptn_a", ep.ID, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	if re.Before.Attempts != 2 || re.After.Status != webhook.Pending || len(re.After.Attempts) != 2 {
		t.Errorf("Redeliver = %+v; want pending with the two earlier attempts kept", re)
	}
	st.clock.Advance(time.Second) // the trail sorts by time
	if _, err := svc.Disable(ctx, alice, "ptn_a", ep.ID, "paused by alice"); err != nil {
		t.Fatal(err)
	}
	_, err = svc.SendTest(ctx, alice, "ptn_a", ep.ID)
	if !errors.Is(err, webhooks.ErrDisabled) {
		t.Errorf("SendTest to a disabled endpoint = %v; want ErrDisabled", err)
	}
	wantCode(t, "SendTest disabled", err, errcode.Conflict)
	st.clock.Advance(time.Second) // the trail sorts by time
	if _, err := svc.Enable(ctx, alice, "ptn_a", ep.ID); err != nil {
		t.Fatal(err)
	}
	st.clock.Advance(time.Second) // the trail sorts by time
	rot, err := svc.RotateSecret(ctx, alice, "ptn_a", ep.ID)
	if err != nil || rot.Secret == "" || rot.Secret == added.Secret || !rot.PreviousUntil.After(st.clock.Now()) {
		t.Fatalf("RotateSecret = %+v, %v; want a new secret, the old one signing a while", rot, err)
	}
	st.clock.Advance(time.Second) // the trail sorts by time
	test, err := svc.SendTest(ctx, alice, "ptn_a", ep.ID)
	if err != nil || test.Endpoint != ep.ID || test.Type != webhook.Test {
		t.Fatalf("SendTest = %+v, %v; want a test event for %s", test, err, ep.ID)
	}

	trail, err := st.store.ListAudit(ctx, "ptn_a", 20)
	if err != nil {
		t.Fatal(err)
	}
	want := []audit.Action{audit.EndpointTestSent, audit.EndpointSecretRotated, audit.EndpointEnabled, audit.EndpointDisabled, audit.DeliveryRedelivered, audit.EndpointAdded}
	if len(trail) != len(want) {
		t.Fatalf("A's audit trail = %+v; want %v", trail, want)
	}
	for i, e := range trail {
		if e.Action != want[i] || e.Actor != alice || e.PartnerID != "ptn_a" {
			t.Errorf("audit entry %d = %+v; want %s by alice", i, e, want[i])
		}
	}
	if trail[4].TargetID != webhook.MessageID(ev.ID, ep.ID) || trail[5].TargetID != ep.ID {
		t.Errorf("audit targets %q, %q; want the delivery's webhook-id and the endpoint", trail[4].TargetID, trail[5].TargetID)
	}
	if trail, _ := st.store.ListAudit(ctx, "ptn_b", 20); len(trail) != 1 || trail[0].Action != audit.EndpointAdded {
		t.Errorf("B's audit trail = %+v; want only its endpoint's addition", trail)
	}
}

// TestAddRefusesBadURLs: the scheme rules of opctl (https when live, no
// userinfo, ...) are validation_failed, with nothing written.
func TestAddRefusesBadURLs(t *testing.T) {
	st := newStack(t)
	svc := st.endpoints(t)
	ctx := context.Background()
	op := audit.ByOperator()
	for _, c := range []struct {
		name string
		t    auth.Tenant
		url  string
	}{
		{"ftp", tenantA, "ftp://hooks.example.com/x"},
		{"http in live mode", liveA, "http://hooks.example.com/x"},
		{"userinfo", tenantA, "https://user:pw@hooks.example.com/x"},
		{"relative", tenantA, "/hooks"},
	} {
		_, err := svc.Add(ctx, op, c.t, c.url, nil)
		wantCode(t, c.name, err, errcode.ValidationFailed)
	}
	_, err := svc.Add(ctx, op, auth.Tenant{PartnerID: "ptn_x", Mode: auth.Test}, "https://hooks.example.com/x", nil)
	wantCode(t, "unknown partner", err, errcode.NotFound)
	if eps, _ := svc.List(ctx, "ptn_a"); len(eps) != 0 {
		t.Errorf("endpoints after refused adds = %+v; want none", eps)
	}
	if trail, _ := st.store.ListAudit(ctx, "ptn_a", 10); len(trail) != 0 {
		t.Errorf("audit after refused adds = %+v; want none", trail)
	}
}
