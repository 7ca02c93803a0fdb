package sample_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/edge/queueevent"
	"github.com/moveleads/partnerapi/shared/edge/schedule"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/openapitest"
)

// eventsDir is events/, the folder of the files.
const eventsDir = ".."

func eventFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(eventsDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no event files in %s", eventsDir)
	}
	slices.Sort(paths)
	return paths
}

// TestFilesAreCurrent fails when events/ differs from Cases: a file
// missing, changed or not generated.
func TestFilesAreCurrent(t *testing.T) {
	want, err := sample.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range eventFiles(t) {
		name := filepath.Base(path)
		w, ok := want[name]
		if !ok {
			t.Errorf("%s is not a case of events/sample; remove it or add the case (go run ./scripts/genevents)", path)
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, w) {
			t.Errorf("%s is stale: run go run ./scripts/genevents", path)
		}
		delete(want, name)
	}
	for name := range want {
		t.Errorf("events/%s is missing: run go run ./scripts/genevents", name)
	}
}

// TestEveryEventAnswersItsStatus runs every file in events/ through the
// handler of its function, as Lambda would (the file's bytes through
// aws-lambda-go's handler wrapper), against a fresh table seeded with the
// fixtures. An API Gateway event goes to the handler its route key
// selects and must answer the status in the file's name, with a response
// the API description (partner routes) or the capture page's contract
// (token routes) allows; an S3 event goes to the function's processor
// built as its main builds it (s3event.Build) and must succeed; a stream
// event goes to the function's handler as its main builds it
// (streamevent.Build) and must report no batch item failure; a scheduled
// event goes to the function's handler (schedule.Build) and must succeed. It runs
// them all twice, as a developer repeating invocations against `make dev`
// would, and then checks what the events did together: the fixture clip
// decided playable and its finished survey inventory_ready; the seeded
// playable clips as the processor decided it; each open of the fixture
// video link logged, and the link still live.
func TestEveryEventAnswersItsStatus(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	if err := sample.Seed(ctx, env.Store); err != nil {
		t.Fatal(err)
	}
	spec := openapitest.New(t)
	processor, logs := clipProcessor(t, env)
	jobLogs := &apitest.SyncBuffer{}
	streams := map[string]streamevent.Handler{}
	schedules := map[string]schedule.Handler{}
	queues := map[string]queueevent.Handler{}
	for _, f := range manifest.Functions {
		switch {
		case f.Stream != nil:
			streams[f.Slug] = streamHandler(t, env, f.Slug, jobLogs)
		case f.Queue != nil:
			queues[f.Slug] = queueHandler(t, env, f.Slug, jobLogs)
		case f.Schedule != nil:
			schedules[f.Slug], _ = scheduleHandler(t, env, f.Slug, jobLogs)
		}
	}
	paths := eventFiles(t)

	succeeded := map[string]bool{} // "METHOD template" with a 2xx event
	statuses := map[int]int{}
	views := 0 // videoPage events that answered 200: opens of the fixture link
	for pass := 1; pass <= 2; pass++ {
		for _, path := range paths {
			name := filepath.Base(path)
			t.Run(fmt.Sprintf("pass%d/%s", pass, name), func(t *testing.T) {
				slug, _, want, err := sample.ParseFileName(name)
				if err != nil {
					t.Fatal(err)
				}
				payload, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				f, _ := manifest.BySlug(slug)
				switch {
				case f.S3 != nil:
					checkS3Event(t, f, payload)
					if _, err := lambda.NewHandler(processor).Invoke(ctx, payload); err != nil {
						t.Fatalf("invoke: %v (log %s)", err, logs)
					}
					return
				case f.Stream != nil:
					checkStreamEvent(t, f, payload)
					invokeStream(t, streams[slug], payload, jobLogs)
					return
				case f.Queue != nil:
					invokeQueue(t, queues[slug], payload, jobLogs)
					return
				case f.Schedule != nil:
					checkScheduleEvent(t, payload)
					invokeSchedule(t, schedules[slug], payload, jobLogs)
					return
				}
				if signedByStripe(f) {
					payload = resign(t, payload)
				}
				key := answersAsNamed(t, env, spec, slug, want, payload)
				if want/100 == 2 {
					succeeded[key] = true
				}
				if slug == "v1-video" && want == 200 {
					views++
				}
				if pass == 1 {
					statuses[want]++
				}
			})
		}
	}

	for _, r := range manifest.Routes() {
		if r.IsDefault() {
			continue
		}
		if needsLiveSession(r) {
			continue
		}
		for _, p := range r.Paths() {
			if !succeeded[r.Method+" "+p] {
				t.Errorf("%s %s (%s): no event in events/ succeeds (2xx)", r.Method, p, r.Slug)
			}
		}
	}
	for _, s := range []int{400, 401, 404, 405, 409, 422} {
		if statuses[s] == 0 {
			t.Errorf("no event in events/ answers %d", s)
		}
	}
	checkFixtureClipSettled(t, env)
	checkSeededClipsAsProcessed(t, env, views)
	if strings.Contains(logs.String(), `"level":"WARN"`) || strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("clip processor logged a warning or an error: %s", logs)
	}
	if strings.Contains(jobLogs.String(), `"level":"WARN"`) || strings.Contains(jobLogs.String(), `"level":"ERROR"`) {
		t.Errorf("a stream or schedule function logged a warning or an error: %s", jobLogs)
	}
	checkNoDeliveries(t, env)
}

// needsLiveSession reports whether r succeeds only with what no static
// event can carry: a live dashboard session (with its CSRF token) or a
// fresh WebAuthn response to a challenge. shared/app/dashboardapp's tests
// run each such route to success against DynamoDB Local and Chromium.
func needsLiveSession(r manifest.Route) bool {
	if r.Slug != manifest.DashboardSlug {
		return false
	}
	return r.Auth == manifest.AuthDashboardSession || strings.Contains(r.PilotPath, "/finish") || strings.Contains(r.PilotPath, "{token}")
}

// answersAsNamed invokes the API Gateway event payload of function slug
// and checks that it answers status want, and that the answer is one its
// route allows. It returns the route key ("METHOD template") it served.
func answersAsNamed(t *testing.T, env *apitest.Env, spec *openapitest.Validator, slug string, want int, payload []byte) string {
	t.Helper()
	ev := decodeEvent(t, payload)
	rt, template := routeOf(t, ev)
	if rt.Slug != slug {
		t.Fatalf("route key %q is served by %s; the file name says %s", ev.RouteKey, rt.Slug, slug)
	}
	out, err := lambda.NewHandler(env.Stack.Route(rt.Operation)).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("decode response %s: %v", out, err)
	}
	if resp.StatusCode != want {
		t.Fatalf("status %d; want %d (body %s)", resp.StatusCode, want, resp.Body)
	}
	header := http.Header{}
	for k, v := range resp.Headers {
		header.Set(k, v)
	}
	switch {
	case rt.IsDefault():
		// The API description documents operations only; an unmatched
		// request gets the spec's error body.
		checkDefaultAnswer(t, ev, resp.StatusCode, header, []byte(resp.Body))
	case rt.Auth == manifest.AuthAgentKey:
		// The agent tool server (docs/AGENT-TOOLS.md): MCP, not in the
		// API description.
		checkAgentToolsAnswer(t, ev, resp.StatusCode, header, []byte(resp.Body))
	case rt.Operation == manifest.DashboardAsset:
		// The dashboard's script and stylesheet, by their extension.
		wantCT := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}[filepath.Ext(ev.RawPath)]
		if resp.StatusCode == 200 && (header.Get("Content-Type") != wantCT || header.Get("X-Content-Type-Options") != "nosniff") {
			t.Errorf("asset %s: Content-Type %q, nosniff %q; want %q, nosniff", ev.RawPath, header.Get("Content-Type"), header.Get("X-Content-Type-Options"), wantCT)
		}
	case rt.Auth.TokenInPath() || rt.Auth == manifest.AuthProcessorSignature || rt.Slug == manifest.DashboardSlug:
		// Not partner API (docs/CAPTURE.md; the Stripe webhook receiver,
		// docs/DEPOSITS.md): no OpenAPI operation.
		checkTokenRouteAnswer(t, rt, resp.StatusCode, header, []byte(resp.Body))
	default:
		req := httptest.NewRequest(ev.RequestContext.HTTP.Method, ev.RawPath+"?"+ev.RawQueryString, nil)
		spec.Check(t, req, resp.StatusCode, header, []byte(resp.Body))
	}
	return rt.Method + " " + template
}

// checkTokenRouteAnswer checks an answer of a route that is not partner
// API: one authenticated by a token in its path (the capture, viewer and
// quote pages and their calls, docs/CAPTURE.md) or by the payment
// processor's signature (the Stripe webhook receiver): the route's content
// type; for a page an HTML document, whatever the status, never cached;
// the API's error body, with the code of that status, for a call that
// failed.
func checkTokenRouteAnswer(t *testing.T, rt manifest.Route, status int, header http.Header, body []byte) {
	t.Helper()
	got, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	want, _, _ := mime.ParseMediaType(string(rt.Response))
	if err != nil || got != want {
		t.Errorf("Content-Type %q; want %s", header.Get("Content-Type"), want)
	}
	if rt.Response == manifest.HTML {
		if !bytes.HasPrefix(bytes.ToLower(bytes.TrimSpace(body)), []byte("<!doctype html>")) {
			t.Errorf("body %.80q...; want an HTML document", body)
		}
		if cc := header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control %q; want no-store", cc)
		}
		return
	}
	if status/100 != 2 {
		if code := errorCode(t, body); errcode.Status(code) != status {
			t.Errorf("status %d with code %s (%d)", status, code, errcode.Status(code))
		}
	}
}

// checkAgentToolsAnswer checks an answer of the agent tool server's
// route: JSON; for a 2xx the JSON-RPC 2.0 response to ev's message (its
// id, a result object, no error, and for a tools/call a result that is
// not a tool error); otherwise the API's error body, with the code of
// that status, given before any MCP handling.
func checkAgentToolsAnswer(t *testing.T, ev events.APIGatewayV2HTTPRequest, status int, header http.Header, body []byte) {
	t.Helper()
	if got, _, err := mime.ParseMediaType(header.Get("Content-Type")); err != nil || got != "application/json" {
		t.Errorf("Content-Type %q; want application/json", header.Get("Content-Type"))
	}
	if status/100 != 2 {
		if code := errorCode(t, body); errcode.Status(code) != status {
			t.Errorf("status %d with code %s (%d)", status, code, errcode.Status(code))
		}
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal([]byte(ev.Body), &req); err != nil {
		t.Fatalf("request body %s is not a JSON-RPC message: %v", ev.Body, err)
	}
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  map[string]any  `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.JSONRPC != "2.0" || string(resp.ID) != string(req.ID) ||
		resp.Result == nil || resp.Error != nil {
		t.Fatalf("body %s (%v); want the JSON-RPC 2.0 result of %s %s", body, err, req.Method, req.ID)
	}
	if isError, _ := resp.Result["isError"].(bool); req.Method == "tools/call" && isError {
		t.Errorf("tools/call answered a tool error: %s", body)
	}
}

// checkDefaultAnswer checks the $default route's answer to ev: the spec's
// error body, route_not_found for a 404, method_not_allowed for a 405 with
// Allow listing exactly the methods the path has.
func checkDefaultAnswer(t *testing.T, ev events.APIGatewayV2HTTPRequest, status int, header http.Header, body []byte) {
	t.Helper()
	code := errorCode(t, body)
	_, _, _, _, allowed, _ := manifest.Resolve(manifest.PartnerRoutes(), ev.RequestContext.HTTP.Method, ev.RawPath)
	want, wantAllow := errcode.RouteNotFound, ""
	if len(allowed) > 0 {
		want, wantAllow = errcode.MethodNotAllowed, strings.Join(allowed, ", ")
	}
	if code != want || errcode.Status(want) != status {
		t.Errorf("status %d code %s; want %d %s", status, code, errcode.Status(want), want)
	}
	if got := header.Get("Allow"); got != wantAllow {
		t.Errorf("Allow %q; want %q", got, wantAllow)
	}
}

// errorCode decodes the API's error body strictly,
// {"error":{"code","message","details"}} with details an object, and
// returns its code.
func errorCode(t *testing.T, body []byte) errcode.Code {
	t.Helper()
	var e struct {
		Error struct {
			Code    errcode.Code   `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Error.Message == "" || e.Error.Details == nil {
		t.Fatalf("body %s: want {\"error\":{\"code\",\"message\",\"details\"}} (%v)", body, err)
	}
	return e.Error.Code
}

// signedByStripe reports whether f's routes are authenticated by Stripe's
// signature (the webhook receiver).
func signedByStripe(f manifest.Function) bool {
	return slices.ContainsFunc(f.HTTP, func(r manifest.Route) bool { return r.Auth == manifest.AuthProcessorSignature })
}

// resign returns the API Gateway event payload signed again now with the
// test stack's test-mode webhook secret (apitest.StripeWebhookSecret) when
// it is a sample signed to verify (sample.Resign): the bad-signature
// event is left as it is.
func resign(t *testing.T, payload []byte) []byte {
	t.Helper()
	out, _, err := sample.Resign(payload, func(mode string) string {
		if mode == "test" {
			return apitest.StripeWebhookSecret
		}
		return ""
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeEvent decodes a payload-2.0 event strictly: a misspelt field would
// otherwise be dropped silently.
func decodeEvent(t *testing.T, payload []byte) events.APIGatewayV2HTTPRequest {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	var ev events.APIGatewayV2HTTPRequest
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("decode event: %v", err)
	}
	return ev
}

// routeOf returns the route and path template that ev's route key names,
// as API Gateway would pick the integration ("$default" for the $default
// route), and checks that the rest of the event agrees with them.
func routeOf(t *testing.T, ev events.APIGatewayV2HTTPRequest) (manifest.Route, string) {
	t.Helper()
	if ev.RequestContext.RouteKey != ev.RouteKey {
		t.Errorf("requestContext.routeKey %q disagrees with routeKey %q", ev.RequestContext.RouteKey, ev.RouteKey)
	}
	if ev.RequestContext.HTTP.Path != ev.RawPath {
		t.Errorf("rawPath %q disagrees with requestContext.http.path %q", ev.RawPath, ev.RequestContext.HTTP.Path)
	}
	var keys []string
	for _, r := range manifest.Routes() {
		if r.IsDefault() {
			if ev.RouteKey == manifest.DefaultPath {
				if len(ev.PathParameters) != 0 {
					t.Errorf("pathParameters %v on the $default route; want none", ev.PathParameters)
				}
				return r, manifest.DefaultPath
			}
			keys = append(keys, manifest.DefaultPath)
			continue
		}
		for _, p := range r.Paths() {
			keys = append(keys, r.Method+" "+p)
			if ev.RouteKey != r.Method+" "+p {
				continue
			}
			if ev.RequestContext.HTTP.Method != r.Method {
				t.Errorf("requestContext.http.method %q disagrees with routeKey %q", ev.RequestContext.HTTP.Method, ev.RouteKey)
			}
			ok, name, value := manifest.Match(p, ev.RawPath)
			if !ok {
				t.Errorf("rawPath %q does not match %s", ev.RawPath, p)
			}
			if name != "" && ev.PathParameters[name] != value {
				t.Errorf("pathParameters %v; want %s=%q", ev.PathParameters, name, value)
			}
			return r, p
		}
	}
	t.Fatalf("route key %q is not in the manifest (%s)", ev.RouteKey, strings.Join(keys, ", "))
	return manifest.Route{}, ""
}
