package sample

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// QueueCase is one sample SQS event: a batch of the webhook attempts
// queue as the event source mapping hands it to a queue-triggered
// function (events.SQSEvent).
type QueueCase struct {
	Slug string // the function it is for (manifest.Functions)
	Name string // what it shows, e.g. "attempt"; no dots
	// Refs are the messages' bodies: each names one delivery's attempt.
	Refs []webhook.Ref
}

// QueueCases returns every sample SQS event. Each queue-triggered
// function has at least one. The sender's "attempt" message names a
// delivery the fixtures do not hold (their partner has no webhook
// endpoint): the sender logs it and drops it, reporting no failure.
func QueueCases() []QueueCase {
	return []QueueCase{{Slug: "webhook-sender", Name: "attempt", Refs: []webhook.Ref{{
		EndpointID: "we_sample", EventID: "evt_" + FinishSurveyID + "_survey.completed", EventAt: eventTime, Attempts: 0,
	}}}}
}

// FileName returns the name of c's file in events/: <slug>.<name>.json.
func (c QueueCase) FileName() string { return fmt.Sprintf("%s.%s.json", c.Slug, c.Name) }

// event returns c as Lambda's SQS poller sends it: one record per ref,
// from the attempts queue (as the CDK stack names it, in a documentation
// account), received once.
func (c QueueCase) event() events.SQSEvent {
	var ev events.SQSEvent
	for i, r := range c.Refs {
		body := r.Body()
		sum := md5.Sum([]byte(body))
		id := uuid.NewMD5(uuid.NameSpaceURL, []byte("sample/"+c.FileName()+"/"+strconv.Itoa(i)))
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: id.String(), ReceiptHandle: "sample-receipt-" + id.String(), Body: body, Md5OfBody: hex.EncodeToString(sum[:]),
			Attributes: map[string]string{
				"ApproximateReceiveCount": "1", "SentTimestamp": strconv.FormatInt(eventTime.UnixMilli(), 10),
				"SenderId": "AROAEXAMPLE:webhook-dispatcher", "ApproximateFirstReceiveTimestamp": strconv.FormatInt(eventTime.UnixMilli(), 10),
			},
			MessageAttributes: map[string]events.SQSMessageAttribute{},
			EventSource:       "aws:sqs", EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:webhook-attempts", AWSRegion: "us-east-1",
		})
	}
	return ev
}
