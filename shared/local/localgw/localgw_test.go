package localgw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// fakes are Lambda handlers of aws-lambda-go's shape for every operation
// of the manifest. Each records the events it gets and answers 200 with
// {"operation": op} and the event's request id, unless a test sets its
// own behaviour in do.
type fakes struct {
	mu     sync.Mutex
	events map[manifest.Operation][]events.APIGatewayV2HTTPRequest
	do     map[manifest.Operation]func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
}

func newFakes() *fakes {
	return &fakes{
		events: map[manifest.Operation][]events.APIGatewayV2HTTPRequest{},
		do:     map[manifest.Operation]func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error){},
	}
}

func (f *fakes) handler(op manifest.Operation) any {
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		f.mu.Lock()
		f.events[op] = append(f.events[op], ev)
		do := f.do[op]
		f.mu.Unlock()
		if do != nil {
			return do(ctx, ev)
		}
		return events.APIGatewayV2HTTPResponse{
			StatusCode: 200,
			Headers:    map[string]string{"Content-Type": "application/json", "X-Request-Id": ev.RequestContext.RequestID},
			Body:       `{"operation":"` + string(op) + `"}`,
		}, nil
	}
}

// set makes op's fake run fn instead of answering 200.
func (f *fakes) set(op manifest.Operation, fn func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.do[op] = fn
}

// all returns every recorded event, by operation.
func (f *fakes) all() map[manifest.Operation][]events.APIGatewayV2HTTPRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[manifest.Operation][]events.APIGatewayV2HTTPRequest{}
	for op, evs := range f.events {
		out[op] = append([]events.APIGatewayV2HTTPRequest(nil), evs...)
	}
	return out
}

// only returns the one event the fakes got, failing unless exactly one
// handler was invoked exactly once.
func (f *fakes) only(t *testing.T) (manifest.Operation, events.APIGatewayV2HTTPRequest) {
	t.Helper()
	all := f.all()
	var op manifest.Operation
	var ev events.APIGatewayV2HTTPRequest
	n := 0
	for o, evs := range all {
		for _, e := range evs {
			op, ev = o, e
			n++
		}
	}
	if n != 1 {
		t.Fatalf("handlers invoked %d times (%v); want exactly once", n, counts(all))
	}
	return op, ev
}

// none fails if any handler was invoked.
func (f *fakes) none(t *testing.T) {
	t.Helper()
	if all := f.all(); len(all) > 0 {
		t.Errorf("handlers invoked: %v; want none", counts(all))
	}
}

func counts(all map[manifest.Operation][]events.APIGatewayV2HTTPRequest) map[manifest.Operation]int {
	out := map[manifest.Operation]int{}
	for op, evs := range all {
		out[op] = len(evs)
	}
	return out
}

func newGateway(t testing.TB) (*Gateway, *fakes) {
	t.Helper()
	f := newFakes()
	return New(f.handler, slog.New(slog.NewTextHandler(io.Discard, nil))), f
}

// errorBodyOf decodes the API's error body from b, failing unless it has
// exactly the keys error.code, error.message and error.details (an object).
func errorBodyOf(t *testing.T, b []byte) (code errcode.Code, message string) {
	t.Helper()
	var body map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("body %q is not the error body: %v", b, err)
	}
	e, ok := body["error"]
	if !ok || len(body) != 1 || len(e) != 3 {
		t.Fatalf("body %s; want exactly {\"error\":{\"code\",\"message\",\"details\"}}", b)
	}
	var details map[string]any
	if err := json.Unmarshal(e["code"], &code); err != nil {
		t.Fatalf("error.code in %s: %v", b, err)
	}
	if err := json.Unmarshal(e["message"], &message); err != nil || message == "" {
		t.Fatalf("error.message in %s: %v; want a non-empty string", b, err)
	}
	if err := json.Unmarshal(e["details"], &details); err != nil || details == nil {
		t.Fatalf("error.details in %s: %v; want an object", b, err)
	}
	return code, message
}

// checkError fails unless res is the API's error answer with status and
// code, in JSON, with an X-Request-Id.
func checkError(t *testing.T, res *http.Response, body []byte, status int, code errcode.Code) {
	t.Helper()
	if res.StatusCode != status {
		t.Errorf("status %d; want %d (body %s)", res.StatusCode, status, body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q; want application/json", ct)
	}
	if res.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	if got, _ := errorBodyOf(t, body); got != code {
		t.Errorf("error.code %q; want %q", got, code)
	}
}

// serve runs req through g as net/http's server would hand it over.
func serve(g http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	g.ServeHTTP(w, req)
	return w
}

func TestRoutesLikeAPIGateway(t *testing.T) {
	tests := []struct {
		name, method, target string
		wantOp               manifest.Operation
		wantRouteKey         string
		wantParams           map[string]string
		wantRawPath          string
	}{
		{"createLead pilot path", "POST", "/v1-leads", manifest.CreateLead, "POST /v1-leads", nil, "/v1-leads"},
		{"createLead logical path", "POST", "/v1/leads", manifest.CreateLead, "POST /v1/leads", nil, "/v1/leads"},
		{"listLeads with a query", "GET", "/v1/leads?limit=2", manifest.ListLeads, "GET /v1/leads", nil, "/v1/leads"},
		{"getLead logical path", "GET", "/v1/leads/ld_1", manifest.GetLead, "GET /v1/leads/{id}", map[string]string{"id": "ld_1"}, "/v1/leads/ld_1"},
		{"getLead pilot path", "GET", "/v1-lead-get/ld_1", manifest.GetLead, "GET /v1-lead-get/{lead_id}", map[string]string{"lead_id": "ld_1"}, "/v1-lead-get/ld_1"},
		{"encoded slash never splits", "POST", "/v1%2fleads", manifest.RouteNotFound, "$default", nil, "/v1%2fleads"},
		{"encoded slash upper case", "POST", "/v1%2Fleads", manifest.RouteNotFound, "$default", nil, "/v1%2Fleads"},
		{"encoded letter is not the letter", "POST", "/v1-lead%73", manifest.RouteNotFound, "$default", nil, "/v1-lead%73"},
		{"trailing slash", "POST", "/v1/leads/", manifest.RouteNotFound, "$default", nil, "/v1/leads/"},
		{"trailing slash after a parameter", "GET", "/v1/leads/ld_1/", manifest.RouteNotFound, "$default", nil, "/v1/leads/ld_1/"},
		{"empty parameter", "GET", "/v1-lead-get/", manifest.RouteNotFound, "$default", nil, "/v1-lead-get/"},
		{"known path, wrong method", "DELETE", "/v1/leads", manifest.RouteNotFound, "$default", nil, "/v1/leads"},
		{"HEAD is not GET", "HEAD", "/v1/leads", manifest.RouteNotFound, "$default", nil, "/v1/leads"},
		{"unknown path", "GET", "/nope", manifest.RouteNotFound, "$default", nil, "/nope"},
		{"root", "GET", "/", manifest.RouteNotFound, "$default", nil, "/"},
		{"characters Go would re-encode stay raw", "GET", "/nope{x}|y", manifest.RouteNotFound, "$default", nil, "/nope{x}|y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, f := newGateway(t)
			w := serve(g, httptest.NewRequest(tt.method, tt.target, nil))
			if w.Code != 200 {
				t.Errorf("status %d; want the fake's 200", w.Code)
			}
			op, ev := f.only(t)
			if op != tt.wantOp {
				t.Errorf("invoked %s; want %s", op, tt.wantOp)
			}
			if ev.RouteKey != tt.wantRouteKey || ev.RequestContext.RouteKey != tt.wantRouteKey {
				t.Errorf("routeKey %q, requestContext.routeKey %q; want %q", ev.RouteKey, ev.RequestContext.RouteKey, tt.wantRouteKey)
			}
			if !reflect.DeepEqual(ev.PathParameters, tt.wantParams) {
				t.Errorf("pathParameters %v; want %v", ev.PathParameters, tt.wantParams)
			}
			if ev.RawPath != tt.wantRawPath || ev.RequestContext.HTTP.Path != tt.wantRawPath {
				t.Errorf("rawPath %q, requestContext.http.path %q; want %q", ev.RawPath, ev.RequestContext.HTTP.Path, tt.wantRawPath)
			}
			if ev.RequestContext.HTTP.Method != tt.method {
				t.Errorf("requestContext.http.method %q; want %q", ev.RequestContext.HTTP.Method, tt.method)
			}
		})
	}
}

func TestNonASCIIURL(t *testing.T) {
	tests := []struct{ name, target string }{
		{"UTF-8 in the path", "/v1/leads/caf\xc3\xa9"},
		{"invalid UTF-8 in the path", "/\xe6"},
		{"UTF-8 in the query", "/v1/leads?q=\xc3\xa9"},
		{"Latin-1 in the query", "/v1/leads?q=caf\xe9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + tt.target + " HTTP/1.1\r\nHost: x\r\n\r\n")))
			if err != nil {
				t.Fatalf("net/http refuses %q (%v): the gateway's check is not what answers it", tt.target, err)
			}
			g, f := newGateway(t)
			w := serve(g, req)
			checkError(t, w.Result(), w.Body.Bytes(), 400, errcode.BadRequest)
			f.none(t)
		})
	}
}

// Every route the manifest lists is reachable at each of its paths: a new
// route needs no change here.
func TestEveryManifestRouteIsServed(t *testing.T) {
	for _, r := range manifest.PartnerRoutes() {
		for _, template := range r.Paths() {
			path := template
			if name := manifest.ParamName(template); name != "" {
				path = strings.Replace(template, "{"+name+"}", "x1", 1)
			}
			t.Run(r.Method+" "+path, func(t *testing.T) {
				g, f := newGateway(t)
				serve(g, httptest.NewRequest(r.Method, path, nil))
				op, ev := f.only(t)
				if op != r.Operation {
					t.Errorf("invoked %s; want %s", op, r.Operation)
				}
				if want := r.Method + " " + template; ev.RouteKey != want {
					t.Errorf("routeKey %q; want %q", ev.RouteKey, want)
				}
			})
		}
	}
}

func TestDefaultRouteGetsTheWholeRequest(t *testing.T) {
	g, f := newGateway(t)
	f.set(manifest.RouteNotFound, func(_ context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return events.APIGatewayV2HTTPResponse{
			StatusCode: 405,
			Headers:    map[string]string{"Allow": "GET, POST", "Content-Type": "application/json", "X-Request-Id": ev.RequestContext.RequestID},
			Body:       `{"error":{"code":"method_not_allowed","message":"m","details":{}}}`,
		}, nil
	})
	req := httptest.NewRequest("PUT", "/v1/leads?a=1", strings.NewReader(`{"x":1}`))
	req.Header.Set("Authorization", "Bearer k")
	w := serve(g, req)
	if w.Code != 405 || w.Header().Get("Allow") != "GET, POST" {
		t.Errorf("answer %d Allow %q; want the $default handler's 405 with Allow: GET, POST", w.Code, w.Header().Get("Allow"))
	}
	op, ev := f.only(t)
	if op != manifest.RouteNotFound {
		t.Fatalf("invoked %s; want %s", op, manifest.RouteNotFound)
	}
	if ev.RouteKey != "$default" || ev.PathParameters != nil {
		t.Errorf("routeKey %q, pathParameters %v; want $default and none", ev.RouteKey, ev.PathParameters)
	}
	if ev.Body != `{"x":1}` || ev.RawQueryString != "a=1" || ev.Headers["authorization"] != "Bearer k" {
		t.Errorf("body %q, rawQueryString %q, authorization %q; want the request's", ev.Body, ev.RawQueryString, ev.Headers["authorization"])
	}
}

func TestExtraBeforeDefault(t *testing.T) {
	g, f := newGateway(t)
	g.Extra = map[string]http.Handler{
		"/openapi.yaml": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/yaml")
			_, _ = w.Write([]byte("openapi: 3.1.0\n"))
		}),
		// A route's path: the route wins.
		"/v1/leads": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(599) }),
	}
	t.Run("extra path", func(t *testing.T) {
		w := serve(g, httptest.NewRequest("GET", "/openapi.yaml", nil))
		if w.Code != 200 || w.Body.String() != "openapi: 3.1.0\n" {
			t.Errorf("answer %d %q; want the extra handler's", w.Code, w.Body)
		}
		if w.Header().Get("X-Request-Id") == "" {
			t.Error("no X-Request-Id on /openapi.yaml")
		}
		f.none(t)
	})
	t.Run("route wins", func(t *testing.T) {
		serve(g, httptest.NewRequest("GET", "/v1/leads", nil))
		if op, _ := f.only(t); op != manifest.ListLeads {
			t.Errorf("invoked %s; want %s", op, manifest.ListLeads)
		}
	})
	t.Run("raw path must match", func(t *testing.T) {
		g, f := newGateway(t)
		g.Extra = map[string]http.Handler{"/openapi.yaml": http.NotFoundHandler()}
		serve(g, httptest.NewRequest("GET", "/openapi%2Eyaml", nil))
		if op, _ := f.only(t); op != manifest.RouteNotFound {
			t.Errorf("invoked %s; want %s", op, manifest.RouteNotFound)
		}
	})
}

func TestEvent(t *testing.T) {
	g, f := newGateway(t)
	req := httptest.NewRequest("POST", "/v1/leads?b=2&a=1&a=3&c", bytes.NewReader([]byte{0xff, 0xfe, 'x'}))
	req.Host = "api.example.com"
	req.RemoteAddr = "192.0.2.7:4567"
	req.Header["X-Multi"] = []string{"one", "two"}
	req.Header.Set("User-Agent", "ua/1")
	serve(g, req)
	_, ev := f.only(t)
	tests := []struct {
		name      string
		got, want any
	}{
		{"version", ev.Version, "2.0"},
		{"headers lower-cased and joined", ev.Headers["x-multi"], "one,two"},
		{"host header", ev.Headers["host"], "api.example.com"},
		{"no mixed-case header keys", ev.Headers["X-Multi"], ""},
		{"raw query string", ev.RawQueryString, "b=2&a=1&a=3&c"},
		{"query parameters joined", ev.QueryStringParameters, map[string]string{"a": "1,3", "b": "2", "c": ""}},
		{"non-UTF-8 body is base64", ev.IsBase64Encoded, true},
		{"base64 body", ev.Body, base64.StdEncoding.EncodeToString([]byte{0xff, 0xfe, 'x'})},
		{"source ip", ev.RequestContext.HTTP.SourceIP, "192.0.2.7"},
		{"user agent", ev.RequestContext.HTTP.UserAgent, "ua/1"},
		{"protocol", ev.RequestContext.HTTP.Protocol, "HTTP/1.1"},
		{"domain name", ev.RequestContext.DomainName, "api.example.com"},
		{"stage", ev.RequestContext.Stage, "$default"},
		{"request id set", ev.RequestContext.RequestID != "", true},
		{"time epoch set", ev.RequestContext.TimeEpoch > 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %#v; want %#v", tt.got, tt.want)
			}
		})
	}
	t.Run("UTF-8 body is text", func(t *testing.T) {
		g, f := newGateway(t)
		serve(g, httptest.NewRequest("POST", "/v1/leads", strings.NewReader(`{"name":"Zoë"}`)))
		_, ev := f.only(t)
		if ev.IsBase64Encoded || ev.Body != `{"name":"Zoë"}` {
			t.Errorf("body %q (base64 %v); want the text as sent", ev.Body, ev.IsBase64Encoded)
		}
	})
}

func TestBodyLimit(t *testing.T) {
	tests := []struct {
		name string
		req  func() *http.Request
	}{
		{"announced by Content-Length", func() *http.Request {
			r := httptest.NewRequest("POST", "/v1/leads", strings.NewReader("{}"))
			r.ContentLength = maxBody + 1
			return r
		}},
		{"streamed without a length", func() *http.Request {
			r := httptest.NewRequest("POST", "/v1/leads", io.LimitReader(zeros{}, maxBody+1))
			r.ContentLength = -1
			return r
		}},
		{"on the $default route too", func() *http.Request {
			r := httptest.NewRequest("POST", "/nope", io.LimitReader(zeros{}, maxBody+1))
			r.ContentLength = -1
			return r
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, f := newGateway(t)
			w := serve(g, tt.req())
			checkError(t, w.Result(), w.Body.Bytes(), 413, errcode.PayloadTooLarge)
			f.none(t)
		})
	}
	t.Run("exactly the limit passes", func(t *testing.T) {
		if testing.Short() {
			t.Skip("moves 10 MB through JSON twice (~3 s under -race)")
		}
		g, f := newGateway(t)
		w := serve(g, httptest.NewRequest("POST", "/v1/leads", io.LimitReader(zeros{}, maxBody)))
		if w.Code != 200 {
			t.Errorf("status %d; want 200", w.Code)
		}
		if _, ev := f.only(t); len(ev.Body) != maxBody {
			t.Errorf("body of %d bytes; want %d", len(ev.Body), maxBody)
		}
	})
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

type brokenBody struct{}

func (brokenBody) Read([]byte) (int, error) { return 0, errors.New("chunked framing broken") }

func TestUnreadableBody(t *testing.T) {
	g, f := newGateway(t)
	w := serve(g, httptest.NewRequest("POST", "/v1/leads", brokenBody{}))
	checkError(t, w.Result(), w.Body.Bytes(), 400, errcode.BadRequest)
	f.none(t)
}

func TestFailedInvocation(t *testing.T) {
	tests := []struct {
		name string
		fn   func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
	}{
		{"handler error", func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{}, errors.New("boom")
		}},
		{"handler panic", func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			panic("boom")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, f := newGateway(t)
			f.set(manifest.CreateLead, tt.fn)
			w := serve(g, httptest.NewRequest("POST", "/v1/leads", strings.NewReader("{}")))
			checkError(t, w.Result(), w.Body.Bytes(), 500, errcode.Internal)
			if strings.Contains(w.Body.String(), "boom") {
				t.Errorf("body %s leaks the handler's error", w.Body)
			}
		})
	}
	t.Run("response is not a response event", func(t *testing.T) {
		g := New(func(manifest.Operation) any {
			return func(context.Context, events.APIGatewayV2HTTPRequest) (string, error) { return "not an event", nil }
		}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		w := serve(g, httptest.NewRequest("GET", "/v1/leads", nil))
		checkError(t, w.Result(), w.Body.Bytes(), 500, errcode.Internal)
	})
}

func TestNewPanicsWithoutAHandler(t *testing.T) {
	for _, r := range manifest.Routes() {
		t.Run(string(r.Operation), func(t *testing.T) {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), string(r.Operation)) {
					t.Errorf("recovered %v; want a panic naming %s", p, r.Operation)
				}
			}()
			f := newFakes()
			New(func(op manifest.Operation) any {
				if op == r.Operation {
					return nil
				}
				return f.handler(op)
			}, slog.Default())
		})
	}
}

func TestWrite(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, events.APIGatewayV2HTTPResponse{
		Headers:           map[string]string{"Content-Type": "image/png"},
		MultiValueHeaders: map[string][]string{"Vary": {"a", "b"}},
		Cookies:           []string{"a=1", "b=2"},
		Body:              base64.StdEncoding.EncodeToString([]byte{0x89, 'P'}),
		IsBase64Encoded:   true,
	})
	res := w.Result()
	tests := []struct {
		name      string
		got, want any
	}{
		{"status 0 is 200", res.StatusCode, 200},
		{"header", res.Header.Get("Content-Type"), "image/png"},
		{"multi-value header", res.Header.Values("Vary"), []string{"a", "b"}},
		{"cookies", res.Header.Values("Set-Cookie"), []string{"a=1", "b=2"}},
		{"base64 body decoded", w.Body.Bytes(), []byte{0x89, 'P'}},
		{"content length", res.Header.Get("Content-Length"), "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %#v; want %#v", tt.got, tt.want)
			}
		})
	}
}

// TestConcurrentRequestsToOneRoute: requests to one route at once each
// get their own answer. aws-lambda-go's handler encodes into one buffer
// per handler; sharing one across requests raced (go test -race) and
// could hand one request another's answer.
func TestConcurrentRequestsToOneRoute(t *testing.T) {
	g := New(func(manifest.Operation) any {
		return func(_ context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: strings.Repeat(ev.PathParameters["id"], 512)}, nil
		}
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("lead-%02d", i)
			for range 20 {
				w := serve(g, httptest.NewRequest("GET", "/v1/leads/"+id, nil))
				if got := w.Body.String(); got != strings.Repeat(id, 512) {
					t.Errorf("GET /v1/leads/%s: answer %.40q…; want its own", id, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}
