// Package apigw is the API Gateway edge of the partner API: it turns an API
// Gateway HTTP API (payload format 2.0) event into a call of the request
// pipeline every partner endpoint shares — authentication, rate limit,
// scope, body limit, idempotency — and the endpoint's operation, and turns
// the result, or the error, into the response. Error codes become statuses
// here and only here, through errcode.Table.
package apigw

import (
	"context"
	"encoding/base64"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/cursor"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/idempotency"
	"github.com/moveleads/partnerapi/shared/lead"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// Deps is what a Handler needs. Build it once per process (at Lambda init).
type Deps struct {
	Store *dynamo.Store
	// Cursor returns the signer of list cursors (see FixedSigner).
	Cursor func(context.Context) (*cursor.Signer, error)
	Log    *slog.Logger
	// Now defaults to time.Now; NewID to random UUIDs; IdempotencyWait to
	// idempotency.DefaultWait.
	Now             func() time.Time
	NewID           func() string
	IdempotencyWait time.Duration
}

// Handler serves every route in route.Table.
type Handler struct {
	d      Deps
	keeper *idempotency.Keeper
}

// LambdaFunc is the signature aws-lambda-go starts for an HTTP API route.
type LambdaFunc func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// New returns a Handler over d, filling d's defaults.
func New(d Deps) *Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.NewID == nil {
		d.NewID = uuid.NewString
	}
	if d.IdempotencyWait == 0 {
		d.IdempotencyWait = idempotency.DefaultWait
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Handler{d: d, keeper: &idempotency.Keeper{
		Store: d.Store.Idempotency(), Now: d.Now, NewID: d.NewID,
		Wait: d.IdempotencyWait, Poll: 50 * time.Millisecond,
	}}
}

// operation serves one endpoint once the pipeline has admitted the request.
type operation func(ctx context.Context, h *Handler, req *request) (*response, error)

// Operation is one endpoint: its route and its logic. Each function's main
// serves exactly one (h.Serve(apigw.CreateLead())), so its binary links only
// that endpoint's code; local tools serve them all (Operations).
type Operation struct {
	route manifest.Route
	run   operation
}

// CreateLead is the createLead endpoint.
func CreateLead() Operation { return Operation{manifest.ByOperation(manifest.CreateLead), createLead} }

// ListLeads is the listLeads endpoint.
func ListLeads() Operation { return Operation{manifest.ByOperation(manifest.ListLeads), listLeads} }

// GetLead is the getLead endpoint.
func GetLead() Operation { return Operation{manifest.ByOperation(manifest.GetLead), getLead} }

// Operations returns every endpoint, for the local gateway and tests. A
// test fails when an entry of route.Table has none.
func Operations() []Operation { return []Operation{CreateLead(), ListLeads(), GetLead()} }

// Serve returns the Lambda handler of op.
func (h *Handler) Serve(op Operation) LambdaFunc {
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return h.serve(ctx, op.route, op.run, &ev), nil
	}
}

// Route returns the Lambda handler of the endpoint of op, for tools that
// serve every route (it links every endpoint). It panics when op has no
// endpoint, a wiring error every handler test catches.
func (h *Handler) Route(op manifest.Operation) LambdaFunc {
	for _, o := range Operations() {
		if o.manifest.Operation == op {
			return h.Serve(o)
		}
	}
	panic("apigw: no endpoint for " + string(op))
}

// request is one admitted request as the operations see it.
type request struct {
	route     manifest.Route
	ev        *events.APIGatewayV2HTTPRequest
	id        string
	now       time.Time
	principal auth.Principal
	body      []byte
}

func (r *request) tenant() auth.Tenant { return r.principal.Tenant }

// header returns the value of header name (case-insensitive) and whether
// it was sent.
func (r *request) header(name string) (string, bool) { return header(r.ev, name) }

func header(ev *events.APIGatewayV2HTTPRequest, name string) (string, bool) {
	if v, ok := ev.Headers[name]; ok {
		return v, true
	}
	for k, v := range ev.Headers {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// serve runs the pipeline and writes one log line.
func (h *Handler) serve(ctx context.Context, rt manifest.Route, run operation, ev *events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
	start := time.Now()
	req := &request{route: rt, ev: ev, id: ev.RequestContext.RequestID, now: h.d.Now()}
	if req.id == "" {
		req.id = uuid.NewString()
	}
	var usage *auth.Usage
	resp, err := h.pipeline(ctx, req, run, &usage)
	if err != nil {
		resp = errorResponse(err)
	}
	out := resp.lambda(req, usage)

	attrs := []slog.Attr{
		slog.String("request_id", req.id),
		slog.String("operation", string(rt.Operation)),
		slog.String("method", ev.RequestContext.HTTP.Method),
		slog.String("path", ev.RawPath),
		slog.Int("status", resp.status),
		slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
	}
	if req.principal.KeyID != "" {
		attrs = append(attrs, slog.String("partner_id", req.principal.PartnerID),
			slog.String("mode", string(req.principal.Mode)), slog.String("key_id", req.principal.KeyID))
	}
	if resp.replayed {
		attrs = append(attrs, slog.Bool("idempotent_replayed", true))
	}
	level := slog.LevelInfo
	if err != nil {
		if e := errcode.As(err); e != nil {
			attrs = append(attrs, slog.String("error_code", string(e.Code)))
		}
		if resp.status >= 500 {
			level = slog.LevelError
			attrs = append(attrs, slog.String("error", err.Error()))
		}
	}
	h.d.Log.LogAttrs(ctx, level, "request", attrs...)
	return out
}

// pipeline authenticates and counts the request, checks scope and body
// size, then runs the operation.
func (h *Handler) pipeline(ctx context.Context, req *request, run operation, usage **auth.Usage) (*response, error) {
	authz, _ := req.header("authorization")
	key, ok := auth.BearerKey(authz)
	if !ok {
		return nil, errcode.New(errcode.InvalidAPIKey, "Send your API key as: Authorization: Bearer <API key>.")
	}
	mode, digest, ok := auth.ParseKey(key)
	if !ok {
		return nil, errcode.New(errcode.InvalidAPIKey, "The API key is malformed; keys start with mk_test_ or mk_live_.")
	}
	p, u, err := h.d.Store.Admit(ctx, digest, req.now, auth.RateLimit)
	if err != nil {
		return nil, err
	}
	if p.Mode != mode {
		return nil, errcode.New(errcode.InvalidAPIKey, "The API key is not recognised.")
	}
	req.principal, *usage = p, &u
	if !u.Admitted {
		return nil, errcode.New(errcode.RateLimited,
			"Rate limit of %d requests per minute exceeded for this API key; retry after %d seconds.", u.Limit, u.RetryAfter(req.now)).
			WithDetail("limit", u.Limit).WithDetail("retry_after", u.RetryAfter(req.now))
	}
	if !p.Has(req.manifest.Scope) {
		return nil, errcode.New(errcode.InsufficientScope, "This API key lacks the %s scope this endpoint requires.", req.manifest.Scope).
			WithDetail("required_scope", string(req.manifest.Scope))
	}
	body, err := decodeBody(req.ev)
	if err != nil {
		return nil, err
	}
	req.body = body
	return run(ctx, h, req)
}

// decodeBody returns the request body, refusing one over the limit.
func decodeBody(ev *events.APIGatewayV2HTTPRequest) ([]byte, error) {
	if len(ev.Body) > 2*lead.MaxBodyBytes {
		return nil, tooLarge()
	}
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return nil, errcode.New(errcode.InvalidJSON, "The request body could not be decoded.")
		}
		body = b
	}
	if len(body) > lead.MaxBodyBytes {
		return nil, tooLarge()
	}
	return body, nil
}

func tooLarge() error {
	return errcode.New(errcode.PayloadTooLarge, "The request body exceeds %d bytes.", lead.MaxBodyBytes).
		WithDetail("max_bytes", lead.MaxBodyBytes)
}

// rateHeaders are the X-RateLimit-* headers for u.
func rateHeaders(u *auth.Usage, now time.Time, into map[string]string) {
	into["X-RateLimit-Limit"] = strconv.Itoa(u.Limit)
	into["X-RateLimit-Remaining"] = strconv.Itoa(u.Remaining)
	into["X-RateLimit-Reset"] = strconv.FormatInt(u.Reset, 10)
	if !u.Admitted {
		into["Retry-After"] = strconv.FormatInt(u.RetryAfter(now), 10)
	}
}
