// Package sqsqueue is the adapter of an Amazon SQS queue that functions
// send messages to (the webhook attempts queue): SendMessageBatch with
// the SDK's SQS client, at the endpoint AWS_ENDPOINT_URL_SQS names when
// set. Only the functions that send to a queue link it.
package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// MaxDelay is the longest delay SQS gives a message (DelaySeconds 900).
const MaxDelay = 15 * time.Minute

// batchSize is SendMessageBatch's most entries per call.
const batchSize = 10

// Queue sends messages to one queue.
type Queue struct {
	api *sqs.Client
	url string
}

// New returns the queue at url, reached with cfg (at endpoint when not
// nil: the local stand-in or a test server).
func New(cfg aws.Config, endpoint *string, url string) *Queue {
	return &Queue{api: sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = endpoint }), url: url}
}

// Send sends each body as one message, visible after delay (rounded up to
// a whole second, at most MaxDelay), in batches of ten. It returns an
// error naming how many were not sent: a call that failed, or the entries
// SQS listed as Failed; the others were sent.
func (q *Queue) Send(ctx context.Context, bodies []string, delay time.Duration) error {
	secs := int32(min((delay+time.Second-1)/time.Second, MaxDelay/time.Second))
	var errs []error
	for start := 0; start < len(bodies); start += batchSize {
		chunk := bodies[start:min(start+batchSize, len(bodies))]
		entries := make([]types.SendMessageBatchRequestEntry, len(chunk))
		for i, b := range chunk {
			entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(b), DelaySeconds: secs}
		}
		out, err := q.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.url), Entries: entries})
		if err != nil {
			errs = append(errs, fmt.Errorf("send %d messages: %w", len(chunk), err))
			continue
		}
		for _, f := range out.Failed {
			errs = append(errs, fmt.Errorf("message %s not sent: %s (%s)", aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message)))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("sqs %s: %w", q.url, errors.Join(errs...))
	}
	return nil
}
