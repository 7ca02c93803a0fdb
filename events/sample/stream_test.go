package sample_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/edge/queueevent"
	"github.com/moveleads/partnerapi/shared/edge/schedule"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
)

// loadWithLogs returns awsenv.Load on env's table, its log lines in logs.
func loadWithLogs(t *testing.T, env *apitest.Env, logs *apitest.SyncBuffer) func() (*awsenv.Env, error) {
	t.Helper()
	t.Setenv(settings.Table, env.Store.Table())
	return func() (*awsenv.Env, error) {
		e, err := awsenv.Load()
		if err != nil {
			return nil, err
		}
		e.Log = slog.New(slog.NewJSONHandler(logs, nil))
		return e, nil
	}
}

// streamHandler returns the handler of the stream-triggered function
// slug, built as its main builds it (streamevent.Build over awsenv.Load
// with its processor of catalog.StreamProcessors) on env's table, with its
// log lines in logs.
func streamHandler(t *testing.T, env *apitest.Env, slug string, logs *apitest.SyncBuffer) streamevent.Handler {
	t.Helper()
	build, ok := catalog.StreamProcessors()[slug]
	if !ok {
		t.Fatalf("catalog.StreamProcessors has no %s", slug)
	}
	h, err := streamevent.Build(loadWithLogs(t, env, logs), slug, build)
	if err != nil {
		t.Fatalf("build %s: %v", slug, err)
	}
	return h
}

// scheduleHandler returns the handler of the schedule-triggered function
// slug, built as its main builds it (schedule.Build over awsenv.Load with its
// job of catalog.Jobs) on env's table, with its log lines in logs and the
// metric lines it writes to stdout in metrics.
func scheduleHandler(t *testing.T, env *apitest.Env, slug string, logs *apitest.SyncBuffer) (schedule.Handler, *os.File) {
	t.Helper()
	build, ok := catalog.Jobs()[slug]
	if !ok {
		t.Fatalf("catalog.Jobs has no %s", slug)
	}
	metrics, err := os.CreateTemp(t.TempDir(), "metrics-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { metrics.Close() })
	// schedule.Build writes the metrics to the stdout it finds.
	stdout := os.Stdout
	os.Stdout = metrics
	h, err := schedule.Build(loadWithLogs(t, env, logs), slug, build)
	os.Stdout = stdout
	if err != nil {
		t.Fatalf("build %s: %v", slug, err)
	}
	return h, metrics
}

// invokeStream runs payload through h as Lambda would and fails unless
// the batch reports no item failure.
func invokeStream(t *testing.T, h streamevent.Handler, payload []byte, logs *apitest.SyncBuffer) {
	t.Helper()
	out, err := lambda.NewHandler(h).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatalf("invoke: %v (log %s)", err, logs)
	}
	var resp events.DynamoDBEventResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response %s: %v", out, err)
	}
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("batch item failures %v; want none (log %s)", resp.BatchItemFailures, logs)
	}
}

// invokeSchedule runs payload through h as Lambda would and fails unless
// it succeeds (Lambda's answer: null).
func invokeSchedule(t *testing.T, h schedule.Handler, payload []byte, logs *apitest.SyncBuffer) {
	t.Helper()
	out, err := lambda.NewHandler(h).Invoke(context.Background(), payload)
	if err != nil || string(out) != "null" {
		t.Fatalf("invoke: %s, %v; want null (log %s)", out, err, logs)
	}
}

// checkStreamEvent checks that payload is a DynamoDB stream event as the
// event source mapping sends it to f: every record from aws:dynamodb,
// with an id, a region, the stream's ARN, keys, a sequence number and
// the table's stream view, and one f's filter lets through.
func checkStreamEvent(t *testing.T, f manifest.Function, payload []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	var ev events.DynamoDBEvent
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("decode stream event: %v", err)
	}
	if len(ev.Records) == 0 {
		t.Fatal("stream event has no records")
	}
	for i, r := range ev.Records {
		c := r.Change
		if r.EventSource != "aws:dynamodb" || r.EventID == "" || r.AWSRegion == "" || r.EventVersion == "" ||
			!strings.HasPrefix(r.EventSourceArn, "arn:aws:dynamodb:") || !strings.Contains(r.EventSourceArn, "/stream/") {
			t.Errorf("record %d: source %q id %q region %q version %q ARN %q", i, r.EventSource, r.EventID, r.AWSRegion, r.EventVersion, r.EventSourceArn)
		}
		if c.Keys[table.PK].DataType() != events.DataTypeString || c.Keys[table.SK].DataType() != events.DataTypeString ||
			c.SequenceNumber == "" || c.StreamViewType != table.StreamView || c.ApproximateCreationDateTime.IsZero() {
			t.Errorf("record %d: keys %v sequence %q view %q; want pk and sk, a sequence number, %s", i, c.Keys, c.SequenceNumber, c.StreamViewType, table.StreamView)
		}
		if f.Stream.InsertsOf != "" {
			if typ, ok := c.NewImage["type"]; r.EventName != streamevent.Insert || !ok || typ.DataType() != events.DataTypeString || typ.String() != f.Stream.InsertsOf {
				t.Errorf("record %d: %s of an item of type %v; %s's filter lets only INSERTs of %q through", i, r.EventName, c.NewImage["type"], f.Slug, f.Stream.InsertsOf)
			}
		}
	}
}

// checkScheduleEvent checks that payload is a scheduled event as
// EventBridge sends it: detail-type "Scheduled Event" from aws.events,
// with an id, a time, a region and the rule among its resources.
func checkScheduleEvent(t *testing.T, payload []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	var ev events.EventBridgeEvent
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("decode scheduled event: %v", err)
	}
	if ev.DetailType != "Scheduled Event" || ev.Source != "aws.events" || ev.ID == "" || ev.Time.IsZero() || ev.Region == "" ||
		len(ev.Resources) != 1 || !strings.HasPrefix(ev.Resources[0], "arn:aws:events:") || string(ev.Detail) != "{}" {
		t.Errorf("scheduled event %+v; want a Scheduled Event of aws.events naming its rule, with an empty detail", ev)
	}
}

// TestStreamEventIsTheStoredItem: each stream case's record carries the
// item exactly as the store writes that event (dynamo.Store.PutEvent:
// keys, attributes, TTL), and the dispatcher's reader takes it back as
// the case's tenant and event.
func TestStreamEventIsTheStoredItem(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	for _, c := range sample.StreamCases() {
		t.Run(c.FileName(), func(t *testing.T) {
			if _, err := env.Store.PutEvent(ctx, c.Tenant, c.Event); err != nil {
				t.Fatal(err)
			}
			var keys map[string]types.AttributeValue
			var img map[string]types.AttributeValue
			capture := streamevent.New(recordFunc(func(r streamevent.Record) { keys, img = r.Keys, r.NewImage }), nil)
			b, err := sample.Files()
			if err != nil {
				t.Fatal(err)
			}
			var ev events.DynamoDBEvent
			if err := json.Unmarshal(b[c.FileName()], &ev); err != nil {
				t.Fatal(err)
			}
			if _, err := capture(ctx, ev); err != nil {
				t.Fatal(err)
			}
			out, err := env.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: ptr(env.Store.EventsTable()), Key: keys, ConsistentRead: ptr(true)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Item == nil {
				t.Fatalf("no item at the record's keys %v: the store writes the event elsewhere", keys)
			}
			if !reflect.DeepEqual(img, out.Item) {
				t.Errorf("record's new image %s; the store writes %s", show(img), show(out.Item))
			}
			tenant, e, ok, err := dynamo.EventFromImage(img)
			if err != nil || !ok || tenant != c.Tenant || e.ID != c.Event.ID || e.Type != c.Event.Type || !e.At.Equal(c.Event.At) || string(e.Data) != string(c.Event.Data) {
				t.Errorf("EventFromImage = %+v, %+v, %v, %v; want %+v, %+v", tenant, e, ok, err, c.Tenant, c.Event)
			}
		})
	}
}

// recordFunc is a streamevent.Processor that hands each record to a
// function.
type recordFunc func(streamevent.Record)

func (f recordFunc) Process(_ context.Context, r streamevent.Record) error {
	f(r)
	return nil
}

func ptr[T any](v T) *T { return &v }

// show renders an item's attributes for a failure message, sorted by
// name: name=S:value, name=N:value, name=<other type>.
func show(item map[string]types.AttributeValue) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(item)) {
		switch v := item[name].(type) {
		case *types.AttributeValueMemberS:
			parts = append(parts, name+"=S:"+v.Value)
		case *types.AttributeValueMemberN:
			parts = append(parts, name+"=N:"+v.Value)
		default:
			parts = append(parts, fmt.Sprintf("%s=%T", name, v))
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// TestScheduleEventReportsMetrics: the retrier's tick, on the fixtures,
// succeeds and writes its metrics line (embedded metric format): no
// delivery due, none overdue.
func TestScheduleEventReportsMetrics(t *testing.T) {
	env := apitest.New(t)
	if err := sample.Seed(context.Background(), env.Store); err != nil {
		t.Fatal(err)
	}
	files, err := sample.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sample.ScheduleCases() {
		t.Run(c.FileName(), func(t *testing.T) {
			logs := &apitest.SyncBuffer{}
			h, metrics := scheduleHandler(t, env, c.Slug, logs)
			invokeSchedule(t, h, files[c.FileName()], logs)
			line, err := os.ReadFile(metrics.Name())
			if err != nil {
				t.Fatal(err)
			}
			var emf map[string]any
			if err := json.Unmarshal(line, &emf); err != nil {
				t.Fatalf("metrics %q: %v", line, err)
			}
			if c.Slug == "webhook-retrier" {
				for _, m := range []string{manifest.MetricWebhookMostOverdue, manifest.MetricWebhookDue} {
					if v, ok := emf[m]; !ok || v != float64(0) {
						t.Errorf("metric %s = %v; want 0 (the fixtures owe no delivery)", m, v)
					}
				}
			}
			if emf["Function"] != c.Slug {
				t.Errorf("metrics %s; want the dimension Function=%s", line, c.Slug)
			}
		})
	}
}

// checkNoDeliveries checks what the stream and scheduled events did
// together on the fixtures: nothing, since the fixture partner has no
// webhook endpoint (so the dispatcher's fan-out writes no delivery, and
// the retrier finds none due).
func checkNoDeliveries(t *testing.T, env *apitest.Env) {
	t.Helper()
	ctx := context.Background()
	eps, err := env.Store.TenantEndpoints(ctx, auth.Tenant{PartnerID: sample.PartnerID, Mode: auth.Test})
	if err != nil || len(eps) != 0 {
		t.Errorf("fixture partner's endpoints %v, %v; want none", eps, err)
	}
	due, err := env.Store.DueDeliveries(ctx, time.Now().Add(48*time.Hour), 10)
	if err != nil || len(due) != 0 {
		t.Errorf("deliveries due within 48 h: %v, %v; want none", due, err)
	}
}

// queueHandler returns the handler of the queue-triggered function slug,
// built as its main builds it (queueevent.Build over awsenv.Load with its
// processor of catalog.QueueProcessors) on env's table, with its log
// lines in logs.
func queueHandler(t *testing.T, env *apitest.Env, slug string, logs *apitest.SyncBuffer) queueevent.Handler {
	t.Helper()
	build, ok := catalog.QueueProcessors()[slug]
	if !ok {
		t.Fatalf("catalog.QueueProcessors has no %s", slug)
	}
	h, err := queueevent.Build(loadWithLogs(t, env, logs), slug, build)
	if err != nil {
		t.Fatalf("build %s: %v", slug, err)
	}
	return h
}

// invokeQueue runs payload (an events.SQSEvent) through h as Lambda would
// and fails unless every message succeeded.
func invokeQueue(t *testing.T, h queueevent.Handler, payload []byte, logs *apitest.SyncBuffer) {
	t.Helper()
	out, err := lambda.NewHandler(h).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatalf("invoke: %v (log %s)", err, logs)
	}
	var resp events.SQSEventResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response %s: %v", out, err)
	}
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("batch item failures %v; want none (log %s)", resp.BatchItemFailures, logs)
	}
}
