package hookwiring

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/edge/queueevent"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/queuelocal"
	"github.com/moveleads/partnerapi/shared/local/streamlocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// TestMain runs the package's tests (hooks_test.go's and pay_test.go's) against one
// DynamoDB Local.
func TestMain(m *testing.M) { dynamolocal.RunTests(m) }

var tenant = auth.Tenant{PartnerID: "ptn_hooks", Mode: auth.Test}

// fixture is a fresh table, an Env over it that reads the sealing key
// (as the functions' wiring does), and a receiver that verifies.
type fixture struct {
	db     *dynamodb.Client
	name   string
	store  *dynamo.Store
	env    *awsenv.Env
	sealer *webhook.Sealer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	t.Setenv(settings.WebhookAllowLoopback, "1")
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	name := "hooks-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := dynamo.CreateTablesWithStream(ctx, db, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dynamo.DeleteTables(context.Background(), db, name) })
	key := make([]byte, 32)
	key[0] = 7
	sealer, _ := webhook.NewSealer(key)
	store := dynamo.New(db, name)
	env := awsenv.ForTools(store, nil, func(n string) func(context.Context) ([]byte, error) {
		if n != manifest.SecretWebhookSealing {
			t.Errorf("read secret %q", n)
		}
		return func(context.Context) ([]byte, error) { return key, nil }
	}, cfg)
	return &fixture{db: db, name: name, store: store, env: env, sealer: sealer}
}

type hookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	ids []string
	bad int
}

func (f *fixture) receiver(t *testing.T) (*hookReceiver, webhook.Endpoint) {
	t.Helper()
	r := &hookReceiver{}
	var wh *standardwebhooks.Webhook
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := wh.Verify(body, req.Header); err != nil {
			r.bad++
			w.WriteHeader(400)
			return
		}
		r.ids = append(r.ids, req.Header.Get("webhook-id"))
	}))
	t.Cleanup(r.Close)
	ep, secret, err := webhook.NewEndpoint(tenant, r.URL, nil, f.sealer, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if wh, err = standardwebhooks.NewWebhook(secret); err != nil {
		t.Fatal(err)
	}
	if err := f.store.PutEndpoint(context.Background(), ep); err != nil {
		t.Fatal(err)
	}
	return r, ep
}

func (r *hookReceiver) got() (ids []string, bad int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...), r.bad
}

// completeSurvey writes a lead and survey and moves it to inventory_ready
// with the events it owes, as the clip processor does.
func (f *fixture) completeSurvey(t *testing.T) []webhook.Event {
	t.Helper()
	return f.completeSurveyOf(t, tenant)
}

// completeSurveyOf is completeSurvey for tenant tn.
func (f *fixture) completeSurveyOf(t *testing.T, tenant auth.Tenant) []webhook.Event {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	l := lead.Build(uuid.NewString(), lead.CreateInput{CustomerName: "Ada", Email: "ada@example.com", Source: "test"}, estimate.DefaultRateCard("usd"), now)
	if err := f.store.PutLead(ctx, tenant, l, false); err != nil {
		t.Fatal(err)
	}
	sv, _, err := survey.New(uuid.NewString(), l.ID, survey.DefaultTokenLifetime, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.StartSurvey(ctx, tenant, sv); err != nil {
		t.Fatal(err)
	}
	for _, step := range [][2]survey.Status{{survey.Invited, survey.Recording}, {survey.Recording, survey.Processing}} {
		if err := f.store.AdvanceSurvey(ctx, tenant, record.SurveyTransition{LeadID: l.ID, SurveyID: sv.ID, From: step[0], To: step[1], At: now}); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := webhook.SurveyEvents(string(tenant.Mode), l.ID, sv.ID, survey.InventoryReady, nil, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.AdvanceSurvey(ctx, tenant, record.SurveyTransition{LeadID: l.ID, SurveyID: sv.ID, From: survey.Processing,
		To: survey.InventoryReady, At: now, Inventory: &inventory.Inventory{}, Events: evs}); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestDispatcherFromTheStream: through the table's stream (DynamoDB
// Local, read as Lambda reads it), the dispatcher's own handler, the
// attempts queue (shared/local/queuelocal) and the sender's handler, a
// survey's state change reaches the partner's endpoint once, verified;
// the many other records of the stream (lead, survey, delivery items) and
// a malformed event item are passed over without failing the batch; the
// same records delivered again make no second delivery.
func TestDispatcherFromTheStream(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rcv, ep := f.receiver(t)
	q := queuelocal.New(manifest.QueueWebhookAttempts, queuelocal.Options{})
	p, err := DispatcherWith(f.env, q)
	if err != nil {
		t.Fatal(err)
	}
	a, err := AttemptsWith(f.env, q)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.env.Check(manifest.Function{Slug: "webhook-dispatcher", Secrets: []string{manifest.SecretWebhookSealing}}); err != nil {
		t.Fatal(err)
	}
	qctx, stopQueue := context.WithCancel(ctx)
	queueDone := make(chan error, 1)
	go func() { queueDone <- q.Run(qctx, queueevent.New(a, 10, nil)) }()
	defer func() { stopQueue(); <-queueDone }()
	h := streamevent.New(p, nil)
	var (
		mu       sync.Mutex
		batches  []events.DynamoDBEvent
		failures int
	)
	recording := func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		resp, err := h(ctx, ev)
		mu.Lock()
		batches = append(batches, ev)
		failures += len(resp.BatchItemFailures)
		mu.Unlock()
		return resp, err
	}
	// A malformed event item: "type" says event, the mode is unknown.
	_, err = f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.name), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "PARTNER#ptn_hooks#MODE#test#EVENT#evt_bad"}, "sk": &types.AttributeValueMemberS{Value: "EVENT"},
		"type": &types.AttributeValueMemberS{Value: dynamo.EventItemType}, "mode": &types.AttributeValueMemberS{Value: "staging"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	evs := f.completeSurvey(t)
	want := webhook.MessageID(evs[0].ID, ep.ID)

	pctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- streamlocal.Poll(pctx, f.db, streamlocal.StreamsClient(f.db), table.EventsName(f.name), streamlocal.TrimHorizon, 10, recording, nil)
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ids, _ := rcv.got(); len(ids) > 0 || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(500 * time.Millisecond) // the delivery's own writes pass through the stream too
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ids, bad := rcv.got()
	if len(ids) != 1 || ids[0] != want || bad != 0 {
		t.Fatalf("received %v (%d unverified); want exactly [%s]", ids, bad, want)
	}
	if failures != 0 {
		t.Errorf("%d records reported failed; want none (malformed items are skipped)", failures)
	}
	// Every batch again, as a stream may deliver records more than once:
	// each hands its delivery to the queue again, and the sender drops
	// those messages (the delivery has moved on).
	for _, b := range batches {
		if resp, err := h(ctx, b); err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("redelivered batch: %+v %v", resp, err)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); q.Len() > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := q.Len(); n != 0 {
		t.Fatalf("%d messages still queued", n)
	}
	if ids, _ := rcv.got(); len(ids) != 1 {
		t.Errorf("after the records came again: %d deliveries; want 1", len(ids))
	}
}

// TestRetrierJob: the job attempts what is due and reports how overdue the
// most overdue delivery was and how many were due, under the manifest's
// metric names.
func TestRetrierJob(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rcv, ep := f.receiver(t)
	ev := webhook.Event{ID: "evt_retry", Type: webhook.SurveyCompleted, Mode: "test", At: time.Now().UTC(), Data: []byte(`{}`)}
	if _, err := f.store.CreateDelivery(ctx, webhook.Delivery{EndpointID: ep.ID, Event: ev, Status: webhook.Pending, NextAt: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	j, err := Retrier(f.env)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := j.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range ms {
		got[m.Name] = m.Value
	}
	if got[manifest.MetricWebhookDue] != 1 || got[manifest.MetricWebhookMostOverdue] < 59 || got[manifest.MetricWebhookMostOverdue] > 120 {
		t.Errorf("metrics %v; want 1 due, about 60 s overdue", got)
	}
	if ids, _ := rcv.got(); len(ids) != 1 || ids[0] != webhook.MessageID(ev.ID, ep.ID) {
		t.Errorf("received %v", ids)
	}
	if ms, _ := j.Run(ctx); len(ms) != 2 || ms[0].Value != 0 || ms[1].Value != 0 {
		t.Errorf("second run %+v; want nothing due", ms)
	}
}
