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
	"github.com/moveleads/partnerapi/shared/openapi/openapitest"
	"github.com/moveleads/partnerapi/shared/manifest"
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
				out, err := lambda.NewHandler(env.Handler.Route(rt.Operation)).Invoke(ctx, payload)
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
				req := httptest.NewRequest(ev.RequestContext.HTTP.Method, ev.RawPath+"?"+ev.RawQueryString, nil)
				header := http.Header{}
				for k, v := range resp.Headers {
					header.Set(k, v)
				}
				spec.Check(t, req, resp.StatusCode, header, []byte(resp.Body))
				if want/100 == 2 {
					succeeded[rt.Method+" "+template] = true
				}
				if pass == 1 {
					statuses[want]++
				}
			})
		}
	}

	for _, r := range route.Table {
		for _, p := range r.Paths() {
			if !succeeded[r.Method+" "+p] {
				t.Errorf("%s %s (%s): no event in events/ succeeds (2xx)", r.Method, p, r.Slug)
			}
		}
	}
	for _, s := range []int{401, 422} {
		if statuses[s] == 0 {
			t.Errorf("no event in events/ answers %d", s)
		}
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
// as API Gateway would pick the integration, and checks that the rest of
// the event agrees with them.
func routeOf(t *testing.T, ev events.APIGatewayV2HTTPRequest) (manifest.Route, string) {
	t.Helper()
	for _, r := range route.Table {
		for _, p := range r.Paths() {
			if ev.RouteKey != r.Method+" "+p {
				continue
			}
			if ev.RequestContext.RouteKey != ev.RouteKey || ev.RequestContext.HTTP.Method != r.Method {
				t.Errorf("requestContext (routeKey %q, method %q) disagrees with routeKey %q",
					ev.RequestContext.RouteKey, ev.RequestContext.HTTP.Method, ev.RouteKey)
			}
			ok, name, value := manifest.Match(p, ev.RawPath)
			if !ok || ev.RequestContext.HTTP.Path != ev.RawPath {
				t.Errorf("rawPath %q (requestContext.http.path %q) does not match %s", ev.RawPath, ev.RequestContext.HTTP.Path, p)
			}
			if name != "" && ev.PathParameters[name] != value {
				t.Errorf("pathParameters %v; want %s=%q", ev.PathParameters, name, value)
			}
			return r, p
		}
	}
	var keys []string
	for _, r := range route.Table {
		for _, p := range r.Paths() {
			keys = append(keys, r.Method+" "+p)
		}
	}
	t.Fatalf("route key %q is not in the route table (%s)", ev.RouteKey, strings.Join(keys, ", "))
	return manifest.Route{}, ""
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
// for a known route, has a name without dots, and sets a path parameter
// exactly when its route has one.
func TestCasesAreWellFormed(t *testing.T) {
	for _, c := range sample.Cases() {
		rt, ok := route.BySlug(c.Slug)
		if !ok {
			t.Errorf("%s: no route %q", c.FileName(), c.Slug)
			continue
		}
		if c.Name == "" || strings.ContainsAny(c.Name, "./ ") {
			t.Errorf("%s: case name %q must be non-empty, without dots, slashes or spaces", c.FileName(), c.Name)
		}
		if hasParam := manifest.ParamName(rt.PilotPath) != ""; hasParam != (c.Param != "") {
			t.Errorf("%s: path parameter %q for a route with parameter=%v", c.FileName(), c.Param, hasParam)
		}
	}
}
