package coldstart

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	eventsample "github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// webhookFixture is the fixture of the webhook functions: their own
// partner with one test-mode endpoint, whose signing secret is sealed
// with the fixture's sealing key (which the functions get as
// WEBHOOK_SEALING_KEY), at a receiver on loopback that answers 200. Each
// cold start makes one real delivery to it: the first response includes
// reading the endpoint, opening its secret, signing, sending and
// recording the attempt.
type webhookFixture struct {
	sealingKey   string // hex, WEBHOOK_SEALING_KEY
	receiver     *httptest.Server
	hooks        auth.Tenant
	hookEndpoint webhook.Endpoint
}

// seedWebhooks creates the webhook partner and its endpoint at a new
// receiver; Close stops the receiver.
func (f *fixture) seedWebhooks(ctx context.Context, now time.Time) error {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	sealer, err := webhook.NewSealer(key)
	if err != nil {
		return err
	}
	p := partner.Partner{ID: "ptn_coldstart_webhooks", Name: "Cold start webhooks", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now}
	if err := f.store.CreatePartner(ctx, p); err != nil {
		return fmt.Errorf("webhook partner: %w", err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	hooks := auth.Tenant{PartnerID: p.ID, Mode: auth.Test}
	ep, _, err := webhook.NewEndpoint(hooks, receiver.URL+"/hooks", nil, sealer, now)
	if err == nil {
		err = f.store.PutEndpoint(ctx, ep)
	}
	if err != nil {
		receiver.Close()
		return fmt.Errorf("webhook endpoint: %w", err)
	}
	f.webhookFixture = webhookFixture{sealingKey: hex.EncodeToString(key), receiver: receiver, hooks: hooks, hookEndpoint: ep}
	return nil
}

// webhookEnv is the environment of a function that lists the sealing
// key: the key, and WEBHOOK_ALLOW_LOOPBACK=1, since the receiver is on
// loopback (a local benchmark's setting, as make dev's; never deployed).
func (f *fixture) webhookEnv() []string {
	return []string{"WEBHOOK_SEALING_KEY=" + f.sealingKey, "WEBHOOK_ALLOW_LOOPBACK=1"}
}

// newEvent returns a fresh test event of the webhook partner: a new id per
// cold start, so that its delivery is new and attempted.
func (f *fixture) newEvent() webhook.Event {
	return webhook.Event{
		ID: "evt_coldstart_" + uuid.NewString(), Type: webhook.Test, Mode: string(f.hooks.Mode),
		At: time.Now().UTC(), Data: json.RawMessage(`{"coldstart":true}`),
	}
}

// verifyDelivered returns the Verify of a cold start that must have
// delivered *e to the endpoint.
func (f *fixture) verifyDelivered(e *webhook.Event) func(context.Context) error {
	return func(ctx context.Context) error {
		d, err := f.store.GetDelivery(ctx, f.hookEndpoint.ID, *e)
		if err != nil {
			return fmt.Errorf("read back delivery of %s: %w", e.ID, err)
		}
		if d.Status != webhook.Delivered {
			return fmt.Errorf("delivery of %s is %s after %d attempts; want %s", e.ID, d.Status, d.Attempts, webhook.Delivered)
		}
		return nil
	}
}

// verifyWritten checks that the delivery of *e to the endpoint was
// written (the dispatcher's part; the sender attempts it).
func (f *fixture) verifyWritten(e *webhook.Event) func(context.Context) error {
	return func(ctx context.Context) error {
		if _, err := f.store.GetDelivery(ctx, f.hookEndpoint.ID, *e); err != nil {
			return fmt.Errorf("read back delivery of %s: %w", e.ID, err)
		}
		return nil
	}
}

// streamTarget is the cold start of the stream-triggered function fn:
// each event is a batch of one INSERT of a fresh event item of the
// webhook partner (written to the table first, as the state change that
// owes it writes it), as the event source mapping delivers it. The
// function must report no failed record, and the event's delivery must
// then be written (without a queue URL the dispatcher hands it to no
// queue: webhook-sender's cold start attempts one).
func (f *fixture) streamTarget(fn manifest.Function, bin string) target {
	var last webhook.Event
	return target{
		Name: fn.Slug, Bin: bin, Env: f.Env(&fn), Check: checkNoFailures,
		Event: func(ctx context.Context) ([]byte, error) {
			last = f.newEvent()
			if _, err := f.store.PutEvent(ctx, f.hooks, last); err != nil {
				return nil, fmt.Errorf("put event: %w", err)
			}
			return streamEvent(eventsample.StreamCase{Tenant: f.hooks, Event: last})
		},
		Verify: f.verifyWritten(&last),
	}
}

// queueTarget is the cold start of the queue-triggered function fn: before
// each event one delivery of a fresh event to the endpoint is written, due,
// and the event is an SQS batch of one message naming it, as the event
// source mapping delivers it. The function must report no failed message,
// and the delivery must then be delivered.
func (f *fixture) queueTarget(fn manifest.Function, bin string) target {
	var last webhook.Event
	return target{
		Name: fn.Slug, Bin: bin, Env: f.Env(&fn), Check: checkNoFailures,
		Event: func(ctx context.Context) ([]byte, error) {
			last = f.newEvent()
			d := webhook.Delivery{EndpointID: f.hookEndpoint.ID, Event: last, Status: webhook.Pending, NextAt: last.At}
			if _, err := f.store.CreateDelivery(ctx, d); err != nil {
				return nil, fmt.Errorf("create due delivery: %w", err)
			}
			return json.Marshal(events.SQSEvent{Records: []events.SQSMessage{{
				MessageId: uuid.NewString(), ReceiptHandle: uuid.NewString(), Body: webhook.RefOf(d).Body(),
				Attributes:  map[string]string{"ApproximateReceiveCount": "1"},
				EventSource: "aws:sqs", EventSourceARN: "arn:aws:sqs:" + region + ":" + accountID + ":" + fn.Queue.Name, AWSRegion: region,
			}}})
		},
		Verify: f.verifyDelivered(&last),
	}
}

// scheduleTarget is the cold start of the schedule-triggered function fn:
// before each event one delivery of a fresh event to the endpoint is made
// due, and the event is a scheduled event as EventBridge sends it. The
// function must succeed (null), and the delivery must then be delivered.
func (f *fixture) scheduleTarget(fn manifest.Function, bin string) target {
	var last webhook.Event
	return target{
		Name: fn.Slug, Bin: bin, Env: f.Env(&fn), Check: checkNull,
		Event: func(ctx context.Context) ([]byte, error) {
			last = f.newEvent()
			d := webhook.Delivery{EndpointID: f.hookEndpoint.ID, Event: last, Status: webhook.Pending, NextAt: last.At}
			if _, err := f.store.CreateDelivery(ctx, d); err != nil {
				return nil, fmt.Errorf("create due delivery: %w", err)
			}
			return scheduledEvent(fn.Slug)
		},
		Verify: f.verifyDelivered(&last),
	}
}

// streamEvent returns the JSON of the DynamoDB stream event Lambda sends
// for the INSERT of c's event item (the item as events/sample spells it,
// which its tests compare with the store's).
func streamEvent(c eventsample.StreamCase) ([]byte, error) {
	now := time.Now().UTC()
	return json.Marshal(events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{
		AWSRegion: region, EventID: uuid.NewString(), EventName: "INSERT", EventSource: "aws:dynamodb", EventVersion: "1.1",
		EventSourceArn: "arn:aws:dynamodb:" + region + ":" + accountID + ":table/coldstart/stream/" + now.Format("2006-01-02T15:04:05.000"),
		Change: events.DynamoDBStreamRecord{
			ApproximateCreationDateTime: events.SecondsEpochTime{Time: now},
			Keys:                        c.Keys(), NewImage: c.NewImage(),
			SequenceNumber: fmt.Sprintf("%d", now.UnixNano()), SizeBytes: 512, StreamViewType: table.StreamView,
		},
	}}})
}

// scheduledEvent returns the JSON of the event an EventBridge schedule
// sends the function slug.
func scheduledEvent(slug string) ([]byte, error) {
	return json.Marshal(events.EventBridgeEvent{
		Version: "0", ID: uuid.NewString(), DetailType: "Scheduled Event", Source: "aws.events",
		AccountID: accountID, Time: time.Now().UTC(), Region: region,
		Resources: []string{"arn:aws:events:" + region + ":" + accountID + ":rule/coldstart-" + slug},
		Detail:    json.RawMessage("{}"),
	})
}

// checkNoFailures fails unless body is a stream batch response that
// reports no failed record.
func checkNoFailures(body []byte) error {
	var resp events.DynamoDBEventResponse
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return fmt.Errorf("response %s: want a batch response object", clip(body))
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return fmt.Errorf("response %s: want a batch response: %w", clip(body), err)
	}
	if len(resp.BatchItemFailures) != 0 {
		return fmt.Errorf("response %s: failed records; want none", clip(body))
	}
	return nil
}
