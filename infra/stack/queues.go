package stack

import (
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// queueTimeout is a queue-triggered function's timeout: the messages of a
// batch are processed at once (shared/edge/queueevent), each one attempt of
// webhook.AttemptTimeout (10 s) and a few table round trips.
const queueTimeout = 30 * time.Second

// queueMaxReceives is how often a message is received before it goes to
// the queue's dead-letter queue. The sender fails a message only for a
// storage failure (a stale or malformed one is dropped), and the
// retrier attempts every pending delivery anyway.
const queueMaxReceives = 5

// queueVisibility is the queue's visibility timeout: six times the
// function's timeout, as Lambda advises, so a message is not handed to a
// second invocation while the first may still work on it.
const queueVisibility = 6 * queueTimeout

// connectQueue invokes f with batches of its queue (declared by
// newQueues): an SQS event source mapping with f's BatchSize, its
// MaxConcurrency (Lambda's MaximumConcurrency) and partial batch failures
// (ReportBatchItemFailures: shared/edge/queueevent reports the failed
// messages). CDK grants f's role what the mapping needs to receive and
// delete the queue's messages.
func connectQueue(w wiring, f function) {
	qt := f.spec.Queue
	q := w.queues[qt.Name]
	f.fn.AddEventSource(awslambdaeventsources.NewSqsEventSource(q, &awslambdaeventsources.SqsEventSourceProps{
		BatchSize:               jsii.Number(qt.BatchSize),
		MaxConcurrency:          jsii.Number(qt.MaxConcurrency),
		ReportBatchItemFailures: jsii.Bool(true),
	}))
}

// newQueues declares each queue a function is triggered by (manifest
// QueueTrigger.Name), with a dead-letter queue that alarms on its first
// message (after queueMaxReceives receives), encrypted with SQS-managed
// keys and refusing requests without TLS; and lets each function that
// sends to it (manifest SendsTo) do so: sqs:SendMessage on that queue
// alone, its URL in the variable settings.QueueURLVar names.
func newQueues(w wiring, fns []function) map[string]awssqs.Queue {
	qs := map[string]awssqs.Queue{}
	for _, f := range fns {
		qt := f.spec.Queue
		if qt == nil {
			continue
		}
		dlq := w.deadLetterQueue(f, "QueueFailures", "attempt messages given up on")
		qs[qt.Name] = awssqs.NewQueue(f.scope, jsii.String("Queue"), &awssqs.QueueProps{
			Encryption:        awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL:        jsii.Bool(true),
			VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(queueVisibility.Seconds())),
			DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(queueMaxReceives)},
			RemovalPolicy:     w.sz.removal,
		})
	}
	for _, f := range fns {
		for _, name := range f.spec.SendsTo {
			q, ok := qs[name]
			if !ok {
				panic(fmt.Sprintf("stack: function %s sends to queue %q, which no function is triggered by", f.spec.Slug, name))
			}
			q.GrantSendMessages(f.role)
			f.fn.AddEnvironment(jsii.String(settings.QueueURLVar(name)), q.QueueUrl(), nil)
		}
	}
	return qs
}
