// Package apigw is the API Gateway edge of the partner API. It turns an
// API Gateway HTTP API (payload format 2.0) event into an pipeline.Request —
// the route from the manifest, the bearer key, the path parameter, the
// strictly parsed query, the decoded body, the Idempotency-Key — runs it
// through the request pipeline (shared/app/pipeline), and turns the result into the
// response with the headers every answer carries. It also answers the
// $default route (unknown paths: 404; a known path with another method:
// 405 with Allow). It only decodes, authenticates through the pipeline and
// encodes; the operations live in the feature packages.
package apigw

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// LambdaFunc is the signature aws-lambda-go starts for an HTTP API route.
type LambdaFunc func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Handler serves endpoints through one pipeline.
type Handler struct {
	p   *pipeline.Pipeline
	log *slog.Logger
	now func() time.Time
}

// New returns a Handler running endpoints through p and logging one JSON
// line per request to log (nil discards). now is the clock of the
// rate-limit headers (nil: time.Now); pass the pipeline's.
func New(p *pipeline.Pipeline, log *slog.Logger, now func() time.Time) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Handler{p: p, log: log, now: now}
}

// Serve returns the Lambda handler of ep.
func (h *Handler) Serve(ep pipeline.Endpoint) LambdaFunc {
	rt := ep.Route()
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		start := time.Now()
		req := decode(rt, &ev)
		var res pipeline.Result
		if !servesRouteKey(rt, ev.RouteKey) {
			// API Gateway sent another route's request to this function: a
			// wiring error (a main serving the wrong endpoint, or a stack
			// out of step with the manifest), never the client's fault.
			res.Err = fmt.Errorf("event for route %q reached the function of %s", ev.RouteKey, rt.Operation)
			res.Status, res.Body = pipeline.Render(res.Err)
		} else {
			res = h.p.Run(ctx, ep, req)
		}
		out := encode(req.RequestID, res, h.now())
		if ev.RequestContext.HTTP.Method == "HEAD" {
			// A page's HEAD: GET's status and headers, no body.
			out.Body, out.IsBase64Encoded = "", false
		}
		logLine(ctx, h.log, rt, &ev, req.RequestID, res, start)
		return out, nil
	}
}

// ServeAll returns the Lambda handler of a function serving several routes
// (one endpoint each): API Gateway's route key picks the endpoint. An event
// without a route key (a hand-made test event) is matched by its method and
// raw path as API Gateway would.
func (h *Handler) ServeAll(eps []pipeline.Endpoint) LambdaFunc {
	if len(eps) == 1 {
		return h.Serve(eps[0])
	}
	served := make([]LambdaFunc, len(eps))
	routes := make([]manifest.Route, len(eps))
	for i, ep := range eps {
		served[i], routes[i] = h.Serve(ep), ep.Route()
	}
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		for i, rt := range routes {
			if ev.RouteKey != "" && servesRouteKey(rt, ev.RouteKey) {
				return served[i](ctx, ev)
			}
		}
		if ev.RouteKey == "" {
			if rt, _, _, _, _, ok := manifest.Resolve(routes, ev.RequestContext.HTTP.Method, ev.RawPath); ok {
				for i := range routes {
					if routes[i].Operation == rt.Operation {
						return served[i](ctx, ev)
					}
				}
			}
		}
		// Not this function's route: the first endpoint's handler reports
		// the wiring error (500) and logs it.
		if ev.RouteKey == "" {
			ev.RouteKey = ev.RequestContext.HTTP.Method + " " + ev.RawPath
		}
		return served[0](ctx, ev)
	}
}

// servesRouteKey reports whether an event with routeKey belongs to rt. An
// event without one (a hand-made test event) is accepted.
func servesRouteKey(rt manifest.Route, routeKey string) bool {
	if routeKey == "" {
		return true
	}
	for _, p := range rt.Paths() {
		for _, m := range rt.Methods() {
			if routeKey == m+" "+p {
				return true
			}
		}
	}
	return false
}

// NotFound returns the handler of the $default route: API Gateway sends it
// every request no route matches. A path some route serves with another
// method answers 405 with Allow; anything else 404 route_not_found. Both
// with the spec's error body.
func NotFound(log *slog.Logger) LambdaFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rt := manifest.ByOperation(manifest.RouteNotFound)
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		start := time.Now()
		id := requestID(&ev)
		method, path := ev.RequestContext.HTTP.Method, ev.RawPath
		var res pipeline.Result
		_, _, _, _, allowed, _ := manifest.Resolve(manifest.Routes(), method, path)
		if len(allowed) > 0 {
			res.Err = errcode.New(errcode.MethodNotAllowed, "%s is not served with %s; use %s.", redactPath(path), method, strings.Join(allowed, ", ")).
				WithDetail("allowed_methods", allowed)
			res.Header = map[string]string{"Allow": strings.Join(allowed, ", ")}
		} else {
			res.Err = errcode.New(errcode.RouteNotFound, "No route for %s %s.", method, redactPath(path))
		}
		res.Status, res.Body = pipeline.Render(res.Err)
		out := encode(id, res, time.Now())
		logLine(ctx, log, rt, &ev, id, res, start)
		return out, nil
	}
}

func requestID(ev *events.APIGatewayV2HTTPRequest) string {
	if id := ev.RequestContext.RequestID; id != "" {
		return id
	}
	return uuid.NewString()
}

// encode renders res with the headers every response carries
// (pipeline.Result.Headers).
func encode(requestID string, res pipeline.Result, now time.Time) events.APIGatewayV2HTTPResponse {
	return events.APIGatewayV2HTTPResponse{StatusCode: res.Status, Headers: res.Headers(requestID, now), Body: string(res.Body)}
}

// logLine writes the request's one log line. It never logs a header (keys,
// Idempotency-Keys) nor a token: a route whose path carries a token logs
// its template, and unknown paths are logged with long segments redacted.
func logLine(ctx context.Context, log *slog.Logger, rt manifest.Route, ev *events.APIGatewayV2HTTPRequest, id string, res pipeline.Result, start time.Time) {
	attrs := []slog.Attr{
		slog.String("request_id", id),
		slog.String("operation", string(rt.Operation)),
		slog.String("method", ev.RequestContext.HTTP.Method),
		slog.String("path", LogPath(rt, ev)),
		slog.Int("status", res.Status),
		slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
	}
	if p := res.Principal; p != nil {
		attrs = append(attrs, slog.String("partner_id", p.PartnerID),
			slog.String("mode", string(p.Mode)), slog.String("key_id", p.KeyID))
	}
	if res.Replayed {
		attrs = append(attrs, slog.Bool("idempotent_replayed", true))
	}
	level := slog.LevelInfo
	if res.Err != nil {
		if e := errcode.As(res.Err); e != nil {
			attrs = append(attrs, slog.String("error_code", string(e.Code)))
		}
		if res.Status >= 500 {
			level = slog.LevelError
			attrs = append(attrs, slog.String("error", res.Err.Error()))
		}
	}
	log.LogAttrs(ctx, level, "request", attrs...)
}

// LogPath is the path a log line may show for ev on rt: the raw path,
// except that a route whose path parameter is a token shows its template
// (e.g. /v1-capture/{token}) and the $default route redacts any segment
// long enough to be a token.
func LogPath(rt manifest.Route, ev *events.APIGatewayV2HTTPRequest) string {
	switch {
	case rt.SecretInPath():
		if _, t, ok := strings.Cut(ev.RouteKey, " "); ok {
			return t
		}
		return rt.PilotPath
	case rt.IsDefault():
		return redactPath(ev.RawPath)
	}
	return ev.RawPath
}

// tokenish is the shortest path segment redacted from unknown paths: URL
// tokens carry at least 128 bits (22 base64url characters), and nothing
// shorter is secret. Lead ids (36 characters) are redacted too; that is
// the price of never logging a mistyped token link.
const tokenish = 20

func redactPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if len(s) >= tokenish {
			segs[i] = "{redacted}"
		}
	}
	return strings.Join(segs, "/")
}
