package hookwiring

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/edge/queueevent"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/local/queuelocal"
	"github.com/moveleads/partnerapi/shared/local/streamlocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// TestSlowEndpointDelaysOnlyItself (issue 23, item 3): partner B's
// endpoint hangs on every delivery and B is owed several events; partner
// A's state change that follows reaches A's fast endpoint before any of
// B's attempts has returned, through the real path: the table's stream
// (DynamoDB Local) → webhook-dispatcher's handler → the attempts queue
// (shared/local/queuelocal, the manifest's batch size and concurrency) →
// webhook-sender's handler → the endpoints. When the dispatcher waited
// for attempts, A's record queued behind B's and its delivery came only
// after B's attempts timed out. The check is causal (A's delivery seen
// while B's attempts still hang), not a wall-clock bound.
func TestSlowEndpointDelaysOnlyItself(t *testing.T) {
	f := newFixture(t)
	ctx, stop := context.WithCancel(context.Background())
	tenantA := auth.Tenant{PartnerID: "ptn_fast", Mode: auth.Test}
	tenantB := auth.Tenant{PartnerID: "ptn_slow", Mode: auth.Test}

	release := make(chan struct{}) // B's requests hang until the test ends
	var bStarted, bReturned atomic.Int32
	bReturn := make(chan struct{}, 100)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body first: only then does the server watch the
		// connection, so the client giving up ends the wait below.
		io.Copy(io.Discard, r.Body)
		bStarted.Add(1)
		defer func() { bReturned.Add(1); bReturn <- struct{}{} }()
		select {
		case <-release:
		case <-r.Context().Done(): // the sender's attempt timeout
		}
	}))
	aGot := make(chan string, 10)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		aGot <- r.Header.Get("webhook-id")
	}))
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }); slow.Close(); fast.Close() })
	for _, e := range []struct {
		tn  auth.Tenant
		url string
	}{{tenantA, fast.URL}, {tenantB, slow.URL}} {
		ep, _, err := webhook.NewEndpoint(e.tn, e.url, nil, f.sealer, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := f.store.PutEndpoint(ctx, ep); err != nil {
			t.Fatal(err)
		}
	}

	sender, _ := manifest.BySlug("webhook-sender")
	q := queuelocal.New(manifest.QueueWebhookAttempts, queuelocal.Options{
		BatchSize: sender.Queue.BatchSize, Concurrency: sender.Queue.MaxConcurrency,
	})
	dispatcher, _ := DispatcherWith(f.env, q)
	attempts, _ := AttemptsWith(f.env, q)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		q.Run(ctx, queueevent.New(attempts, sender.Queue.BatchSize, nil))
	}()
	go func() {
		defer wg.Done()
		if err := streamlocal.Poll(ctx, f.db, streamlocal.StreamsClient(f.db), table.EventsName(f.name), streamlocal.TrimHorizon, 10,
			streamevent.New(dispatcher, nil), nil); err != nil {
			t.Error(err)
		}
	}()
	defer func() { stop(); once.Do(func() { close(release) }); wg.Wait() }()

	const slowEvents = 3
	for range slowEvents {
		f.completeSurveyOf(t, tenantB)
	}
	// B's attempts are under way (and hang) before A's state change.
	for bStarted.Load() < slowEvents {
		select {
		case <-bReturn:
			t.Fatal("one of B's attempts returned (its timeout) before B's three had started: the records are attempted one after another")
		case <-time.After(20 * time.Millisecond):
		}
	}
	evs := f.completeSurveyOf(t, tenantA)
	select {
	case id := <-aGot:
		if n := bReturned.Load(); n != 0 {
			t.Fatalf("A's delivery %s arrived after %d of B's attempts returned; want it while they all hang", id, n)
		}
		if len(evs) == 0 || !strings.HasPrefix(id, "msg_") {
			t.Errorf("A received webhook-id %q", id)
		}
	case <-bReturn:
		t.Fatalf("one of B's hanging attempts returned (its timeout) before A's delivery arrived: A waited for B (started %d)", bStarted.Load())
	}
}
