package stack

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3notifications"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// wiring is what a trigger may connect a function to: the resources of the
// stack that start functions.
type wiring struct {
	stack awscdk.Stack
	api   awsapigatewayv2.HttpApi
	table awsdynamodb.Table
	// events is the events table, whose stream starts functions.
	events awsdynamodb.Table
	clips  awss3.Bucket
	// notifyLogs is the log group of CDK's bucket-notifications handler
	// (see newClipBucket), which the S3 trigger points it at.
	notifyLogs awslogs.ILogGroup
	sz         sizing
	// deadLetters collects the dead-letter queues the triggers declare
	// (deadLetterQueue), for their alarms.
	deadLetters *[]deadLetter
	// queues are the queues that trigger functions, by name (newQueues).
	queues map[string]awssqs.Queue
}

// triggers connects each kind of trigger the stack deploys (manifest
// TriggerKind) to a function. Adding a kind is one entry here: a function
// that declares what starts f (an S3 notification on w.clips, an event
// source on the table's stream, a schedule rule, a queue with its
// dead-letter queue and event source) and grants f what that needs.
var triggers = map[manifest.TriggerKind]func(w wiring, f function){
	manifest.TriggerHTTP:     connectHTTP,
	manifest.TriggerS3:       connectS3,
	manifest.TriggerStream:   connectStream,
	manifest.TriggerSchedule: connectSchedule,
	manifest.TriggerQueue:    connectQueue,
}

// connectTriggers connects every function to what starts it. It panics,
// naming the function, for a trigger kind the stack does not deploy yet;
// New refuses such a manifest first (checkFunctions), so that synth fails
// with a clear error before anything is declared.
func connectTriggers(w wiring, fns []function) {
	if w.queues == nil {
		w.queues = newQueues(w, fns)
	}
	for _, f := range fns {
		connect, ok := triggers[f.spec.Trigger()]
		if !ok {
			panic(fmt.Sprintf("stack: function %s: trigger %q is not deployed by infra/stack yet: add it to triggers",
				f.spec.Slug, f.spec.Trigger()))
		}
		connect(w, f)
	}
}

// connectS3 invokes f for every object created in the clip bucket under
// f's Prefix (and ending in its Suffix, when set): an OBJECT_CREATED
// notification of the bucket to f. CDK declares it as a
// Custom::S3BucketNotifications resource, served by one handler function
// per stack, and grants S3 the permission to invoke f from this bucket
// (lambda:InvokeFunction, source ARN and account).
func connectS3(w wiring, f function) {
	filter := &awss3.NotificationKeyFilter{}
	if f.spec.S3.Prefix != "" {
		filter.Prefix = jsii.String(f.spec.S3.Prefix)
	}
	if f.spec.S3.Suffix != "" {
		filter.Suffix = jsii.String(f.spec.S3.Suffix)
	}
	w.clips.AddEventNotification(awss3.EventType_OBJECT_CREATED, awss3notifications.NewLambdaDestination(f.fn), filter)
	logNotificationsHandler(w.stack, w.notifyLogs)
}

// notificationsHandlerPrefix starts the id CDK gives the stack's bucket
// notifications handler (aws-s3's NotificationsResourceHandler.singleton).
const notificationsHandlerPrefix = "BucketNotificationsHandler"

// logNotificationsHandler sends the logs of CDK's bucket-notifications
// handler, which runs only when the stack is deployed, to logs (with the
// stack's retention) instead of an /aws/lambda group kept forever. The
// handler is an inline function CDK declares without a LoggingConfig
// property, hence the override. It panics when the stack has no handler:
// call it after adding a notification.
func logNotificationsHandler(s awscdk.Stack, logs awslogs.ILogGroup) {
	for _, c := range *s.Node().Children() {
		if !strings.HasPrefix(*c.Node().Id(), notificationsHandlerPrefix) {
			continue
		}
		fn, ok := c.Node().TryFindChild(jsii.String("Resource")).(awscdk.CfnResource)
		if !ok {
			break
		}
		fn.AddPropertyOverride(jsii.String("LoggingConfig.LogGroup"), logs.LogGroupName())
		return
	}
	panic("stack: no " + notificationsHandlerPrefix + " function after adding a bucket notification")
}

// checkFunctions reports every manifest entry the stack cannot deploy as
// declared: a function without exactly one trigger or with a trigger kind
// the stack does not connect; more than one $default route (an HTTP API
// has one); an S3 trigger with neither Prefix nor Suffix (it would fire
// for every object of the bucket; CDK refuses such a filter); two S3
// triggers that overlap (S3 refuses a notification configuration in which
// one object could match two rules of one event type, so deploying it
// would fail); a stream trigger whose BatchSize is not positive or whose
// full batch would not fit in Lambda's longest timeout (see timeout); and
// a schedule that is neither rate(...) nor cron(...).
func checkFunctions(fns []manifest.Function) error {
	var errs []error
	var defaults []string
	var s3 []manifest.Function
	for _, f := range fns {
		kind := f.Trigger()
		if kind == "" {
			errs = append(errs, fmt.Errorf("function %s declares no trigger or more than one", f.Slug))
		} else if _, ok := triggers[kind]; !ok {
			errs = append(errs, fmt.Errorf("function %s: trigger %q is not deployed by infra/stack yet (add it to triggers)", f.Slug, kind))
		}
		if kind == manifest.TriggerS3 {
			if f.S3.Prefix == "" && f.S3.Suffix == "" {
				errs = append(errs, fmt.Errorf("function %s: S3 trigger names neither a Prefix nor a Suffix", f.Slug))
			}
			for _, g := range s3 {
				if overlap(*g.S3, *f.S3) {
					errs = append(errs, fmt.Errorf("functions %s and %s: S3 triggers (prefix %q suffix %q, prefix %q suffix %q) overlap; S3 refuses overlapping notifications",
						g.Slug, f.Slug, g.S3.Prefix, g.S3.Suffix, f.S3.Prefix, f.S3.Suffix))
				}
			}
			s3 = append(s3, f)
		}
		if kind == manifest.TriggerStream {
			if n := f.Stream.BatchSize; n < 1 || time.Duration(n)*streamRecordBudget > maxTimeout {
				errs = append(errs, fmt.Errorf("function %s: stream BatchSize %d; want 1 to %d (%v per record within Lambda's %v)",
					f.Slug, n, int(maxTimeout/streamRecordBudget), streamRecordBudget, maxTimeout))
			}
		}
		if kind == manifest.TriggerQueue && (f.Queue.Name == "" || f.Queue.BatchSize < 1 || f.Queue.BatchSize > 10 || f.Queue.MaxConcurrency < 2 || f.Queue.MaxConcurrency > 1000) {
			errs = append(errs, fmt.Errorf("function %s: queue trigger %+v; want a Name, BatchSize 1 to 10 and MaxConcurrency 2 to 1000", f.Slug, *f.Queue))
		}
		if kind == manifest.TriggerSchedule && !validScheduleExpression(f.Schedule.Expression) {
			errs = append(errs, fmt.Errorf("function %s: schedule %q is neither rate(...) nor cron(...)", f.Slug, f.Schedule.Expression))
		}
		for _, r := range f.HTTP {
			if r.IsDefault() {
				defaults = append(defaults, f.Slug)
			}
		}
	}
	if len(defaults) > 1 {
		errs = append(errs, fmt.Errorf("functions %q all serve the $default route; an HTTP API has one", defaults))
	}
	return errors.Join(errs...)
}

// overlap reports whether some key could match both triggers: one prefix
// starts the other and one suffix ends the other.
func overlap(a, b manifest.S3Trigger) bool {
	prefixes := strings.HasPrefix(a.Prefix, b.Prefix) || strings.HasPrefix(b.Prefix, a.Prefix)
	suffixes := strings.HasSuffix(a.Suffix, b.Suffix) || strings.HasSuffix(b.Suffix, a.Suffix)
	return prefixes && suffixes
}
