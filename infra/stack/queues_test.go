package stack

import (
	"reflect"
	"slices"
	"testing"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// TestQueues: each queue-triggered function of the manifest is invoked by
// one SQS mapping from its queue, with its batch size, its maximum
// concurrency and partial batch failures; the queue hands a message
// received queueMaxReceives times to a dead-letter queue and hides a
// received one for queueVisibility; exactly the functions that send to
// it (SendsTo) may sqs:SendMessage to it, and get its URL.
func TestQueues(t *testing.T) {
	s := devStack(t)
	fids := s.functionIDs(t)
	for _, f := range manifest.Functions {
		if f.Queue == nil {
			continue
		}
		p := props(s.streamMapping(t, f.Slug))
		q := getAtt(p["EventSourceArn"], "Arn")
		queue, ok := s.resources("AWS::SQS::Queue")[q]
		if !ok {
			t.Fatalf("%s: mapping from %v, not a queue of the stack", f.Slug, p["EventSourceArn"])
		}
		want := map[string]any{
			"BatchSize":             float64(f.Queue.BatchSize),
			"FunctionResponseTypes": []any{"ReportBatchItemFailures"},
			"ScalingConfig":         map[string]any{"MaximumConcurrency": float64(f.Queue.MaxConcurrency)},
		}
		for k, v := range want {
			if !reflect.DeepEqual(p[k], v) {
				t.Errorf("%s mapping: %s = %v; want %v", f.Slug, k, p[k], v)
			}
		}
		qp := props(queue)
		redrive, _ := qp["RedrivePolicy"].(map[string]any)
		if redrive["maxReceiveCount"] != float64(queueMaxReceives) || qp["VisibilityTimeout"] != queueVisibility.Seconds() {
			t.Errorf("queue %s: redrive %v, visibility %v; want %d receives, %v", q, redrive, qp["VisibilityTimeout"], queueMaxReceives, queueVisibility)
		} else {
			s.checkDeadLetterQueue(t, getAtt(redrive["deadLetterTargetArn"], "Arn"))
		}
		if queueVisibility < 6*timeout(f) {
			t.Errorf("visibility %v; want at least 6 × the function's timeout %v", queueVisibility, timeout(f))
		}
		for _, g := range manifest.Functions {
			sends := false
			for _, st := range s.functionStatements(t, g.Slug) {
				if st.effect == "Allow" && slices.Contains(st.actions, "sqs:SendMessage") && len(st.resources) == 1 && getAtt(st.resources[0], "Arn") == q {
					sends = true
				}
			}
			vars, _ := props(s.resources("AWS::Lambda::Function")[fids[g.Slug]])["Environment"].(map[string]any)["Variables"].(map[string]any)
			url, hasURL := vars[settings.QueueURLVar(f.Queue.Name)]
			want := slices.Contains(g.SendsTo, f.Queue.Name)
			if sends != want || hasURL != want || (want && ref(url) != q) {
				t.Errorf("%s: may send to %s: %v, its URL %v; want %v (SendsTo %q)", g.Slug, f.Queue.Name, sends, url, want, g.SendsTo)
			}
		}
	}
}
