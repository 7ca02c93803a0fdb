package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// deadLetterRetention is how long a dead-letter queue keeps a message:
// SQS's maximum, 14 days, long enough to be looked at after a holiday.
const deadLetterRetentionDays = 14

// deadLetter is a dead-letter queue of a function's trigger: what ends up
// there, for its alarm.
type deadLetter struct {
	slug  string // the function's
	what  string // what its messages are, e.g. "stream batches given up on"
	queue awssqs.Queue
}

// deadLetterQueue declares the dead-letter queue id of f's trigger (what:
// what its messages are) and records it for its alarm (newAlarms: any
// message is an alarm). The queue is encrypted with SQS-managed keys (no
// key policy for EventBridge or Lambda to be let into; messages describe
// failed batches and ticks, never records), refuses requests without TLS,
// and keeps messages deadLetterRetentionDays.
func (w wiring) deadLetterQueue(f function, id, what string) awssqs.Queue {
	q := awssqs.NewQueue(f.scope, jsii.String(id), &awssqs.QueueProps{
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(deadLetterRetentionDays)),
		RemovalPolicy:   w.sz.removal,
	})
	suppress(q, "AwsSolutions-SQS3",
		"This queue is itself a dead-letter queue (the on-failure destination of "+f.spec.Slug+"'s trigger), "+
			"and it alarms on its first message.")
	*w.deadLetters = append(*w.deadLetters, deadLetter{slug: f.spec.Slug, what: what, queue: q})
	return q
}
