package sample_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/apitest"
	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/openapi/openapitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

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
// handler of the function its route key selects, as Lambda would (the
// file's bytes through aws-lambda-go's handler wrapper), against a fresh
// table seeded with the fixtures, and checks the status in the file's name
// and the response against the API description. It runs them all twice, as
// a developer repeating invocations against `make dev` would.
func TestEveryEventAnswersItsStatus(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	if err := sample.Seed(ctx, env.Store); err != nil {
		t.Fatal(err)
	}
	spec := openapitest.New(t)
	paths := eventFiles(t)

	succeeded := map[string]bool{} // "METHOD template" with a 2xx event
	statuses := map[int]int{}
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
				ev := decodeEvent(t, payload)
				rt, template := routeOf(t, ev)
				if rt.Slug != slug {
					t.Fatalf("route key %q is served by %s; the file name says %s", ev.RouteKey, rt.Slug, slug)
				}
				out, err := lambda.NewHandler(env.Stack.Route(rt.Operation)).Invoke(ctx, payload)
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
				if rt.IsDefault() {
					// The API description documents operations only; an
					// unmatched request gets the spec's error body.
					checkDefaultAnswer(t, ev, resp.StatusCode, header, []byte(resp.Body))
				} else {
					req := httptest.NewRequest(ev.RequestContext.HTTP.Method, ev.RawPath+"?"+ev.RawQueryString, nil)
					spec.Check(t, req, resp.StatusCode, header, []byte(resp.Body))
				}
				if want/100 == 2 {
					succeeded[rt.Method+" "+template] = true
				}
				if pass == 1 {
					statuses[want]++
				}
			})
		}
	}

	for _, r := range manifest.PartnerRoutes() {
		for _, p := range r.Paths() {
			if !succeeded[r.Method+" "+p] {
				t.Errorf("%s %s (%s): no event in events/ succeeds (2xx)", r.Method, p, r.Slug)
			}
		}
	}
	for _, s := range []int{401, 404, 405, 422} {
		if statuses[s] == 0 {
			t.Errorf("no event in events/ answers %d", s)
		}
	}
}

// checkDefaultAnswer checks the $default route's answer to ev: the spec's
// error body, route_not_found for a 404, method_not_allowed for a 405 with
// Allow listing exactly the methods the path has.
func checkDefaultAnswer(t *testing.T, ev events.APIGatewayV2HTTPRequest, status int, header http.Header, body []byte) {
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
	_, _, _, _, allowed, _ := manifest.Resolve(manifest.PartnerRoutes(), ev.RequestContext.HTTP.Method, ev.RawPath)
	want, wantAllow := errcode.RouteNotFound, ""
	if len(allowed) > 0 {
		want, wantAllow = errcode.MethodNotAllowed, strings.Join(allowed, ", ")
	}
	if e.Error.Code != want || errcode.Status(want) != status {
		t.Errorf("status %d code %s; want %d %s", status, e.Error.Code, errcode.Status(want), want)
	}
	if got := header.Get("Allow"); got != wantAllow {
		t.Errorf("Allow %q; want %q", got, wantAllow)
	}
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

// TestDefaultRouteEventsMatchNoRoute: a $default event is only realistic
// when API Gateway would not have matched its method and path to a
// partner route.
func TestDefaultRouteEventsMatchNoRoute(t *testing.T) {
	n := 0
	for _, c := range sample.Cases() {
		rt, err := c.Route()
		if err != nil {
			t.Fatal(err)
		}
		if !rt.IsDefault() {
			continue
		}
		n++
		if r, _, _, _, _, ok := manifest.Resolve(manifest.PartnerRoutes(), c.Method, c.Path); ok {
			t.Errorf("%s: %s %s is served by %s, so API Gateway would never send it to $default", c.FileName(), c.Method, c.Path, r.Operation)
		}
	}
	if n == 0 {
		t.Error("no case for the $default route")
	}
}

func TestParseFileName(t *testing.T) {
	tests := []struct {
		name           string
		slug, caseName string
		status         int
		wantErr        bool
	}{
		{name: "v1-leads.valid.200.json", slug: "v1-leads", caseName: "valid", status: 200},
		{name: "v1-lead-get.not-a-uuid.404.json", slug: "v1-lead-get", caseName: "not-a-uuid", status: 404},
		{name: "v1-leads.json", wantErr: true},
		{name: "v1-leads.valid.ok.json", wantErr: true},
		{name: "v1-leads.valid.2000.json", wantErr: true},
		{name: "v1-leads.a.b.200.json", wantErr: true},
		{name: "v1-leads.valid.200.yaml", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slug, c, status, err := sample.ParseFileName(tt.name)
			if tt.wantErr {
				if err == nil {
					t.Errorf("ParseFileName(%q) = %q, %q, %d; want an error", tt.name, slug, c, status)
				}
				return
			}
			if err != nil || slug != tt.slug || c != tt.caseName || status != tt.status {
				t.Errorf("ParseFileName(%q) = %q, %q, %d, %v; want %q, %q, %d", tt.name, slug, c, status, err, tt.slug, tt.caseName, tt.status)
			}
		})
	}
}

// TestCasesAreWellFormed checks what the file names promise: each case is
// for a known HTTP function, has a name without dots, sets a path
// parameter exactly when its route has one, and sets its own method and
// path exactly for the $default route.
func TestCasesAreWellFormed(t *testing.T) {
	for _, c := range sample.Cases() {
		rt, err := c.Route()
		if err != nil {
			t.Error(err)
			continue
		}
		if c.Name == "" || strings.ContainsAny(c.Name, "./ ") {
			t.Errorf("%s: case name %q must be non-empty, without dots, slashes or spaces", c.FileName(), c.Name)
		}
		if hasParam := manifest.ParamName(rt.PilotPath) != ""; hasParam != (c.Param != "") {
			t.Errorf("%s: path parameter %q for a route with parameter=%v", c.FileName(), c.Param, hasParam)
		}
		if own := c.Method != "" || c.Path != ""; own != rt.IsDefault() || (own && (c.Method == "" || c.Path == "")) {
			t.Errorf("%s: method %q path %q; want both exactly for the $default route", c.FileName(), c.Method, c.Path)
		}
	}
}

// TestEveryHTTPFunctionHasEvents: each HTTP function of the manifest has
// at least one sample event.
func TestEveryHTTPFunctionHasEvents(t *testing.T) {
	has := map[string]bool{}
	for _, c := range sample.Cases() {
		has[c.Slug] = true
	}
	for _, f := range manifest.Functions {
		if f.Trigger() == manifest.TriggerHTTP && !has[f.Slug] {
			t.Errorf("function %s has no sample event", f.Slug)
		}
	}
}
