// Package localgw is a local stand-in for API Gateway's HTTP API: it turns
// each HTTP request into an API Gateway HTTP API payload-2.0 event, invokes
// the route's Lambda handler exactly as the Lambda runtime would (the event
// goes through JSON, through aws-lambda-go's own handler wrapper) and turns
// the returned event back into the HTTP response — as `sam local
// start-api` does. Routes come from route.Table, both path forms.
package localgw

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// maxBody mirrors API Gateway's 10 MB payload limit; the handlers enforce
// the API's own, smaller limit.
const maxBody = 10 << 20

// Gateway serves every route of route.Table.
type Gateway struct {
	handlers map[manifest.Operation]lambda.Handler
	log      *slog.Logger
	// Extra serves paths no route matches (e.g. /openapi.yaml); may be nil.
	Extra map[string]http.Handler
}

// New returns a Gateway invoking fn(op) for each operation's route. It
// panics if fn returns nil for a route, a wiring error.
func New(fn func(manifest.Operation) any, log *slog.Logger) *Gateway {
	g := &Gateway{handlers: map[manifest.Operation]lambda.Handler{}, log: log}
	for _, r := range route.Table {
		f := fn(r.Operation)
		if f == nil {
			panic("localgw: no handler for " + string(r.Operation))
		}
		g.handlers[r.Operation] = lambda.NewHandler(f)
	}
	return g
}

// ServeHTTP implements http.Handler.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, template, name, value, ok := match(r.Method, r.URL.Path)
	if !ok {
		if h, ok := g.Extra[r.URL.Path]; ok {
			h.ServeHTTP(w, r)
			return
		}
		g.notFound(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, uuid.NewString(), errcode.New(errcode.PayloadTooLarge, "The request body is too large."))
		return
	}
	ev := Event(r, rt, template, name, value, body)
	payload, _ := json.Marshal(ev)
	out, err := g.handlers[rt.Operation].Invoke(r.Context(), payload)
	if err != nil {
		// A handler error is a crashed invocation: API Gateway answers 500.
		g.log.Error("invoke", "operation", rt.Operation, "error", err)
		writeError(w, ev.RequestContext.RequestID, errcode.New(errcode.Internal, "Internal Server Error"))
		return
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		g.log.Error("decode response", "operation", rt.Operation, "error", err)
		writeError(w, ev.RequestContext.RequestID, errcode.New(errcode.Internal, "Internal Server Error"))
		return
	}
	Write(w, resp)
}

// match finds the route for method and path.
func match(method, path string) (rt manifest.Route, template, name, value string, ok bool) {
	for _, r := range route.Table {
		if r.Method != method {
			continue
		}
		for _, t := range r.Paths() {
			if ok, n, v := manifest.Match(t, path); ok {
				return r, t, n, v, true
			}
		}
	}
	return manifest.Route{}, "", "", "", false
}

func (g *Gateway) notFound(w http.ResponseWriter, r *http.Request) {
	id := uuid.NewString()
	g.log.Info("request", "request_id", id, "method", r.Method, "path", r.URL.Path, "status", 404, "error_code", errcode.RouteNotFound)
	writeError(w, id, errcode.New(errcode.RouteNotFound, "No route for %s %s.", r.Method, r.URL.Path))
}

func writeError(w http.ResponseWriter, requestID string, e *errcode.Error) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message, "details": map[string]any{}}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", requestID)
	w.WriteHeader(errcode.Status(e.Code))
	_, _ = w.Write(b)
}

// Event builds the payload-2.0 event API Gateway sends for r matched to rt
// at template (with path parameter name=value, if any).
func Event(r *http.Request, rt manifest.Route, template, name, value string, body []byte) events.APIGatewayV2HTTPRequest {
	now := time.Now().UTC()
	headers := map[string]string{}
	for k, vs := range r.Header {
		headers[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	if r.Host != "" {
		headers["host"] = r.Host
	}
	var query map[string]string
	if q := r.URL.Query(); len(q) > 0 {
		query = map[string]string{}
		for k, vs := range q {
			query[k] = strings.Join(vs, ",")
		}
	}
	var params map[string]string
	if name != "" {
		params = map[string]string{name: value}
	}
	ip, _, _ := net.SplitHostPort(r.RemoteAddr)
	routeKey := rt.Method + " " + template
	ev := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: routeKey, RawPath: r.URL.Path, RawQueryString: r.URL.RawQuery,
		Headers: headers, QueryStringParameters: query, PathParameters: params,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey: routeKey, AccountID: "000000000000", Stage: "$default",
			RequestID: uuid.NewString(), APIID: "local", DomainName: r.Host,
			Time: now.Format("02/Jan/2006:15:04:05 -0700"), TimeEpoch: now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: r.Method, Path: r.URL.Path, Protocol: r.Proto, SourceIP: ip, UserAgent: r.UserAgent(),
			},
		},
	}
	if utf8.Valid(body) {
		ev.Body = string(body)
	} else {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	return ev
}

// Write writes a payload-2.0 response event as the HTTP response.
func Write(w http.ResponseWriter, resp events.APIGatewayV2HTTPResponse) {
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	for _, c := range resp.Cookies {
		w.Header().Add("Set-Cookie", c)
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if b, err := base64.StdEncoding.DecodeString(resp.Body); err == nil {
			body = b
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Serve serves g on addr until ctx ends, then shuts down gracefully.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	}
}
