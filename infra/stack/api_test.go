package stack

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// routeTargets maps each route key ("METHOD path") of the HTTP API to the
// logical id of the function its integration invokes.
func (s *synthed) routeTargets(t *testing.T) map[string]string {
	t.Helper()
	integrations := s.resources("AWS::ApiGatewayV2::Integration")
	out := map[string]string{}
	for id, res := range s.resources("AWS::ApiGatewayV2::Route") {
		p := props(res)
		key, _ := p["RouteKey"].(string)
		// Target is {"Fn::Join": ["", ["integrations/", {"Ref": <integration>}]]}.
		var integ string
		if j, ok := p["Target"].(map[string]any)["Fn::Join"].([]any); ok && len(j) == 2 {
			if parts, ok := j[1].([]any); ok && len(parts) == 2 && parts[0] == "integrations/" {
				integ = ref(parts[1])
			}
		}
		ip, ok := integrations[integ]
		if !ok {
			t.Errorf("route %s (%s): target %v is not an integration of the stack", key, id, p["Target"])
			continue
		}
		if got := props(ip)["PayloadFormatVersion"]; got != "2.0" {
			t.Errorf("route %s: PayloadFormatVersion = %v; want 2.0", key, got)
		}
		if got := props(ip)["IntegrationType"]; got != "AWS_PROXY" {
			t.Errorf("route %s: IntegrationType = %v; want AWS_PROXY", key, got)
		}
		out[key] = getAtt(props(ip)["IntegrationUri"], "Arn")
	}
	return out
}

// wantRouteKeys returns the route keys the API must have for fns, each
// with the slug of the function it must invoke: both paths of every
// partner route (a page's HEAD too), and "$default" for the $default route.
func wantRouteKeys(fns []manifest.Function) map[string]string {
	want := map[string]string{}
	for _, f := range fns {
		for _, r := range f.HTTP {
			if r.IsDefault() {
				want["$default"] = f.Slug
				continue
			}
			for _, p := range r.Paths() {
				for _, m := range r.Methods() {
					want[m+" "+p] = f.Slug
				}
			}
		}
	}
	return want
}

func TestEveryRouteServesBothPathsWithItsFunction(t *testing.T) {
	s := devStack(t)
	fns := s.functionIDs(t)
	targets := s.routeTargets(t)
	want := wantRouteKeys(manifest.Functions)
	for key, slug := range want {
		fid, ok := fns[slug]
		if !ok {
			t.Errorf("no function tagged %s=%s", functionTag, slug)
			continue
		}
		got, ok := targets[key]
		switch {
		case !ok:
			t.Errorf("route %q missing", key)
		case got != fid:
			t.Errorf("route %q invokes %q; want %q (function %s)", key, got, fid, slug)
		}
	}
	if len(targets) != len(want) {
		t.Errorf("got %d routes %v; want %d %v (both paths of every partner route, $default, nothing else)",
			len(targets), sortedKeys(targets), len(want), sortedKeys(want))
	}
}

// TestRoutesHaveNoGatewayAuthorizer: every route reaches its function
// without an API Gateway authorizer; the function authenticates by the
// route's auth kind (suppressAuth says how, per kind, for cdk-nag). The
// Stripe webhook receiver is one of them: Stripe calls it with no
// identity but its signature, which the function verifies.
func TestRoutesHaveNoGatewayAuthorizer(t *testing.T) {
	s := devStack(t)
	if n := len(s.resources("AWS::ApiGatewayV2::Authorizer")); n != 0 {
		t.Errorf("%d authorizers; want none", n)
	}
	for id, res := range s.resources("AWS::ApiGatewayV2::Route") {
		p := props(res)
		if at, ok := p["AuthorizationType"]; ok && at != "NONE" {
			t.Errorf("route %v (%s): AuthorizationType %v; want NONE", p["RouteKey"], id, at)
		}
		if p["AuthorizerId"] != nil {
			t.Errorf("route %v (%s) has an authorizer", p["RouteKey"], id)
		}
	}
	fid := s.functionIDs(t)["stripe-webhook"]
	if got := s.routeTargets(t)["POST /stripe-webhook/{mode}"]; fid == "" || got != fid {
		t.Errorf("POST /stripe-webhook/{mode} invokes %q; want stripe-webhook (%q)", got, fid)
	}
}

// TestDefaultRouteIsRouteNotFound: requests no route matches go to our
// function, which answers the spec's error body, not to API Gateway's own
// 404.
func TestDefaultRouteIsRouteNotFound(t *testing.T) {
	s := devStack(t)
	fid, ok := s.functionIDs(t)["route-not-found"]
	if !ok {
		t.Fatal("no route-not-found function")
	}
	if got := s.routeTargets(t)["$default"]; got != fid {
		t.Errorf("$default route invokes %q; want %q (route-not-found)", got, fid)
	}
}

// TestNewFunctionFlowsThrough deploys the manifest plus one more function
// of each trigger kind the stack deploys (HTTP, S3, stream, schedule) and
// checks they get their function, routes, notification, mapping or rule,
// grants, environment and alarms, with no other change to the stack code.
func TestNewFunctionFlowsThrough(t *testing.T) {
	extra := manifest.Function{
		Slug: "v1-widget-get", Summary: "test-only function",
		HTTP: []manifest.Route{{
			Operation: "getWidget", Method: "GET",
			PilotPath: "/v1-widget-get/{widget_id}", LogicalPath: "/v1/widgets/{id}",
			Auth: manifest.AuthPartnerKey, Scope: auth.LeadsRead, RateLimit: manifest.PerKey,
		}},
		Table: manifest.TableAccess{Get: true},
	}
	exports := manifest.Function{
		Slug: "export-indexer", Summary: "test-only function",
		S3:     &manifest.S3Trigger{Prefix: "exports/", Suffix: ".json"},
		Bucket: manifest.BucketAccess{Read: []string{"exports/"}},
	}
	audit := manifest.Function{
		Slug: "audit-trail", Summary: "test-only function",
		Stream: &manifest.StreamTrigger{BatchSize: 5},
	}
	nightly := manifest.Function{
		Slug: "nightly-report", Summary: "test-only function",
		Schedule: &manifest.ScheduleTrigger{Expression: "cron(0 3 * * ? *)"},
		Table:    manifest.TableAccess{Query: true},
	}
	fns := append(append([]manifest.Function{}, manifest.Functions...), extra, exports, audit, nightly)
	s := synth(t, "extra", Props{Env: Dev, Functions: fns})

	want := wantRouteKeys(fns)
	if got := len(s.functionIDs(t)); got != len(fns) {
		t.Errorf("got %d tagged functions; want %d", got, len(fns))
	}
	assert(t, "route count", func() {
		s.template.ResourceCountIs(jsii.String("AWS::ApiGatewayV2::Route"), jsii.Number(len(want)))
	})
	assert(t, "alarm count", func() {
		s.template.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(wantAlarmCount(fns)))
	})
	fid := s.functionIDs(t)[extra.Slug]
	targets := s.routeTargets(t)
	for _, p := range extra.HTTP[0].Paths() {
		if got := targets["GET "+p]; got == "" || got != fid {
			t.Errorf("route GET %s invokes %q; want %q", p, got, fid)
		}
	}
	var getItem bool
	for _, st := range s.functionStatements(t, extra.Slug) {
		for _, a := range st.actions {
			getItem = getItem || (a == "dynamodb:GetItem" && st.effect == "Allow")
		}
	}
	if !getItem {
		t.Errorf("%s (Table.Get) has no dynamodb:GetItem", extra.Slug)
	}

	notes := s.lambdaNotifications(t)
	if got, want := notes[s.functionIDs(t)[exports.Slug]], []string{"prefix=exports/ suffix=.json"}; !slices.Equal(got, want) {
		t.Errorf("%s notifications %q; want %q", exports.Slug, got, want)
	}
	if got := s.objectGrants(t, exports.Slug); !reflect.DeepEqual(got, map[string][]string{"s3:GetObject": {"exports/*"}, "s3:ListBucket": {""}}) {
		t.Errorf("%s object grants %v; want s3:GetObject on exports/*", exports.Slug, got)
	}

	m := s.streamMapping(t, audit.Slug)
	if p := props(m); p["BatchSize"] != float64(5) || p["FilterCriteria"] != nil {
		t.Errorf("%s mapping: BatchSize %v FilterCriteria %v; want 5 and no filter (no InsertsOf)", audit.Slug, p["BatchSize"], p["FilterCriteria"])
	}
	checkDynamo(t, s, audit)
	if got := props(s.scheduleRule(t, nightly.Slug))["ScheduleExpression"]; got != nightly.Schedule.Expression {
		t.Errorf("%s rule: ScheduleExpression %v; want %s", nightly.Slug, got, nightly.Schedule.Expression)
	}
	checkDynamo(t, s, nightly)
}

// wantAlarmCount is the number of alarms the stack declares for fns: the
// API's two, Errors and Throttles per function, one per dead-letter queue
// (one per stream, schedule or queue function) and the job alarms of the
// functions fns has.
func wantAlarmCount(fns []manifest.Function) int {
	n := 2 + 2*len(fns)
	for _, f := range fns {
		if f.Stream != nil || f.Schedule != nil || f.Queue != nil {
			n++
		}
		for _, j := range jobAlarms {
			if j.slug == f.Slug {
				n++
			}
		}
	}
	return n
}

// TestUnsupportedTriggerFailsSynth: a function whose trigger the stack
// does not deploy yet (a queue) is refused by New with an error naming it,
// and connectTriggers (were it reached) panics naming it.
func TestUnsupportedTriggerFailsSynth(t *testing.T) {
	if _, ok := triggers[manifest.TriggerQueue]; ok {
		t.Skip("every trigger kind is deployed")
	}
	jobs := manifest.Function{Slug: "job-worker", Summary: "test-only", Queue: &manifest.QueueTrigger{Name: "jobs", BatchSize: 10}}
	dir := t.TempDir()
	fns := append(append([]manifest.Function{}, manifest.Functions...), jobs)
	writeAssets(t, dir, fns)
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	_, err := New(app, "Unsupported", Props{Env: Dev, AssetDir: dir, Functions: fns})
	if err == nil || !strings.Contains(err.Error(), "job-worker") || !strings.Contains(err.Error(), "SQS") {
		t.Errorf("New with a queue function = %v; want an error naming job-worker and SQS", err)
	}

	defer func() {
		r := recover()
		if msg := fmt.Sprint(r); r == nil || !strings.Contains(msg, "job-worker") || !strings.Contains(msg, "SQS") {
			t.Errorf("connectTriggers panicked with %v; want a panic naming job-worker and SQS", r)
		}
	}()
	connectTriggers(wiring{}, []function{{spec: jobs}})
}

// TestFunctionsAreArmAL2023Bootstrap checks every manifest function (the
// stack's other function, CDK's bucket-notifications handler, runs only
// during deployments: TestNotificationsHandlerWritesOnlyItsOwnLogs).
func TestFunctionsAreArmAL2023Bootstrap(t *testing.T) {
	s := devStack(t)
	ids := s.functionIDs(t)
	if len(ids) != len(manifest.Functions) {
		t.Errorf("got %d functions %v; want one per manifest entry (%d)", len(ids), sortedKeys(ids), len(manifest.Functions))
	}
	for slug, id := range ids {
		f, ok := manifest.BySlug(slug)
		if !ok {
			t.Errorf("function %s: %q is not in manifest.Functions", id, slug)
			continue
		}
		p := props(s.resources("AWS::Lambda::Function")[id])
		lc, _ := p["LoggingConfig"].(map[string]any)
		if !reflect.DeepEqual(p["Architectures"], []any{"arm64"}) || p["Runtime"] != "provided.al2023" ||
			p["Handler"] != "bootstrap" || p["MemorySize"] != float64(memoryMB) || lc["LogFormat"] != "JSON" {
			t.Errorf("%s: Architectures %v Runtime %v Handler %v MemorySize %v LogFormat %v; want [arm64] provided.al2023 bootstrap %d JSON",
				slug, p["Architectures"], p["Runtime"], p["Handler"], p["MemorySize"], lc["LogFormat"], memoryMB)
		}
		if got, want := p["Timeout"], timeout(f).Seconds(); got != want {
			t.Errorf("%s: Timeout = %v; want %v", slug, got, want)
		}
		// The function's log group is its own and keeps logs for a while.
		lg := ref(lc["LogGroup"])
		if days := props(s.resources("AWS::Logs::LogGroup")[lg])["RetentionInDays"]; days == nil {
			t.Errorf("%s: log group %q has no retention", slug, lg)
		}
	}
}

func TestTimeoutCoversIdempotencyWait(t *testing.T) {
	const integrationTimeout = 30 // seconds, API Gateway HTTP API maximum
	for _, f := range manifest.Functions {
		if f.Trigger() != manifest.TriggerHTTP {
			continue // TestTimeoutOfStreamAndScheduleFunctions
		}
		t.Run(f.Slug, func(t *testing.T) {
			d := timeout(f).Seconds()
			if d >= integrationTimeout {
				t.Errorf("timeout %vs; want under API Gateway's %ds", d, integrationTimeout)
			}
			idempotent := false
			for _, r := range f.HTTP {
				idempotent = idempotent || r.Idempotent
				// The agent tool server runs idempotent operations
				// with the idempotency_key its tools take.
				if r.Operation == manifest.AgentTools {
					for _, op := range manifest.AgentToolOperations {
						idempotent = idempotent || manifest.ByOperation(op).Idempotent
					}
				}
			}
			if idempotent && d <= 10 {
				t.Errorf("timeout %vs; want above the 10 s duplicate wait", d)
			}
			if !idempotent && d != 10 {
				t.Errorf("timeout %vs; want 10 s", d)
			}
		})
	}
	// Pinned: the agent tool server's route honours no Idempotency-Key
	// header, yet a duplicate tools/call (createLead with the same
	// idempotency_key) waits for the first as the API's route does.
	if f, ok := manifest.BySlug(manifest.AgentToolsSlug); !ok || timeout(f) != 10*time.Second+idempotency.DefaultWait {
		t.Errorf("%s: timeout %v (found %v); want 10 s plus idempotency.DefaultWait", manifest.AgentToolsSlug, timeout(f), ok)
	}
}

// TestTimeoutOfStreamAndScheduleFunctions: a stream function has time for
// a full batch at streamRecordBudget a record (the dispatcher's two
// attempts of 10 s and the 5 s between them fit in that budget), within
// Lambda's 15 minutes; a schedule function runs for at most its one-minute
// timeout.
func TestTimeoutOfStreamAndScheduleFunctions(t *testing.T) {
	between := time.Duration(float64(webhook.Schedule[1]) * (1 + webhook.Jitter)) // the longest wait before the second attempt
	if need := 2*webhook.AttemptTimeout + between; streamRecordBudget < need {
		t.Errorf("streamRecordBudget %v; want at least two attempts and the wait between them (%v)", streamRecordBudget, need)
	}
	for _, tc := range []struct {
		name string
		f    manifest.Function
		want time.Duration
	}{
		{"batch of 10", manifest.Function{Stream: &manifest.StreamTrigger{BatchSize: 10}}, 5 * time.Minute},
		{"batch of 1", manifest.Function{Stream: &manifest.StreamTrigger{BatchSize: 1}}, 30 * time.Second},
		{"batch too large is capped", manifest.Function{Stream: &manifest.StreamTrigger{BatchSize: 100}}, maxTimeout},
		{"schedule", manifest.Function{Schedule: &manifest.ScheduleTrigger{Expression: "rate(1 minute)"}}, time.Minute},
	} {
		if got := timeout(tc.f); got != tc.want {
			t.Errorf("%s: timeout %v; want %v", tc.name, got, tc.want)
		}
	}
	for slug, want := range map[string]time.Duration{"webhook-dispatcher": 5 * time.Minute, "webhook-retrier": time.Minute} {
		f, ok := manifest.BySlug(slug)
		if !ok {
			t.Fatalf("no manifest function %s", slug)
		}
		if got := timeout(f); got != want {
			t.Errorf("%s: timeout %v; want %v", slug, got, want)
		}
	}
}

func TestStageThrottlesAndLogsJSON(t *testing.T) {
	s := devStack(t)
	stages := s.resources("AWS::ApiGatewayV2::Stage")
	if len(stages) != 1 {
		t.Fatalf("got %d stages; want 1", len(stages))
	}
	for id, res := range stages {
		p := props(res)
		if p["StageName"] != "$default" || p["AutoDeploy"] != true {
			t.Errorf("stage %s: StageName %v AutoDeploy %v; want $default, true", id, p["StageName"], p["AutoDeploy"])
		}
		rs, _ := p["DefaultRouteSettings"].(map[string]any)
		want := sizingFor(Dev)
		if rs["ThrottlingRateLimit"] != want.rate || rs["ThrottlingBurstLimit"] != want.burst {
			t.Errorf("stage throttle = %v; want rate %v burst %v", rs, want.rate, want.burst)
		}
		als, _ := p["AccessLogSettings"].(map[string]any)
		lg := getAtt(als["DestinationArn"], "Arn")
		if days := props(s.resources("AWS::Logs::LogGroup")[lg])["RetentionInDays"]; days == nil {
			t.Errorf("access log group %q missing or without retention", lg)
		}
		var fields map[string]string
		if err := json.Unmarshal([]byte(als["Format"].(string)), &fields); err != nil {
			t.Errorf("access log format is not JSON: %v", err)
		}
		if fields["requestId"] != "$context.requestId" || fields["routeKey"] != "$context.routeKey" {
			t.Errorf("access log lacks requestId or routeKey: %v", fields)
		}
		// Capture and view pages carry their token in the path: the log
		// names the route template, never the requested path.
		if strings.Contains(als["Format"].(string), "$context.path") {
			t.Errorf("access log format %s logs $context.path; tokens travel in paths", als["Format"])
		}
	}
	// The route key logged for a token route is its template: each such
	// route is on the API by a key whose token is a path parameter, so a
	// request to it logs "GET /v1-video/{token}", never the token.
	targets := s.routeTargets(t)
	var tokenKeys []string
	for _, f := range manifest.Functions {
		for _, r := range f.HTTP {
			if !r.Auth.TokenInPath() {
				continue
			}
			for _, p := range r.Paths() {
				key := r.Method + " " + p
				tokenKeys = append(tokenKeys, key)
				if _, ok := targets[key]; !ok {
					t.Errorf("token route %q is not a route of the API: its requests would log $default's key", key)
				}
				if !strings.Contains(p, "{token}") {
					t.Errorf("token route %q: want the token as the path parameter {token}", key)
				}
			}
		}
	}
	for _, key := range []string{"GET /v1-capture/{token}", "GET /v1-video/{token}", "GET /v1-quote/{token}"} {
		if !slices.Contains(tokenKeys, key) {
			t.Errorf("token routes %q; want %q among them", tokenKeys, key)
		}
	}
	assert(t, "BaseUrl output", func() {
		s.template.HasOutput(jsii.String("BaseUrl"), &map[string]any{
			"Value": map[string]any{"Fn::GetAtt": []any{assertions.Match_AnyValue(), "ApiEndpoint"}},
		})
	})
}

func TestDescription(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    manifest.Function
		want string
	}{
		{"http", manifest.FunctionOf(manifest.CreateLead), "createLead: " + manifest.FunctionOf(manifest.CreateLead).Summary},
		{"default route", manifest.FunctionOf(manifest.RouteNotFound), "routeNotFound: " + manifest.FunctionOf(manifest.RouteNotFound).Summary},
		{"schedule", manifest.Function{Summary: "Nightly.", Schedule: &manifest.ScheduleTrigger{Expression: "rate(1 day)"}}, "Schedule: Nightly."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.Description(); got != tc.want {
				t.Errorf("description = %q; want %q", got, tc.want)
			}
		})
	}
	for _, f := range manifest.Functions {
		if n := len(f.Description()); n > manifest.MaxDescription {
			t.Errorf("%s: description is %d characters; Lambda allows 256", f.Slug, n)
		}
	}
}
