package stack

import (
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// scheduleRetryAttempts is how often EventBridge retries handing a tick to
// the function when Lambda refuses the invocation (throttled, say). It
// retries nothing the function itself fails: Lambda's asynchronous
// invocation retries those (twice), and the next tick runs the job again
// anyway (shared/edge/schedule).
const scheduleRetryAttempts = 2

// scheduleTimeout is a schedule-triggered function's timeout: its job
// runs passes until about 15 s before the invocation's deadline
// (webhook-retrier: a pass is kept only while an attempt, 10 s, still
// fits), so the timeout is how long one tick may work. One minute, the
// retrier's rate: a run ends about when the next starts, and runs that
// overlap are safe (each attempt is claimed in the table first).
const scheduleTimeout = time.Minute

// connectSchedule starts f on its schedule: an EventBridge rule with f's
// expression (rate(...) or cron(...)) whose target is f, invoked
// asynchronously with the scheduled event (events.EventBridgeEvent). A
// tick EventBridge cannot hand to Lambda is retried scheduleRetryAttempts
// times within scheduleMaxEventAge, then goes to f's dead-letter queue,
// which alarms when it holds anything (newAlarms). CDK adds the
// permission for this rule to invoke f and the queue's policy that lets
// it send there.
func connectSchedule(w wiring, f function) {
	dlq := w.deadLetterQueue(f, "ScheduleFailures", "scheduled events never delivered")
	awsevents.NewRule(f.scope, jsii.String("Schedule"), &awsevents.RuleProps{
		Description: jsii.String("Starts " + f.spec.Slug + " on " + f.spec.Schedule.Expression),
		Schedule:    awsevents.Schedule_Expression(jsii.String(f.spec.Schedule.Expression)),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(f.fn, &awseventstargets.LambdaFunctionProps{
			DeadLetterQueue: dlq,
			RetryAttempts:   jsii.Number(scheduleRetryAttempts),
			MaxEventAge:     awscdk.Duration_Seconds(jsii.Number(scheduleMaxEventAge(*f.spec.Schedule).Seconds())),
		})},
	})
}

// scheduleMaxEventAge is how long EventBridge keeps trying to deliver a
// tick: until the next tick of a rate (a later tick supersedes it), at
// least the one minute EventBridge allows, at most an hour (a cron
// expression's ticks).
func scheduleMaxEventAge(s manifest.ScheduleTrigger) time.Duration {
	d, err := s.Every()
	if err != nil {
		return time.Hour
	}
	return min(max(d, time.Minute), time.Hour)
}

// validScheduleExpression reports whether expr has the form EventBridge
// accepts: rate(...) or cron(...).
func validScheduleExpression(expr string) bool {
	return (strings.HasPrefix(expr, "rate(") || strings.HasPrefix(expr, "cron(")) && strings.HasSuffix(expr, ")")
}
