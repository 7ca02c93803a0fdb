package stack

import (
	"slices"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// alarmPeriod is the period of every alarm's metric.
var alarmPeriod = awscdk.Duration_Minutes(jsii.Number(5))

// newAlarms declares the API's 5xx-rate and p99-latency alarms; per
// function, its Errors and Throttles alarms; one per dead-letter queue of
// a trigger (dls), on its first message; and the alarms of jobAlarms on
// the metrics scheduled functions report; all notifying the alarm topic
// when there is one.
func newAlarms(s awscdk.Stack, p Props, api awsapigatewayv2.HttpApi, fns []function, dls []deadLetter) {
	var action awscloudwatch.IAlarmAction
	if t := alarmTopic(s, p); t != nil {
		action = awscloudwatchactions.NewSnsAction(t)
	}
	add := func(a awscloudwatch.Alarm) {
		if action != nil {
			a.AddAlarmAction(action)
			a.AddOkAction(action)
		}
	}
	sum := func(m func(*awscloudwatch.MetricOptions) awscloudwatch.Metric) awscloudwatch.Metric {
		return m(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: alarmPeriod})
	}

	// 5xx rate, in percent, once there is enough traffic for a rate to
	// mean something: at 20 requests in 5 minutes one failure is 5%.
	// Handlers turn storage failures into 5xx responses, so this is the
	// partners' view of an outage; 2 of 3 periods ignores a lone blip.
	add(awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String("IF(requests >= 20, 100 * errors / requests, 0)"),
		Label:      jsii.String("5xx rate (%)"),
		Period:     alarmPeriod,
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"errors":   sum(api.MetricServerError),
			"requests": sum(api.MetricCount),
		},
	}).CreateAlarm(s, jsii.String("Api5xxRate"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription:   jsii.String("More than 5% of API requests answered 5xx"),
		Threshold:          jsii.Number(5),
		EvaluationPeriods:  jsii.Number(3),
		DatapointsToAlarm:  jsii.Number(2),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	}))

	// p99 latency. A request normally takes tens of milliseconds and a
	// cold start a few hundred; only a duplicate createLead waiting for
	// its twin (up to 10 s) is legitimately slow, and that is rare. Three
	// consecutive periods above 3 s means something upstream is slow.
	add(api.MetricLatency(&awscloudwatch.MetricOptions{
		Statistic: jsii.String("p99"), Period: alarmPeriod,
	}).CreateAlarm(s, jsii.String("ApiP99Latency"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription:   jsii.String("API p99 latency above 3 s for 15 minutes"),
		Threshold:          jsii.Number(3000),
		EvaluationPeriods:  jsii.Number(3),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	}))

	for _, f := range fns {
		// A handler answers every failure itself, so a Lambda-level error
		// is a panic, an init failure or a timeout: alarm on the first.
		add(sum(f.fn.MetricErrors).CreateAlarm(f.fn, jsii.String("ErrorsAlarm"), &awscloudwatch.CreateAlarmOptions{
			AlarmDescription:   jsii.String(f.spec.Slug + ": function errors (panic, init failure or timeout)"),
			Threshold:          jsii.Number(1),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}))
		// A throttle is a request API Gateway answered 5xx because the
		// account's concurrency ran out.
		add(sum(f.fn.MetricThrottles).CreateAlarm(f.fn, jsii.String("ThrottlesAlarm"), &awscloudwatch.CreateAlarmOptions{
			AlarmDescription:   jsii.String(f.spec.Slug + ": invocations throttled"),
			Threshold:          jsii.Number(1),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}))
	}

	// A message in a dead-letter queue is work a trigger gave up on (a
	// stream batch: webhook events never fanned out; a tick never
	// delivered): alarm on the first.
	for _, d := range dls {
		add(d.queue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
			Statistic: jsii.String("Maximum"), Period: alarmPeriod,
		}).CreateAlarm(d.queue, jsii.String("NotEmptyAlarm"), &awscloudwatch.CreateAlarmOptions{
			AlarmDescription:   jsii.String(d.slug + ": " + d.what + " in its dead-letter queue"),
			Threshold:          jsii.Number(0),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}))
	}

	for _, j := range jobAlarms {
		i := slices.IndexFunc(fns, func(f function) bool { return f.spec.Slug == j.slug })
		if i < 0 {
			continue // a test's manifest without the function (TestJobAlarmsNameScheduledFunctions pins the real one)
		}
		add(j.metric(j.slug).CreateAlarm(fns[i].fn, jsii.String(j.id), &awscloudwatch.CreateAlarmOptions{
			AlarmDescription:   jsii.String(j.slug + ": " + j.description),
			Threshold:          jsii.Number(j.threshold),
			EvaluationPeriods:  jsii.Number(j.periods),
			DatapointsToAlarm:  jsii.Number(j.periods),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_BREACHING,
		}))
	}
}

// jobAlarm is an alarm on a metric that a schedule-triggered function
// reports at every run (shared/edge/schedule: embedded metric format, namespace
// manifest.MetricNamespace, dimension Function=<slug>): the metric's
// statistic over period above threshold in periods consecutive periods.
// A period without a datapoint breaches: the job reports at every run, so
// no datapoint means it did not run (or failed before reporting), which is
// what such an alarm must catch.
type jobAlarm struct {
	id          string // the alarm's construct id, under the function
	slug        string // the function that reports it
	name        string // the metric's name (manifest.Metric*)
	statistic   string
	period      time.Duration
	threshold   float64
	periods     int
	description string
}

// metric is j's metric as slug reports it.
func (j jobAlarm) metric(slug string) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(manifest.MetricNamespace),
		MetricName:    jsii.String(j.name),
		DimensionsMap: &map[string]*string{"Function": jsii.String(slug)},
		Statistic:     jsii.String(j.statistic),
		Period:        awscdk.Duration_Seconds(jsii.Number(j.period.Seconds())),
	})
}

// jobAlarms are the alarms on what scheduled functions report.
//
// Webhook deliveries overdue: webhook-retrier reports, every minute, how
// long past its due time the most overdue delivery is. A healthy retrier
// leaves none more than a minute or two late (it runs every minute, and
// an attempt in flight holds its delivery for webhooks.Lease, 30 s); more
// than 5 minutes for 3 minutes running means it cannot keep up or cannot
// reach the table, and 3 minutes without a datapoint means it is not
// running at all: partners' events are piling up either way.
var jobAlarms = []jobAlarm{{
	id: "OverdueDeliveriesAlarm", slug: "webhook-retrier", name: manifest.MetricWebhookMostOverdue,
	statistic: "Maximum", period: time.Minute, threshold: 300, periods: 3,
	description: "the most overdue webhook delivery is more than 5 minutes late (or the retrier is not reporting) for 3 minutes",
}}

// alarmTopic returns the topic alarms notify: the one named by
// AlarmTopicArn, a new one subscribed by AlarmEmail, or nil.
//
// A new topic is encrypted with its own key: CloudWatch cannot publish to
// a topic under the AWS-managed aws/sns key, whose policy cannot be
// changed to let cloudwatch.amazonaws.com use it.
func alarmTopic(s awscdk.Stack, p Props) awssns.ITopic {
	switch {
	case p.AlarmTopicArn != "":
		return awssns.Topic_FromTopicArn(s, jsii.String("AlarmTopic"), jsii.String(p.AlarmTopicArn))
	case p.AlarmEmail == "":
		return nil
	}
	key := awskms.NewKey(s, jsii.String("AlarmTopicKey"), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the partner API's alarm topic"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     sizingFor(p.Env).removal,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsPublish"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
		Resources:  jsii.Strings("*"), // in a key policy, "*" is this key
		Conditions: &map[string]interface{}{
			"StringEquals": map[string]interface{}{"aws:SourceAccount": s.Account()},
		},
	}), nil)
	t := awssns.NewTopic(s, jsii.String("AlarmTopic"), &awssns.TopicProps{
		DisplayName: jsii.String("Partner API alarms"),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
	t.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(p.AlarmEmail), nil))
	return t
}
