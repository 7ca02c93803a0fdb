package queueevent

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

type procFunc func(context.Context, Message) error

func (f procFunc) Process(ctx context.Context, m Message) error { return f(ctx, m) }

func batch(n int) events.SQSEvent {
	var ev events.SQSEvent
	for i := range n {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: "m" + strconv.Itoa(i), Body: "body " + strconv.Itoa(i), EventSource: "aws:sqs",
			Attributes: map[string]string{"ApproximateReceiveCount": "2"},
		})
	}
	return ev
}

// TestFailedMessagesReported: through aws-lambda-go's handler wrapper (as
// the runtime invokes it), every message is processed and exactly the
// failed ones come back as item failures.
func TestFailedMessagesReported(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]Message{}
	h := New(procFunc(func(_ context.Context, m Message) error {
		mu.Lock()
		seen[m.ID] = m
		mu.Unlock()
		if m.ID == "m1" || m.ID == "m3" {
			return errors.New("storage down")
		}
		return nil
	}), 2, nil)
	payload, _ := json.Marshal(batch(5))
	out, err := lambda.NewHandler(h).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	var resp events.SQSEventResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		got[f.ItemIdentifier] = true
	}
	if len(got) != 2 || !got["m1"] || !got["m3"] {
		t.Errorf("item failures %v; want m1 and m3", resp.BatchItemFailures)
	}
	if len(seen) != 5 || seen["m4"].Body != "body 4" || seen["m4"].ReceiveCount != 2 {
		t.Errorf("processed %+v; want all 5 with body and receive count", seen)
	}
}

// TestSlowMessageHoldsNoOther: while one message's processing blocks,
// the batch's other messages are processed (parallel 2, so the blocked
// one holds one slot only).
func TestSlowMessageHoldsNoOther(t *testing.T) {
	release := make(chan struct{})
	others := make(chan string, 10)
	h := New(procFunc(func(ctx context.Context, m Message) error {
		if m.ID == "m0" {
			<-release
			return nil
		}
		others <- m.ID
		return nil
	}), 2, nil)
	done := make(chan events.SQSEventResponse)
	go func() { r, _ := h(context.Background(), batch(4)); done <- r }()
	for range 3 {
		<-others // each arrives while m0 is still blocked
	}
	close(release)
	if r := <-done; len(r.BatchItemFailures) != 0 {
		t.Errorf("failures %v", r.BatchItemFailures)
	}
}
