package webhooks_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/app/webhooks"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/wire/hookwiring"
)

func TestMain(m *testing.M) { dynamolocal.RunTests(m) }

var (
	tenantA = auth.Tenant{PartnerID: "ptn_a", Mode: auth.Test}
	tenantB = auth.Tenant{PartnerID: "ptn_b", Mode: auth.Test}
	liveA   = auth.Tenant{PartnerID: "ptn_a", Mode: auth.Live}
)

// fakeClock runs the schedule in no time: Sleep moves it on.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.Advance(d)
	return nil
}
func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// receiver is a partner's endpoint: it answers the statuses given in turn
// (then 200) and keeps every delivery.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	answers  []int
	received []received
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	r := &receiver{answers: answers}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.received = append(r.received, received{req.Header.Clone(), b})
		status := 200
		if len(r.answers) > 0 {
			status, r.answers = r.answers[0], r.answers[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(status)
		io.WriteString(w, "answer "+strconv.Itoa(status))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) got() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.received...)
}

// stack is a store on a fresh table, a sealer and the service.
type stack struct {
	store  *dynamo.Store
	sealer *webhook.Sealer
	clock  *fakeClock
	svc    *webhooks.Service
	queue  *testQueue
	faults map[string]int // step → how many more times it fails
	mu     sync.Mutex
}

// testQueue is the attempts queue on the fake clock: it keeps the refs
// handed off, each visible after its delay, and loses them while lose is
// set (a failed SendMessage).
type testQueue struct {
	clock *fakeClock
	mu    sync.Mutex
	msgs  []queued
	lose  bool
	sent  int
}

type queued struct {
	ref webhook.Ref
	at  time.Time
}

func (q *testQueue) Send(_ context.Context, refs []webhook.Ref, delay time.Duration) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.lose {
		return errors.New("queue unavailable")
	}
	for _, r := range refs {
		q.msgs = append(q.msgs, queued{r, q.clock.Now().Add(delay)})
		q.sent++
	}
	return nil
}

// next takes the earliest visible message, if any.
func (q *testQueue) next() (queued, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.msgs) == 0 {
		return queued{}, false
	}
	i := 0
	for j, m := range q.msgs {
		if m.at.Before(q.msgs[i].at) {
			i = j
		}
	}
	m := q.msgs[i]
	q.msgs = append(q.msgs[:i], q.msgs[i+1:]...)
	return m, true
}

// drain works the queue as the sender's workers do, moving the fake clock
// to each message's delay: Deliver each message times times (a queue
// delivers at least once), and put one that failed back after a
// visibility timeout of 30 s.
func (st *stack) drain(t *testing.T, times int) {
	t.Helper()
	for n := 0; ; n++ {
		if n > 100 {
			t.Fatal("the queue never empties")
		}
		m, ok := st.queue.next()
		if !ok {
			return
		}
		if wait := m.at.Sub(st.clock.Now()); wait > 0 {
			st.clock.Advance(wait)
		}
		for range times {
			if err := st.svc.Deliver(context.Background(), m.ref); err != nil {
				st.queue.mu.Lock()
				st.queue.msgs = append(st.queue.msgs, queued{m.ref, st.clock.Now().Add(30 * time.Second)})
				st.queue.mu.Unlock()
				break
			}
		}
	}
}

// fanout is the dispatcher and the sender: Fanout, then drain once.
func (st *stack) fanout(t *testing.T, tn auth.Tenant, ev webhook.Event) error {
	t.Helper()
	if err := st.svc.Fanout(context.Background(), tn, ev); err != nil {
		return err
	}
	st.drain(t, 1)
	return nil
}

func newStack(t *testing.T) *stack {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	name := "webhooks-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := dynamo.CreateTables(context.Background(), db, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dynamo.DeleteTables(context.Background(), db, name) })
	sealer, _ := webhook.NewSealer(make([]byte, 32))
	st := &stack{store: dynamo.New(db, name), sealer: sealer, clock: &fakeClock{now: time.Now().UTC().Truncate(time.Second)}, faults: map[string]int{}}
	st.queue = &testQueue{clock: st.clock}
	st.svc = webhooks.New(webhooks.Deps{
		Handoff: st.queue,
		Store:   st.store, Sender: hookwiring.WebhookSender{C: webhookhttp.New(webhookhttp.Options{AllowLoopback: true, Timeout: 2 * time.Second})},
		Sign: webhookhttp.Sign, Sealer: func(context.Context) (*webhook.Sealer, error) { return sealer, nil }, Clock: st.clock, Rand: func() float64 { return 0.5 },
		Fault: func(step string) error {
			st.mu.Lock()
			defer st.mu.Unlock()
			if st.faults[step] > 0 {
				st.faults[step]--
				return errors.New("injected crash at " + step)
			}
			return nil
		},
	})
	return st
}

// endpoint registers url for tn with a fresh secret and returns it.
func (st *stack) endpoint(t *testing.T, tn auth.Tenant, url string, types ...webhook.Type) (webhook.Endpoint, webhook.Secrets) {
	t.Helper()
	secret, _ := webhook.NewSecret()
	sec := webhook.Secrets{Current: secret}
	id := "we_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	sealed, err := sec.Seal(st.sealer, id)
	if err != nil {
		t.Fatal(err)
	}
	e := webhook.Endpoint{ID: id, Tenant: tn, URL: url, Types: types, CreatedAt: st.clock.Now(), Sealed: sealed}
	if err := st.store.PutEndpoint(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	return e, sec
}

func event(id string, mode auth.Mode, at time.Time) webhook.Event {
	return webhook.Event{ID: id, Type: webhook.SurveyCompleted, Mode: string(mode), At: at, Data: []byte(`{"lead_id":"lead_1"}`)}
}

// verify checks a delivery with the Standard Webhooks library's verifier
// (the timestamp is the fake clock's, so its tolerance is not applied).
func verify(t *testing.T, secret string, r received) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.VerifyIgnoringTimestamp(r.body, r.header); err != nil {
		t.Errorf("delivery does not verify: %v", err)
	}
}

// TestRetriesOnTheSchedule: 500 three times, then 200: exactly four
// attempts, at the schedule's offsets, all with the same webhook-id, each
// verifying.
func TestRetriesOnTheSchedule(t *testing.T) {
	st := newStack(t)
	ctx := context.Background()
	rcv := newReceiver(t, 500, 500, 500)
	ep, sec := st.endpoint(t, tenantA, rcv.URL)
	t0 := st.clock.Now()
	ev := event("evt_retry", auth.Test, t0)
	if err := st.fanout(t, tenantA, ev); err != nil {
		t.Fatal(err)
	}
	if got := len(rcv.got()); got != 2 {
		t.Fatalf("%d attempts after Fanout and the queue; want 2 (at once and after 5 s)", got)
	}
	// The retrier runs each minute; nothing is due before 5 minutes.
	for range 10 {
		st.clock.Advance(time.Minute)
		if _, err := st.svc.RetryDue(ctx, 10); err != nil {
			t.Fatal(err)
		}
	}
	for range 30 {
		st.clock.Advance(time.Minute)
		if _, err := st.svc.RetryDue(ctx, 10); err != nil {
			t.Fatal(err)
		}
	}
	got := rcv.got()
	if len(got) != 4 {
		t.Fatalf("%d attempts; want 4", len(got))
	}
	var prev int64
	wantGaps := []int64{0, 5, 5 * 60, 30 * 60}
	for i, r := range got {
		if id := r.header.Get("webhook-id"); id != webhook.MessageID(ev.ID, ep.ID) {
			t.Errorf("attempt %d: webhook-id %q; want %q on every attempt", i+1, id, webhook.MessageID(ev.ID, ep.ID))
		}
		verify(t, sec.Current, r)
		ts, _ := strconv.ParseInt(r.header.Get("webhook-timestamp"), 10, 64)
		if i > 0 {
			// The retrier ticks each minute: an attempt is made at the
			// first tick at or after it is due.
			gap := ts - prev
			if gap < wantGaps[i] || gap > wantGaps[i]+60 {
				t.Errorf("attempt %d came %d s after the one before; want %d s (retrier ticks each minute)", i+1, gap, wantGaps[i])
			}
		}
		prev = ts
	}
	d, err := st.store.GetDelivery(ctx, ep.ID, ev)
	if err != nil || d.Status != webhook.Delivered || d.Attempts != 4 {
		t.Errorf("delivery %+v, %v; want delivered after 4 attempts", d, err)
	}
	log, _ := st.store.Attempts(ctx, ep.ID, ev)
	if len(log) != 4 || log[0].Status != 500 || log[3].Status != 200 || log[0].Body != "answer 500" {
		t.Errorf("attempt log %+v", log)
	}
	if e, _ := st.store.GetEndpoint(ctx, ep.ID); !e.FailingSince.IsZero() || e.Disabled {
		t.Errorf("endpoint after a success: %+v; want healthy", e)
	}
}

// TestRotationSignsWithBoth: during a rotation each delivery verifies with
// either secret.
func TestRotationSignsWithBoth(t *testing.T) {
	st := newStack(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	ep, old := st.endpoint(t, tenantA, rcv.URL)
	next, _ := webhook.NewSecret()
	rotated := old.Rotate(next, st.clock.Now())
	sealed, _ := rotated.Seal(st.sealer, ep.ID)
	ep.Sealed = sealed
	if err := st.store.UpdateEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	if err := st.fanout(t, tenantA, event("evt_rot", auth.Test, st.clock.Now())); err != nil {
		t.Fatal(err)
	}
	got := rcv.got()
	if len(got) != 1 {
		t.Fatalf("%d deliveries", len(got))
	}
	verify(t, old.Current, got[0])
	verify(t, next, got[0])
}

// TestIsolation: a partner's events reach only its own endpoints of the
// event's mode, and only for the types they asked for.
func TestIsolation(t *testing.T) {
	st := newStack(t)
	ctx := context.Background()
	a, b, live, other := newReceiver(t), newReceiver(t), newReceiver(t), newReceiver(t)
	st.endpoint(t, tenantA, a.URL)
	epB, _ := st.endpoint(t, tenantB, b.URL)
	epLive, _ := st.endpoint(t, liveA, live.URL)
	epOther, _ := st.endpoint(t, tenantA, other.URL, webhook.SurveyFailed)
	ev := event("evt_iso", auth.Test, st.clock.Now())
	if err := st.fanout(t, tenantA, ev); err != nil {
		t.Fatal(err)
	}
	if len(a.got()) != 1 || len(b.got()) != 0 || len(live.got()) != 0 || len(other.got()) != 0 {
		t.Errorf("deliveries: own %d, other partner %d, live %d, unsubscribed %d; want 1, 0, 0, 0",
			len(a.got()), len(b.got()), len(live.got()), len(other.got()))
	}
	// Not even a delivery is owed to them (a live endpoint's http URL would
	// be refused when sent; this shows it is never chosen).
	for _, ep := range []webhook.Endpoint{epB, epLive, epOther} {
		if d, err := st.store.GetDelivery(ctx, ep.ID, ev); err == nil {
			t.Errorf("endpoint %s (%s, %v) owes a delivery: %+v", ep.ID, ep.Tenant.Mode, ep.Types, d)
		}
	}
	if err := st.svc.Fanout(ctx, tenantA, event("evt_mode", auth.Live, st.clock.Now())); err == nil {
		t.Error("a live event fanned out to a test tenant")
	}
}

// TestCrashAtEachStep: a crash injected at any step of a delivery (the
// dispatcher's or the sender's) still ends in a delivery (at least once,
// same webhook-id); a duplicate stream record, and every queue message
// delivered twice, make no second delivery.
func TestCrashAtEachStep(t *testing.T) {
	for _, step := range []string{webhooks.StepFanout, webhooks.StepCreated, webhooks.StepHandoff, webhooks.StepClaimed, webhooks.StepSent, webhooks.StepFinish} {
		t.Run(step, func(t *testing.T) {
			st := newStack(t)
			ctx := context.Background()
			rcv := newReceiver(t)
			ep, sec := st.endpoint(t, tenantA, rcv.URL)
			ev := event("evt_crash", auth.Test, st.clock.Now())
			st.faults[step] = 1
			// The stream retries its record until the handler succeeds.
			for i := 0; ; i++ {
				if err := st.svc.Fanout(ctx, tenantA, ev); err == nil {
					break
				}
				if i == 3 {
					t.Fatal("Fanout keeps failing")
				}
			}
			// The sender works the queue; a message it failed comes back.
			st.drain(t, 2)
			// The retrier picks up what the crash left, once due.
			st.clock.Advance(webhooks.Lease + time.Second)
			if _, err := st.svc.RetryDue(ctx, 10); err != nil {
				t.Fatal(err)
			}
			got := rcv.got()
			if len(got) == 0 {
				t.Fatalf("crash at %s: the event was never delivered", step)
			}
			for _, r := range got {
				if r.header.Get("webhook-id") != webhook.MessageID(ev.ID, ep.ID) {
					t.Errorf("webhook-id %q", r.header.Get("webhook-id"))
				}
				verify(t, sec.Current, r)
			}
			if d, _ := st.store.GetDelivery(ctx, ep.ID, ev); d.Status != webhook.Delivered {
				t.Errorf("delivery %+v; want delivered", d)
			}
			// A duplicate stream record: no second delivery.
			before := len(rcv.got())
			if err := st.svc.Fanout(ctx, tenantA, ev); err != nil {
				t.Fatal(err)
			}
			st.drain(t, 2)
			st.clock.Advance(time.Hour)
			st.svc.RetryDue(ctx, 10)
			if after := len(rcv.got()); after != before {
				t.Errorf("a duplicate record sent %d more deliveries", after-before)
			}
			t.Logf("crash at %s: %d deliveries", step, before)
		})
	}
}

// TestDisabledAfterFiveDays: an endpoint failing every attempt is
// disabled, with the reason, once failures have lasted five days.
func TestDisabledAfterFiveDays(t *testing.T) {
	st := newStack(t)
	ctx := context.Background()
	rcv := newReceiver(t, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500)
	ep, _ := st.endpoint(t, tenantA, rcv.URL)
	for i := range 6 {
		if err := st.fanout(t, tenantA, event("evt_d"+strconv.Itoa(i), auth.Test, st.clock.Now())); err != nil {
			t.Fatal(err)
		}
		st.clock.Advance(24 * time.Hour)
	}
	e, err := st.store.GetEndpoint(ctx, ep.ID)
	if err != nil || !e.Disabled || e.DisabledReason == "" || e.FailingSince.IsZero() {
		t.Fatalf("endpoint %+v, %v; want disabled with a reason after 5 days of failures", e, err)
	}
	n := len(rcv.got())
	if err := st.fanout(t, tenantA, event("evt_after", auth.Test, st.clock.Now())); err != nil {
		t.Fatal(err)
	}
	if len(rcv.got()) != n {
		t.Error("a disabled endpoint still receives")
	}
}

// TestTargetedEvent: an event for one endpoint (an operator's
// webhook.test) reaches that endpoint only, whatever the others
// subscribe to, and never another tenant's endpoint of that id.
func TestTargetedEvent(t *testing.T) {
	st := newStack(t)
	target, sibling := newReceiver(t), newReceiver(t)
	ep, sec := st.endpoint(t, tenantA, target.URL, webhook.SurveyFailed)
	st.endpoint(t, tenantA, sibling.URL)
	ev := webhook.Event{ID: "evt_test_1", Type: webhook.Test, Mode: "test", At: st.clock.Now(), Data: []byte(`{}`), Endpoint: ep.ID}
	if err := st.fanout(t, tenantA, ev); err != nil {
		t.Fatal(err)
	}
	if len(target.got()) != 1 || len(sibling.got()) != 0 {
		t.Fatalf("target got %d, sibling %d; want 1 and 0", len(target.got()), len(sibling.got()))
	}
	verify(t, sec.Current, target.got()[0])
	if err := st.fanout(t, tenantB, webhook.Event{ID: "evt_test_2", Type: webhook.Test, Mode: "test", At: st.clock.Now(), Data: []byte(`{}`), Endpoint: ep.ID}); err != nil {
		t.Fatal(err)
	}
	if len(target.got()) != 1 {
		t.Error("another tenant's event reached the endpoint by naming it")
	}
}

// TestEnqueueThenRetryDue: Enqueue writes the deliveries without sending,
// twice is once, and RetryDue sends them and reports how overdue the most
// overdue one was.
func TestEnqueueThenRetryDue(t *testing.T) {
	st := newStack(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	st.endpoint(t, tenantA, rcv.URL)
	ev := event("evt_enq", auth.Test, st.clock.Now())
	for range 2 {
		if ds, err := st.svc.Enqueue(ctx, tenantA, ev); err != nil || len(ds) != 1 {
			t.Fatalf("Enqueue: %v %v; want one delivery", ds, err)
		}
	}
	if len(rcv.got()) != 0 {
		t.Fatal("Enqueue sent")
	}
	st.clock.Advance(90 * time.Second)
	rep, err := st.svc.RetryDue(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Due != 1 || rep.Attempted != 1 || rep.MostOverdue != 90*time.Second {
		t.Errorf("report %+v; want 1 due, 1 attempted, 90s overdue", rep)
	}
	if len(rcv.got()) != 1 {
		t.Errorf("%d deliveries; want 1", len(rcv.got()))
	}
	if rep, _ := st.svc.RetryDue(ctx, 10); rep.Due != 0 || rep.MostOverdue != 0 {
		t.Errorf("after delivery: %+v; want nothing due", rep)
	}
}

// TestLostHandoff: when the queue refuses the hand-off, Fanout still
// succeeds (the stream record is done: the delivery is written) and the
// retrier delivers it once due, once.
func TestLostHandoff(t *testing.T) {
	st := newStack(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	ep, _ := st.endpoint(t, tenantA, rcv.URL)
	ev := event("evt_lost", auth.Test, st.clock.Now())
	st.queue.lose = true
	if err := st.fanout(t, tenantA, ev); err != nil {
		t.Fatalf("Fanout with the queue down: %v; want nil (the deliveries are written)", err)
	}
	if len(rcv.got()) != 0 {
		t.Fatal("sent without the queue")
	}
	st.clock.Advance(time.Minute)
	if _, err := st.svc.RetryDue(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if got := rcv.got(); len(got) != 1 || got[0].header.Get("webhook-id") != webhook.MessageID(ev.ID, ep.ID) {
		t.Errorf("after the retrier: %d deliveries; want 1", len(got))
	}
}

// TestFanoutDoesNotAttempt: Fanout writes the deliveries and hands them
// off, one message each, and sends nothing itself: an endpoint's answer
// (or its silence) never holds up the stream record.
func TestFanoutDoesNotAttempt(t *testing.T) {
	st := newStack(t)
	ctx := context.Background()
	a, b := newReceiver(t), newReceiver(t)
	st.endpoint(t, tenantA, a.URL)
	st.endpoint(t, tenantA, b.URL)
	if err := st.svc.Fanout(ctx, tenantA, event("evt_fast", auth.Test, st.clock.Now())); err != nil {
		t.Fatal(err)
	}
	if len(a.got())+len(b.got()) != 0 {
		t.Errorf("Fanout sent %d deliveries itself; want 0 (the queue's workers send)", len(a.got())+len(b.got()))
	}
	if st.queue.sent != 2 {
		t.Errorf("%d messages handed off; want 2", st.queue.sent)
	}
	st.drain(t, 1)
	if len(a.got()) != 1 || len(b.got()) != 1 {
		t.Errorf("after the queue: %d and %d deliveries; want 1 each", len(a.got()), len(b.got()))
	}
}
