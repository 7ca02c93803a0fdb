package coldstart

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	eventsample "github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// shapeFunction is the one function TestRun measures beside the
// baseline: an HTTP function on DynamoDB, as most are.
const shapeFunction = "v1-leads"

// TestRun builds the baseline and one function (shapeFunction) for the
// host alone and cold-starts each 3 times (COLDSTART_RUNS overrides,
// printed with -v); make bench runs every function, arm64 sizes
// included. It checks the report's shape and the consistency of its
// numbers, never a budget: a slow machine must not fail make test.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a function and starts DynamoDB Local")
	}
	runs := 3
	if s := os.Getenv("COLDSTART_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("COLDSTART_RUNS=%q: want a positive number", s)
		}
		runs = n
	}
	endpoint, stop, err := dynamolocal.ForTests()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	// The test binary's MinIO and stripe-mock (make test's shared ones
	// when it runs): Run would start its own of each otherwise.
	s3srv, stopS3, err := s3local.ForTests()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopS3)
	stripeSrv, stopStripe, err := stripelocal.ForTests()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopStripe)

	start := time.Now()
	rows, err := Run(context.Background(), Options{Runs: runs, Endpoint: endpoint, S3: s3srv, Stripe: stripeSrv,
		Log: t.Output(), Only: shapeFunction, HostSizes: true})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("Run with %d runs took %s\n%s", runs, time.Since(start).Round(time.Millisecond), report.Markdown(rows))

	byMetric := map[string]report.Row{}
	for _, r := range rows {
		if r.Section != Section {
			t.Errorf("%s: section %q; want %q", r.Metric, r.Section, Section)
		}
		byMetric[r.Metric] = r
	}
	row := func(metric string) report.Row {
		t.Helper()
		r, ok := byMetric[metric]
		if !ok {
			t.Fatalf("no row %q", metric)
		}
		return r
	}
	f, ok := manifest.BySlug(shapeFunction)
	if !ok {
		t.Fatalf("no %s in the manifest", shapeFunction)
	}
	names := []string{helloWorld, f.Slug}
	for _, m := range []string{"init ratio to hello-world " + f.Slug, sizeMetric(f.Slug, runtime.GOARCH)} {
		if r := row(m); r.OK == nil || r.Budget == "" {
			t.Errorf("%s: no budget verdict", m)
		}
		// The zip is compressed: smaller than its binary, and not empty.
		var zip, bin float64
		if _, err := fmt.Sscanf(row(zipMetric(f.Slug, runtime.GOARCH)).Value, "%f MiB", &zip); err != nil || zip <= 0 {
			t.Errorf("%s: zip size %q; want a positive size in MiB", f.Slug, row(zipMetric(f.Slug, runtime.GOARCH)).Value)
		}
		if _, err := fmt.Sscanf(row(sizeMetric(f.Slug, runtime.GOARCH)).Value, "%f MiB", &bin); err == nil && zip >= bin {
			t.Errorf("%s: zip %.2f MiB, binary %.2f MiB; want the zip smaller", f.Slug, zip, bin)
		}
	}
	for _, name := range names {
		init := median(t, row("init "+name).Value, runs)
		first := median(t, row("first response "+name).Value, runs)
		if init <= 0 || first < init {
			t.Errorf("%s: init median %.2f ms, first response median %.2f ms; want 0 < init ≤ first response", name, init, first)
		}
		var mib float64
		if _, err := fmt.Sscanf(row(sizeMetric(name, runtime.GOARCH)).Value, "%f MiB", &mib); err != nil || mib <= 0 {
			t.Errorf("%s: size %q; want a positive size in MiB", name, row(sizeMetric(name, runtime.GOARCH)).Value)
		}
	}
	if want := 3 + 5; len(rows) != want {
		t.Errorf("%d rows; want %d", len(rows), want)
	}
}

// TestRunRefusesUnknownFunction: Only names a function of the manifest.
func TestRunRefusesUnknownFunction(t *testing.T) {
	_, err := Run(context.Background(), Options{Only: "v1-nope"})
	if err == nil || !strings.Contains(err.Error(), "v1-nope") {
		t.Errorf("Run(Only: v1-nope) = %v; want an error naming it", err)
	}
}

// median reads the median of a report.Stats value and checks its n.
func median(t *testing.T, value string, n int) float64 {
	t.Helper()
	var m float64
	if _, err := fmt.Sscanf(value, "%f ms", &m); err != nil {
		t.Errorf("value %q: %v", value, err)
	}
	if !strings.HasSuffix(value, fmt.Sprintf("n=%d)", n)) {
		t.Errorf("value %q; want n=%d", value, n)
	}
	return m
}

func TestCheckReleaseFlags(t *testing.T) {
	fns := []manifest.Function{
		{Slug: "v1-leads"},
		{Slug: "v1-leads-list", Secrets: []string{manifest.SecretCursor}},
	}
	const plain = `CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -tags lambda.norpc -ldflags "-s -w" -o /tmp/x/v1-leads/bootstrap ./functions/v1-leads` + "\n"
	const secret = `CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -tags lambda.norpc -ldflags "-s -w" -o /tmp/x/v1-leads-list/bootstrap ./functions/v1-leads-list` + "\n"
	tests := []struct {
		name, arch, log string
		ok              bool
	}{
		{"each with its flags", "amd64", plain + secret, true},
		{"other arch", "arm64", plain + secret, false},
		{"flag dropped", "amd64", strings.Replace(plain, "-trimpath ", "", 1) + secret, false},
		{"flag added", "amd64", strings.Replace(plain, "-trimpath", "-trimpath -race", 1) + secret, false},
		{"tag missing", "amd64", plain + strings.Replace(secret, "-tags lambda.norpc ", "", 1), false},
		{"tag added", "amd64", strings.Replace(plain, "lambda.norpc", "lambda.norpc,extra", 1) + secret, false},
		{"function not built", "amd64", plain, false},
		{"function built twice", "amd64", plain + plain + secret, false},
		{"unknown package", "amd64", plain + secret + strings.ReplaceAll(plain, "v1-leads", "v1-other"), false},
		{"no build printed", "amd64", "linux/amd64 functions in /tmp/x\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkReleaseFlags(tt.log, tt.arch, fns); (err == nil) != tt.ok {
				t.Errorf("checkReleaseFlags = %v; want ok %v", err, tt.ok)
			}
		})
	}
}

// TestBaselineIsBuiltLikeAFunctionWithoutSecrets: the baseline's flags
// are a release build's, without the Secrets Manager tag.
func TestBaselineIsBuiltLikeAFunctionWithoutSecrets(t *testing.T) {
	want := []string{"-trimpath", "-tags", "lambda.norpc", "-ldflags", "-s -w"}
	if !slices.Equal(baselineFlags, want) {
		t.Errorf("baselineFlags = %q; want %q", baselineFlags, want)
	}
}

func TestRouteNotFoundEvent(t *testing.T) {
	fn, ok := manifest.BySlug("route-not-found")
	if !ok {
		t.Fatal("no route-not-found function in the manifest")
	}
	fx := &fixture{s3: &s3local.Server{}}
	tg, err := fx.Target(fn, "/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	if tg.wantStatus() != 404 {
		t.Errorf("route-not-found must answer %d; want 404", tg.wantStatus())
	}
	b, err := tg.Event(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.RouteKey != "$default" || ev.RequestContext.RouteKey != "$default" || ev.RawPath != "/v1-no-such-route" ||
		ev.Headers["authorization"] != "" {
		t.Errorf("event %s; want a $default event for /v1-no-such-route without a key", b)
	}
}

// TestEveryFunctionHasAnEvent: the fixture has an event for every
// function of the manifest, of the function's trigger.
func TestEveryFunctionHasAnEvent(t *testing.T) {
	fx := &fixture{s3: &s3local.Server{}}
	for _, fn := range manifest.Functions {
		tg, err := fx.Target(fn, "/bin/true")
		if err != nil {
			t.Errorf("%s: %v", fn.Slug, err)
			continue
		}
		if other := fn.Trigger() != manifest.TriggerHTTP; other != (tg.Check != nil && tg.Verify != nil) {
			t.Errorf("%s (%s): want a response check and a verification exactly for a function that is not HTTP", fn.Slug, fn.Trigger())
		}
	}
}

func TestS3Event(t *testing.T) {
	const key = "clips/ptn_x/test/00000000-0000-4000-8000-000000000001/00000000-0000-4000-8000-000000000002"
	b, err := s3Event("clips-bucket", key, 14246)
	if err != nil {
		t.Fatal(err)
	}
	var ev events.S3Event
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 1 {
		t.Fatalf("%d records; want 1", len(ev.Records))
	}
	r := ev.Records[0]
	if r.EventName != "ObjectCreated:Put" || r.S3.Bucket.Name != "clips-bucket" || r.S3.Object.URLDecodedKey != key || r.S3.Object.Size != 14246 {
		t.Errorf("event %s; want ObjectCreated:Put of %s (14246 bytes) in clips-bucket", b, key)
	}
}

func TestCheckNull(t *testing.T) {
	if err := checkNull([]byte("null")); err != nil {
		t.Errorf("null: %v", err)
	}
	for _, body := range []string{"", `{"statusCode":200}`, `"null"`} {
		if err := checkNull([]byte(body)); err == nil {
			t.Errorf("%q: no error", body)
		}
	}
}

func TestTargetRefusesOtherTriggers(t *testing.T) {
	fn := manifest.Function{Slug: "jobs"} // no trigger the harness knows
	if _, err := (&fixture{}).Target(fn, "/bin/true"); err == nil || !strings.Contains(err.Error(), "jobs") {
		t.Errorf("Target(function without a trigger) = %v; want an error naming it", err)
	}
}

func TestStreamEventIsAnInsertOfTheEventItem(t *testing.T) {
	fx := &fixture{webhookFixture: webhookFixture{hooks: auth.Tenant{PartnerID: "ptn_x", Mode: auth.Test}}}
	e := fx.newEvent()
	b, err := streamEvent(eventsample.StreamCase{Tenant: fx.hooks, Event: e})
	if err != nil {
		t.Fatal(err)
	}
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 1 {
		t.Fatalf("%d records; want 1", len(ev.Records))
	}
	r := ev.Records[0]
	f, _ := manifest.BySlug("webhook-dispatcher")
	if r.EventName != "INSERT" || r.Change.NewImage["type"].String() != f.Stream.InsertsOf ||
		r.Change.NewImage["event_id"].String() != e.ID || r.Change.SequenceNumber == "" {
		t.Errorf("event %s; want an INSERT of event item %s, which the dispatcher's filter lets through", b, e.ID)
	}
}

func TestScheduledEvent(t *testing.T) {
	b, err := scheduledEvent("webhook-retrier")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.EventBridgeEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.DetailType != "Scheduled Event" || ev.Source != "aws.events" || ev.Time.IsZero() || len(ev.Resources) != 1 {
		t.Errorf("event %s; want a scheduled event naming its rule", b)
	}
}

func TestCheckNoFailures(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"batchItemFailures":null}`:                     true,
		`{"batchItemFailures":[]}`:                       true,
		`{"batchItemFailures":[{"itemIdentifier":"1"}]}`: false,
		`null`: false,
		``:     false,
	} {
		if err := checkNoFailures([]byte(body)); (err == nil) != ok {
			t.Errorf("checkNoFailures(%q) = %v; want ok %v", body, err, ok)
		}
	}
}

// TestWebhookFunctionsGetTheSealingKey: the functions that list the
// sealing key get it (and the loopback setting their local receiver
// needs); the others get neither.
func TestWebhookFunctionsGetTheSealingKey(t *testing.T) {
	fx := &fixture{s3: &s3local.Server{}, webhookFixture: webhookFixture{sealingKey: "ab"}}
	for _, fn := range manifest.Functions {
		env := strings.Join(fx.Env(&fn), " ")
		lists := slices.Contains(fn.Secrets, manifest.SecretWebhookSealing)
		if got := strings.Contains(env, "WEBHOOK_SEALING_KEY=ab") && strings.Contains(env, "WEBHOOK_ALLOW_LOOPBACK=1"); got != lists {
			t.Errorf("%s: sealing key and loopback in its environment: %v; want %v", fn.Slug, got, lists)
		}
	}
}

func TestEvent(t *testing.T) {
	get := manifest.ByOperation(manifest.GetLead)
	b, err := event(get, "GET", "/v1-lead-get/00000000-0000-4000-8000-000000000001", "", "Authorization: Bearer mk_test_x")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Version != "2.0" || ev.RequestContext.HTTP.Method != "GET" || ev.RouteKey != "GET /v1-lead-get/{lead_id}" ||
		ev.PathParameters["lead_id"] != "00000000-0000-4000-8000-000000000001" || ev.Headers["authorization"] != "Bearer mk_test_x" {
		t.Errorf("event %s; want a payload-2.0 getLead event with the lead id and key", b)
	}
	if _, err := event(get, "GET", "/elsewhere", ""); err == nil {
		t.Error("event for a path that is not the route's: no error")
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.Runs != DefaultRuns || o.Warmup != DefaultWarmup || o.Timeout != DefaultTimeout || o.Log == nil {
		t.Errorf("defaults %+v", o)
	}
	if o := (Options{Warmup: -1}).withDefaults(); o.Warmup != 0 {
		t.Errorf("Warmup -1 → %d; want none", o.Warmup)
	}
}

// TestAgentToolsEvent: the agent tool server's cold start is a tools/list
// POST on its route, with the MCP Accept header and, when the fixture
// makes keys, the key in X-Partner-Key, never in Authorization; its
// answer must list the tools, not merely be a 200.
func TestAgentToolsEvent(t *testing.T) {
	fn, ok := manifest.BySlug(manifest.AgentToolsSlug)
	if !ok {
		t.Fatalf("no %s function in the manifest", manifest.AgentToolsSlug)
	}
	fx := &fixture{s3: &s3local.Server{}}
	tg, err := fx.Target(fn, "/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Check == nil || tg.Verify != nil {
		t.Fatalf("%s: want a response check (the tools) and no verification", fn.Slug)
	}
	req, err := fx.request(manifest.ByOperation(manifest.AgentTools))
	if err != nil {
		t.Fatal(err)
	}
	if !req.key || req.body != toolsListBody || req.method != "POST" {
		t.Errorf("request %+v; want a keyed POST of tools/list", req)
	}
	req.key = false // Event would create the key in the table
	b, err := fx.Event(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.RouteKey != "POST /v1-mcp" || ev.RawPath != "/v1-mcp" || ev.Body != toolsListBody ||
		ev.Headers["accept"] != "application/json, text/event-stream" || ev.Headers["content-type"] != "application/json" ||
		ev.Headers["authorization"] != "" {
		t.Errorf("event %s; want a tools/list POST /v1-mcp accepting JSON and event streams, no Authorization", b)
	}
	// With a key: the route's auth kind puts it in X-Partner-Key.
	b, err = event(req.route, req.method, req.path, req.body, append(req.headers, manifest.AgentKeyHeader+": mk_test_x")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ev); err != nil || ev.Headers["x-partner-key"] != "mk_test_x" {
		t.Errorf("event %s; want the key in x-partner-key", b)
	}
}

func TestCheckToolsList(t *testing.T) {
	answer := func(status int, body string) []byte {
		b, err := json.Marshal(events.APIGatewayV2HTTPResponse{StatusCode: status, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var tools []string
	for range manifest.AgentToolOperations {
		tools = append(tools, `{"name":"t"}`)
	}
	all := `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Join(tools, ",") + `]}}`
	for name, tc := range map[string]struct {
		body []byte
		ok   bool
	}{
		"every tool":     {answer(200, all), true},
		"401":            {answer(401, `{"error":{"code":"invalid_api_key","message":"x"}}`), false},
		"JSON-RPC error": {answer(200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`), false},
		"fewer tools":    {answer(200, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}`), false},
		"not JSON-RPC":   {answer(200, `event: message`), false},
		"not a response": {[]byte(`null`), false},
	} {
		if err := checkToolsList(tc.body); (err == nil) != tc.ok {
			t.Errorf("%s: checkToolsList = %v; want ok %v", name, err, tc.ok)
		}
	}
}

// TestSelected: -functions measures the named functions in the manifest's
// order, all of them when none is named, and refuses an unknown slug.
func TestSelected(t *testing.T) {
	all, err := selected(nil)
	if err != nil || len(all) != len(manifest.Functions) {
		t.Fatalf("selected(nil) = %d functions, %v; want all %d", len(all), err, len(manifest.Functions))
	}
	got, err := selected([]string{"v1-mcp", "v1-leads"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Slug != "v1-leads" || got[1].Slug != "v1-mcp" {
		t.Errorf("selected(v1-mcp, v1-leads) = %v; want v1-leads, v1-mcp", got)
	}
	if _, err := selected([]string{"v1-nope"}); err == nil || !strings.Contains(err.Error(), "v1-nope") {
		t.Errorf("selected(v1-nope) error = %v; want one naming v1-nope", err)
	}
}
