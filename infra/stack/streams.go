package stack

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// streamRetryAttempts bounds how often the event source mapping retries a
// batch (a record the function reported failed, and the records after it
// in the shard). The functions fail a record only for what may pass (a
// storage failure; a malformed item is skipped, not failed), and
// bisecting a failed batch, which does not count as a retry, isolates the
// record. After that the batch goes to the dead-letter queue, whose alarm
// pages: a record that fails 10 times in a row is a defect or an outage
// to look at, and waiting longer would hold up every later record of its
// shard.
const streamRetryAttempts = 10

// streamMaxRecordAge is how old a record may be and still be sent to the
// function: half of the stream's 24-hour retention, so that when the
// mapping gives up on a batch its records are still in the stream for 12
// hours more, to be read with the shard and sequence numbers of the
// dead-letter message (the event items themselves stay in the table for
// 30 days; dynamo's eventRetention). The mapping allows 60 s to 7 days.
var streamMaxRecordAge = 12 * time.Hour

// connectStream invokes f with batches of the events table's stream: an
// event source mapping from the stream (which the events table declares with
// table.StreamView) that starts at TRIM_HORIZON (the oldest record the
// stream still holds, so a new or re-created mapping misses nothing), sends
// at most f's BatchSize records at a time, reads the function's partial
// batch failures (ReportBatchItemFailures: shared/edge/streamevent reports the
// first failed record), bisects a failed batch, retries it at most
// streamRetryAttempts times and up to streamMaxRecordAge, then sends a
// description of the batch (shard, sequence numbers; never the records)
// to f's dead-letter queue, which alarms when it holds anything
// (newAlarms). With InsertsOf set, a filter lets only INSERTs of items of
// that type invoke f: other writes cost no invocation.
//
// f's role may read this table's stream and nothing else of it (the
// mapping polls with the function's role); the dead-letter queue's grant
// (sqs:SendMessage on that queue) is CDK's.
func connectStream(w wiring, f function) {
	st := f.spec.Stream
	dlq := w.deadLetterQueue(f, "StreamFailures", "stream batches given up on")
	grantStreamRead(w, f)
	f.fn.AddEventSourceMapping(jsii.String("TableStream"), &awslambda.EventSourceMappingOptions{
		EventSourceArn:          w.events.TableStreamArn(),
		StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
		BatchSize:               jsii.Number(st.BatchSize),
		ReportBatchItemFailures: jsii.Bool(true),
		BisectBatchOnError:      jsii.Bool(true),
		RetryAttempts:           jsii.Number(streamRetryAttempts),
		MaxRecordAge:            awscdk.Duration_Seconds(jsii.Number(streamMaxRecordAge.Seconds())),
		OnFailure:               awslambdaeventsources.NewSqsDlq(dlq),
		Filters:                 streamFilters(*st),
	})
}

// streamFilter is the event pattern of st (manifest.StreamTrigger's
// FilterPattern): nil without InsertsOf (every record).
func streamFilter(st manifest.StreamTrigger) map[string]any { return st.FilterPattern() }

// streamFilters is streamFilter as the mapping's FilterCriteria.
func streamFilters(st manifest.StreamTrigger) *[]*map[string]any {
	p := streamFilter(st)
	if p == nil {
		return nil
	}
	return &[]*map[string]any{awslambda.FilterCriteria_Filter(&p)}
}

// grantStreamRead lets f's role read the events table's stream, as the mapping
// needs: DescribeStream, GetShardIterator and GetRecords on the stream
// itself, and ListStreams, which IAM checks against the table's streams
// (<table ARN>/stream/*), as AWS's own policy for a Lambda reading a
// DynamoDB stream grants it. CDK's table.grantStreamRead would grant
// ListStreams on "*", every table's streams in the account.
func grantStreamRead(w wiring, f function) {
	f.role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ReadTableStream"),
		Actions:   jsii.Strings("dynamodb:DescribeStream", "dynamodb:GetShardIterator", "dynamodb:GetRecords"),
		Resources: &[]*string{w.events.TableStreamArn()},
	}))
	f.role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ListTableStreams"),
		Actions:   jsii.Strings("dynamodb:ListStreams"),
		Resources: jsii.Strings(*w.events.TableArn() + "/stream/*"),
	}))
	tableID := *w.stack.GetLogicalId(w.events.Node().DefaultChild().(awscdk.CfnElement))
	suppress(f.role, "AwsSolutions-IAM5",
		"dynamodb:ListStreams only, on this table's streams (<table ARN>/stream/*, as AWS documents for a Lambda "+
			"reading a DynamoDB stream); the stream's records are read on the stream's own ARN.",
		"Resource::<"+tableID+".Arn>/stream/*")
}

// streamRecordBudget is the longest a stream-triggered function may spend
// on one record, which timeout multiplies by the batch size: the records
// of a batch are processed one after another (shared/edge/streamevent), and
// the webhook dispatcher spends on one record at most a first attempt
// (webhook.AttemptTimeout, 10 s), the schedule's wait before the second
// (5 s ± 10%) and a second attempt (10 s), its endpoints concurrently, plus
// a few table round trips (TestTimeoutOfStreamAndScheduleFunctions checks
// it against package webhook's figures).
const streamRecordBudget = 30 * time.Second

// maxTimeout is Lambda's longest timeout.
const maxTimeout = 15 * time.Minute
