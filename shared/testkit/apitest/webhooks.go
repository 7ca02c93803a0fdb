package apitest

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/local/queuelocal"
	"github.com/moveleads/partnerapi/shared/local/streamlocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// runWebhooks runs the stack's webhook-dispatcher on the events table's
// stream (shared/local/streamlocal, as Lambda's mapping) and its
// webhook-sender on attempts (shared/local/queuelocal), as make dev does,
// until the test ends; a poller that stops with an error fails the test.
// webhook-retrier runs only when the test calls RunRetrier: its minute's
// schedule would make a test wait or race.
func (e *Env) runWebhooks(t testing.TB, name string, attempts *queuelocal.Queue) {
	t.Helper()
	f, ok := manifest.BySlug("webhook-dispatcher")
	if !ok || f.Stream == nil {
		t.Fatal("apitest: the manifest has no stream-triggered webhook-dispatcher")
	}
	dispatch, send := e.Stack.Streams()[f.Slug], e.Stack.Queues()["webhook-sender"]
	if dispatch == nil || send == nil {
		t.Fatal("apitest: the stack has no webhook-dispatcher or webhook-sender handler")
	}
	ctx, stop := context.WithCancel(context.Background())
	polled, queued := make(chan error, 1), make(chan error, 1)
	go func() {
		polled <- streamlocal.Poll(ctx, e.DB, streamlocal.StreamsClient(e.DB), table.EventsName(name), streamlocal.TrimHorizon,
			f.Stream.BatchSize, dispatch, nil)
	}()
	go func() { queued <- attempts.Run(ctx, send) }()
	// Registered after the table's deletion, so it runs before it.
	t.Cleanup(func() {
		stop()
		if err := <-polled; err != nil {
			t.Errorf("apitest: webhook-dispatcher's stream poller: %v", err)
		}
		<-queued
	})
}

// RunRetrier runs webhook-retrier once, as its schedule does every minute:
// it attempts every delivery that is due (a redelivery, say).
func (e *Env) RunRetrier(t testing.TB) {
	t.Helper()
	h := e.Stack.Jobs()["webhook-retrier"]
	if h == nil {
		t.Fatal("apitest: the stack has no webhook-retrier")
	}
	if err := h(context.Background(), events.EventBridgeEvent{ID: fmt.Sprintf("apitest-%d", tableSeq.Add(1)),
		DetailType: "Scheduled Event", Source: "aws.events"}); err != nil {
		t.Fatalf("webhook-retrier: %v", err)
	}
}
