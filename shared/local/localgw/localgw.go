// Package localgw is a local stand-in for API Gateway's HTTP API: it turns
// each HTTP request into an API Gateway HTTP API payload-2.0 event, invokes
// the route's Lambda handler exactly as the Lambda runtime would (the event
// goes through JSON, through aws-lambda-go's own handler wrapper) and turns
// the returned event back into the HTTP response — as `sam local
// start-api` does.
//
// Routes come from manifest.Routes(), both path forms, matched as API
// Gateway matches them: on the raw, still percent-encoded path
// (manifest.Resolve). A request no route matches — an unknown path, or a
// known path with another method — goes to the $default route's handler
// (manifest.RouteNotFound), which answers 404 or 405 itself; the gateway
// never answers a routing miss on its own.
//
// Serve adds what a deployed API Gateway does before any Lambda runs:
// time limits on slow clients (408 for a body that does not arrive) and
// the API's JSON error body, never net/http's plain text, for requests
// net/http refuses to parse (see jsonErrorConn).
package localgw

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// maxBody mirrors API Gateway's 10 MB payload limit; the handlers enforce
// the API's own, smaller limit (manifest.Route.BodyLimit).
const maxBody = 10 << 20

// Gateway serves every route of manifest.Routes().
type Gateway struct {
	routes   []manifest.Route
	fallback manifest.Route // the $default route
	// handlers are each operation's instances: aws-lambda-go's handler
	// encodes every response into one buffer of its own (a Lambda instance
	// serves one request at a time), so concurrent requests take an
	// instance each, as Lambda starts another instance.
	handlers map[manifest.Operation]*sync.Pool
	log      *slog.Logger
	// Extra serves raw paths no route matches (e.g. /openapi.yaml), before
	// the $default route would; may be nil. Its answers carry a fresh
	// X-Request-Id.
	Extra map[string]http.Handler
}

// New returns a Gateway invoking fn(op) for each route's operation,
// $default's (manifest.RouteNotFound) included. fn returns a handler of any
// shape lambda.NewHandler accepts. New panics if fn returns nil for a route
// or the manifest has no $default route: both are wiring errors.
func New(fn func(manifest.Operation) any, log *slog.Logger) *Gateway {
	g := &Gateway{routes: manifest.Routes(), handlers: map[manifest.Operation]*sync.Pool{}, log: log}
	found := false
	for _, r := range g.routes {
		if r.IsDefault() {
			g.fallback, found = r, true
		}
		f := fn(r.Operation)
		if f == nil {
			panic("localgw: no handler for " + string(r.Operation))
		}
		g.handlers[r.Operation] = &sync.Pool{New: func() any { return lambda.NewHandler(f) }}
	}
	if !found {
		panic("localgw: the manifest has no $default route")
	}
	return g
}

// ServeHTTP implements http.Handler. It answers the handler's response
// event; a handler that fails, panics or returns something that is not a
// response event gets 500 internal_error, as API Gateway answers a failed
// invocation. A URL with bytes that are not printable ASCII gets 400
// bad_request, a body over 10 MB 413, a body that stopped arriving
// (the read deadline Serve sets) 408, an unreadable body 400.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !asciiTarget(r.RequestURI) {
		// The event is JSON: bytes that are not ASCII could not reach the
		// handler as sent. RFC 3986 allows none in a URL anyway.
		writeError(w, uuid.NewString(), errcode.New(errcode.BadRequest,
			"The request's URL has characters that are not printable ASCII; percent-encode them."))
		return
	}
	raw := rawPath(r)
	rt, template, name, value, _, ok := manifest.Resolve(g.routes, r.Method, raw)
	if !ok {
		if h, ok := g.Extra[raw]; ok {
			w.Header().Set("X-Request-Id", uuid.NewString())
			h.ServeHTTP(w, r)
			return
		}
		// As API Gateway does: the $default route gets every request no
		// route matches, with no path parameters.
		rt, template, name, value = g.fallback, manifest.DefaultPath, "", ""
	}
	body, e := readBody(w, r)
	if e != nil {
		// The connection's framing is unknown or the client is too slow:
		// answer and hang up rather than read on.
		id := uuid.NewString()
		g.log.Info("request", "request_id", id, "method", r.Method, "operation", rt.Operation,
			"status", errcode.Status(e.Code), "error_code", e.Code)
		w.Header().Set("Connection", "close")
		writeError(w, id, e)
		return
	}
	ev := Event(r, rt, template, name, value, body)
	resp, err := g.invoke(r.Context(), rt.Operation, ev)
	if err != nil {
		// A crashed invocation: API Gateway answers 500.
		g.log.Error("invoke", "operation", rt.Operation, "request_id", ev.RequestContext.RequestID, "error", err)
		writeError(w, ev.RequestContext.RequestID, errcode.New(errcode.Internal, "Internal Server Error"))
		return
	}
	Write(w, resp)
}

// asciiTarget reports whether the request-target uri is printable ASCII
// only, as RFC 3986 requires (net/http lets other bytes through).
func asciiTarget(uri string) bool {
	for i := 0; i < len(uri); i++ {
		if uri[i] <= ' ' || uri[i] > '~' {
			return false
		}
	}
	return true
}

// readBody reads r's body, up to maxBody. It returns the error to answer
// when the body is too large (413), did not arrive before the connection's
// read deadline (408) or is malformed, e.g. broken chunked framing (400).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *errcode.Error) {
	if r.ContentLength > maxBody {
		return nil, errcode.New(errcode.PayloadTooLarge, "The request body is too large.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, &tooLarge):
		return nil, errcode.New(errcode.PayloadTooLarge, "The request body is too large.")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, errcode.New(errcode.RequestTimeout, "The request body did not arrive in time.")
	default:
		return nil, errcode.New(errcode.BadRequest, "The request body could not be read: its framing is malformed or the connection broke.")
	}
}

// invoke runs op's handler on ev as the Lambda runtime would: through JSON
// and aws-lambda-go's handler wrapper. A handler error or panic and a
// response that is not a payload-2.0 response event are errors.
func (g *Gateway) invoke(ctx context.Context, op manifest.Operation, ev events.APIGatewayV2HTTPRequest) (resp events.APIGatewayV2HTTPResponse, err error) {
	defer func() {
		// The Lambda runtime recovers a handler's panic and reports a
		// failed invocation; so does this stand-in.
		if p := recover(); p != nil {
			err = fmt.Errorf("invoke %s: handler panicked: %v", op, p)
		}
	}()
	payload, err := json.Marshal(ev)
	if err != nil {
		return resp, fmt.Errorf("encode %s event: %w", op, err)
	}
	pool := g.handlers[op]
	h := pool.Get().(lambda.Handler)
	// The instance goes back only after its answer is decoded: the bytes
	// Invoke returns are its buffer's.
	defer pool.Put(h)
	out, err := h.Invoke(ctx, payload)
	if err != nil {
		return resp, fmt.Errorf("invoke %s: %w", op, err)
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return resp, fmt.Errorf("decode %s response: %w", op, err)
	}
	return resp, nil
}

// errorBody is the API's error body for e: {"error":{"code","message","details"}}.
func errorBody(e *errcode.Error) []byte {
	details := e.Details
	if details == nil {
		details = map[string]any{}
	}
	b, err := json.Marshal(map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message, "details": details}})
	if err != nil {
		// Only the gateway's own errors, with string details, get here.
		panic("localgw: encode error body: " + err.Error())
	}
	return b
}

func writeError(w http.ResponseWriter, requestID string, e *errcode.Error) {
	b := errorBody(e)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Header().Set("X-Request-Id", requestID)
	w.WriteHeader(errcode.Status(e.Code))
	_, _ = w.Write(b)
}

// rawPath returns r's path as the client sent it, still percent-encoded,
// which is what API Gateway matches routes on and puts in the event. It is
// the path part of r.RequestURI when that is origin-form (net/http keeps
// it unmodified), else r.URL.EscapedPath() (which may re-encode
// characters such as "{" that the client sent bare).
func rawPath(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		p, _, _ := strings.Cut(r.RequestURI, "?")
		return p
	}
	if r.RequestURI == "*" {
		return "*"
	}
	return r.URL.EscapedPath()
}

// Event builds the payload-2.0 event API Gateway sends for r matched to rt
// at template (with path parameter name=value, if any). For the $default
// route (template manifest.DefaultPath) the route key is "$default".
// rawPath and requestContext.http.path are r's path as the client sent
// it, still percent-encoded.
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
	// The request's method: a page's HEAD has a route of its own.
	routeKey := r.Method + " " + template
	if rt.IsDefault() || template == manifest.DefaultPath {
		routeKey = manifest.DefaultPath
	}
	raw := rawPath(r)
	ev := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: routeKey, RawPath: raw, RawQueryString: r.URL.RawQuery,
		Headers: headers, QueryStringParameters: query, PathParameters: params,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey: routeKey, AccountID: "000000000000", Stage: "$default",
			RequestID: uuid.NewString(), APIID: "local", DomainName: r.Host,
			Time: now.Format("02/Jan/2006:15:04:05 -0700"), TimeEpoch: now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: r.Method, Path: raw, Protocol: r.Proto, SourceIP: ip, UserAgent: r.UserAgent(),
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

// Write writes a payload-2.0 response event as the HTTP response. A body
// marked base64 that does not decode is written as it is.
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
