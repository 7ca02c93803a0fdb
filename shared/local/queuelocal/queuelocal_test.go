package queuelocal

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// run starts q on h and stops it when the test ends.
func run(t *testing.T, q *Queue, h func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- q.Run(ctx, h) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// TestDelayFailureAndDeadLetter: a delayed message waits while another is
// delivered; a message reported failed comes back (same id, higher receive
// count) until MaxReceives, then is a dead letter; the handler gets the
// SQS event shape.
func TestDelayFailureAndDeadLetter(t *testing.T) {
	q := New("jobs", Options{Visibility: time.Millisecond, MaxReceives: 3})
	got := make(chan events.SQSMessage, 10)
	run(t, q, func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for _, m := range ev.Records {
			got <- m
			if m.Body == "bad" {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return resp, nil
	})
	q.Send(context.Background(), []string{"later"}, time.Hour)
	q.Send(context.Background(), []string{"bad"}, 0)
	var ids []string
	for i := 1; i <= 3; i++ {
		m := <-got
		if m.Body != "bad" || m.Attributes["ApproximateReceiveCount"] != string(rune('0'+i)) || m.EventSource != "aws:sqs" {
			t.Fatalf("receive %d: %+v; want the failing message, receive count %d", i, m, i)
		}
		ids = append(ids, m.MessageId)
	}
	if ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("message ids %v; want one message received three times", ids)
	}
	for deadline := time.Now().Add(10 * time.Second); len(q.DeadLetters()) == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if d := q.DeadLetters(); len(d) != 1 || d[0] != "bad" {
		t.Errorf("dead letters %q; want [bad]", d)
	}
	if q.Len() != 1 {
		t.Errorf("%d messages left; want the delayed one", q.Len())
	}
	select {
	case m := <-got:
		t.Errorf("received %q before its delay", m.Body)
	default:
	}
}

// TestConcurrencyBound: with Concurrency 2 and batches of 1, at most two
// handler calls run at once, and every message is delivered once.
func TestConcurrencyBound(t *testing.T) {
	q := New("jobs", Options{BatchSize: 1, Concurrency: 2})
	var (
		mu           sync.Mutex
		running, top int
		seen         = map[string]int{}
	)
	all := make(chan struct{})
	run(t, q, func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		mu.Lock()
		running++
		top = max(top, running)
		for _, m := range ev.Records {
			seen[m.Body]++
		}
		if len(seen) == 8 {
			close(all)
		}
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return events.SQSEventResponse{}, nil
	})
	q.Send(context.Background(), []string{"1", "2", "3", "4", "5", "6", "7", "8"}, 0)
	<-all
	mu.Lock()
	defer mu.Unlock()
	if top > 2 || top < 1 {
		t.Errorf("%d batches ran at once; want at most 2", top)
	}
	for b, n := range seen {
		if n != 1 {
			t.Errorf("message %s delivered %d times", b, n)
		}
	}
}

// TestConcurrentBatchesKeepTheirFailures: batches that run at once each
// report their own failures. One aws-lambda-go handler shared by the
// workers encoded every answer into one buffer (a race under -race, and a
// batch could read another's failures).
func TestConcurrentBatchesKeepTheirFailures(t *testing.T) {
	q := New("jobs", Options{Visibility: time.Hour, MaxReceives: 1, Concurrency: 4, BatchSize: 1})
	run(t, q, func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for _, m := range ev.Records {
			if strings.HasPrefix(m.Body, "bad") {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return resp, nil
	})
	var bodies []string
	for i := range 40 {
		kind := "good"
		if i%2 == 0 {
			kind = "bad"
		}
		bodies = append(bodies, fmt.Sprintf("%s-%02d", kind, i))
	}
	if err := q.Send(context.Background(), bodies, 0); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); (q.Len() > 0 || len(q.DeadLetters()) < 20) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	dead := q.DeadLetters()
	slices.Sort(dead)
	if len(dead) != 20 || q.Len() != 0 {
		t.Fatalf("dead letters %v, %d left; want the 20 bad ones only", dead, q.Len())
	}
	for _, d := range dead {
		if !strings.HasPrefix(d, "bad") {
			t.Errorf("dead letter %s: a good message failed", d)
		}
	}
}
