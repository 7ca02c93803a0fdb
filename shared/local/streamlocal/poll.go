package streamlocal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// Position is where Poll starts reading the shards that are open when it
// starts, as an event source mapping's StartingPosition.
type Position string

const (
	// TrimHorizon starts at the oldest record the stream holds: every
	// change since the table was made, in DynamoDB Local (24 hours' worth
	// in AWS). Tests and a fresh local stack use it, so that no write made
	// before Poll reads its first shard is missed.
	TrimHorizon Position = "TRIM_HORIZON"
	// Latest starts after the newest record when Poll reads each open shard
	// for the first time: only later changes arrive.
	Latest Position = "LATEST"
)

// MaxBatchSize is the largest batch Poll delivers: the most records one
// GetRecords call returns.
const MaxBatchSize = 1000

// Option changes how Poll paces itself.
type Option func(*options)

type options struct {
	idle               time.Duration
	retryMin, retryMax time.Duration
}

// Defaults of the options: short, so that tests see a write within about
// a tenth of a second, and so cheap on a local server that they need no
// tuning for make dev.
const (
	DefaultIdleInterval = 100 * time.Millisecond
	DefaultRetryMin     = 100 * time.Millisecond
	DefaultRetryMax     = 5 * time.Second
)

// IdleInterval sets how long Poll waits before reading a shard again after
// it had no new records (DefaultIdleInterval). A write waits half of it on
// average before Poll sees it.
func IdleInterval(d time.Duration) Option { return func(o *options) { o.idle = d } }

// RetryBackoff sets how long Poll waits before delivering a failed batch
// again: first, then twice as long after each failure, up to limit
// (DefaultRetryMin, DefaultRetryMax). Failures reading the stream wait
// the same way.
func RetryBackoff(first, limit time.Duration) Option {
	return func(o *options) { o.retryMin, o.retryMax = first, limit }
}

// describeInterval is how often Poll lists the stream's shards to find
// new ones, besides when a shard it read closes.
const describeInterval = time.Second

// Poll reads the stream of the table named table on the DynamoDB that db
// talks to, through streams (see StreamsClient), and delivers its records
// to handler in batches of up to batchSize records (1 to MaxBatchSize) as
// Lambda would: in order within each shard, parents before children, each
// batch as the JSON of an events.DynamoDBEvent through aws-lambda-go's
// handler wrapper, again from the failed record after a failure (see the
// package documentation). It starts at from on the shards open when it
// starts (a later shard is read from its start), reads a shard again
// after IdleInterval when it had nothing new, and follows a closed shard's
// children. log (nil discards) gets a line when Poll starts and one for
// each failure and retry; the handler logs the records themselves.
//
// Poll returns nil when ctx ends, with the batch being delivered then
// abandoned (the handler gets ctx). It returns an error when it cannot
// start (the arguments are wrong, there is no such table, or the table
// has no stream), when the stream disappears (the table was deleted), or
// when a record holds an attribute type it cannot convert. Other failures
// to read the stream are logged and retried.
func Poll(ctx context.Context, db *dynamodb.Client, streams *dynamodbstreams.Client, table string, from Position,
	batchSize int, handler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error),
	log *slog.Logger, opts ...Option) error {
	if from != TrimHorizon && from != Latest {
		return fmt.Errorf("stream poll: position %q is neither %s nor %s", from, TrimHorizon, Latest)
	}
	if batchSize < 1 || batchSize > MaxBatchSize {
		return fmt.Errorf("stream poll: batch size %d is not between 1 and %d", batchSize, MaxBatchSize)
	}
	if handler == nil {
		return errors.New("stream poll: no handler")
	}
	o := options{idle: DefaultIdleInterval, retryMin: DefaultRetryMin, retryMax: DefaultRetryMax}
	for _, opt := range opts {
		opt(&o)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("stream poll: describe table %s: %w", table, err)
	}
	spec := out.Table.StreamSpecification
	if spec == nil || !aws.ToBool(spec.StreamEnabled) || out.Table.LatestStreamArn == nil {
		return fmt.Errorf("stream poll: table %s has no stream", table)
	}
	p := &poller{
		streams: streams, arn: aws.ToString(out.Table.LatestStreamArn), from: from,
		batch: int32(batchSize), handler: newInvoker(handler), log: log.With("stream", aws.ToString(out.Table.LatestStreamArn)), opts: o,
		shards: map[string]*shard{},
	}
	p.log.InfoContext(ctx, "stream poll started", "table", table, "from", string(from), "batch_size", batchSize)
	return p.run(ctx)
}

// StreamsClient returns a DynamoDB Streams client for the endpoint, region
// and credentials of db. DynamoDB Local serves the Streams API on its
// DynamoDB endpoint, but the SDK's variable for a Streams endpoint is
// another one (AWS_ENDPOINT_URL_DYNAMODB_STREAMS), which
// shared/local/dynamolocal's Env does not set; a client made here reads the
// stream of the tables db sees. In AWS (no endpoint set) it uses the
// region's Streams endpoint.
func StreamsClient(db *dynamodb.Client) *dynamodbstreams.Client {
	o := db.Options()
	return dynamodbstreams.New(dynamodbstreams.Options{
		Region: o.Region, Credentials: o.Credentials, BaseEndpoint: o.BaseEndpoint,
		HTTPClient: o.HTTPClient, Logger: o.Logger, ClientLogMode: o.ClientLogMode, AppID: o.AppID,
		RetryMode: o.RetryMode, RetryMaxAttempts: o.RetryMaxAttempts,
	})
}
