package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Store is what the pipeline needs of storage.
type Store interface {
	// Admit authenticates the key with digest and counts one request
	// against its minute window (see dynamo.Store.Admit).
	Admit(ctx context.Context, digest string, now time.Time, limit int) (auth.Principal, auth.Usage, error)
	// GetPartner reads a partner's settings; unknown → not_found.
	GetPartner(ctx context.Context, id string) (partner.Partner, error)
	// Idempotency is the store of Idempotency-Keys.
	Idempotency() idempotency.Store
}

// Deps is what a Pipeline needs. Build it once per process.
type Deps struct {
	Store Store
	// Log receives internal failures the pipeline cannot report (a key it
	// could not release). Nil discards.
	Log *slog.Logger
	// Now defaults to time.Now; NewID to random UUIDs; IdempotencyWait to
	// idempotency.DefaultWait; SettingsTTL to the package's SettingsTTL.
	Now             func() time.Time
	NewID           func() string
	IdempotencyWait time.Duration
	SettingsTTL     time.Duration
}

// Pipeline runs endpoints under the rules of their manifest routes.
type Pipeline struct {
	d        Deps
	keeper   *idempotency.Keeper
	settings *settingsCache
}

// New returns a Pipeline over d, filling d's defaults.
func New(d Deps) *Pipeline {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.NewID == nil {
		d.NewID = uuid.NewString
	}
	if d.IdempotencyWait == 0 {
		d.IdempotencyWait = idempotency.DefaultWait
	}
	if d.SettingsTTL == 0 {
		d.SettingsTTL = SettingsTTL
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Pipeline{
		d: d,
		keeper: &idempotency.Keeper{
			Store: d.Store.Idempotency(), Now: d.Now, NewID: d.NewID,
			Wait: d.IdempotencyWait, Poll: 50 * time.Millisecond,
		},
		settings: newSettingsCache(d.Store.GetPartner, d.SettingsTTL),
	}
}

// Run serves req with ep: it admits the request by ep's route, runs the
// operation and renders its answer or error. It never returns an error:
// failures are answers (Result.Err keeps the cause for the edge's log).
func (p *Pipeline) Run(ctx context.Context, ep Endpoint, req *Request) Result {
	c := &Call{Request: req, Now: p.d.Now(), p: p}
	res := Result{ContentType: manifest.JSON}
	status, body, replayed, err := p.run(ctx, ep, c, &res)
	var doc *Document
	if d, ok := errors.AsType[*documentError](err); ok {
		doc, err = &d.doc, nil
	}
	switch {
	case err != nil && c.Route.Response == manifest.HTML && ep.RenderError != nil:
		d := ep.RenderError(err)
		doc, res.Err = &d, err
	case err != nil:
		status, body = Render(err)
		res.Err = err
	}
	if doc != nil {
		status, body, res.ContentType = doc.Status, doc.Body, manifest.HTML
		if res.Header == nil {
			res.Header = map[string]string{}
		}
		for k, v := range doc.Header {
			res.Header[k] = v
		}
	}
	res.Status, res.Body, res.Replayed = status, body, replayed
	return res
}

// documentError carries a Document view through run's byte-oriented
// results (a page is never stored under an Idempotency-Key: HTML routes
// are not idempotent).
type documentError struct{ doc Document }

func (e *documentError) Error() string { return "document" }

func (p *Pipeline) run(ctx context.Context, ep Endpoint, c *Call, res *Result) (int, []byte, bool, error) {
	rt := c.Route
	if err := p.admit(ctx, ep, c, res); err != nil {
		return 0, nil, false, err
	}
	if rt.Beta != "" {
		ptn, err := c.Partner(ctx)
		if err != nil {
			return 0, nil, false, err
		}
		if !ptn.BetaEnabled(rt.Beta) {
			if ep.BetaOff == nil {
				return 0, nil, false, BetaNotEnabled(rt.Beta)
			}
			if err := ep.BetaOff(ctx, c, ptn); err != nil {
				return 0, nil, false, err
			}
		}
	}
	if c.Malformed != nil {
		return 0, nil, false, c.Malformed
	}
	if rt.BodyLimit > 0 && len(c.Body) > rt.BodyLimit {
		return 0, nil, false, TooLarge(rt.BodyLimit)
	}
	if err := pathID(c); err != nil {
		return 0, nil, false, err
	}
	work, err := ep.Prepare(ctx, c)
	if err != nil {
		return 0, nil, false, err
	}
	if !rt.Idempotent || c.IdempotencyKey == nil {
		view, err := work.Run(ctx, p.d.NewID())
		if err != nil {
			return 0, nil, false, err
		}
		if d, ok := view.(Document); ok {
			return 0, nil, false, &documentError{doc: d}
		}
		body, err := marshal(view)
		return 200, body, false, err
	}
	return p.idempotent(ctx, c, work)
}

// admit authenticates the caller by the route's auth kind and counts the
// request by its rate-limit policy.
func (p *Pipeline) admit(ctx context.Context, ep Endpoint, c *Call, res *Result) error {
	switch c.Route.Auth {
	case manifest.AuthNone:
		if c.Route.RateLimit == manifest.PerClient {
			return p.admitClient(ctx, ep, c, res)
		}
		return nil
	case manifest.AuthDashboardSession:
		return p.admitDashboard(ctx, ep, c)
	case manifest.AuthPartnerKey, manifest.AuthAgentKey:
	case manifest.AuthCaptureToken, manifest.AuthViewToken, manifest.AuthQuoteToken:
		return p.admitToken(ctx, ep, c, res)
	case manifest.AuthProcessorSignature:
		if ep.Verify == nil {
			return fmt.Errorf("route %s: auth kind %q but the endpoint has no Verify", c.Route.Operation, c.Route.Auth)
		}
		// Checking a signature loads its secret (a paid read): an
		// anonymous caller's oversized body is refused before that.
		if c.Route.BodyLimit > 0 && len(c.Body) > c.Route.BodyLimit {
			return TooLarge(c.Route.BodyLimit)
		}
		g, err := ep.Verify(ctx, c)
		if err != nil {
			return err
		}
		c.Principal, c.Subject = auth.Principal{Tenant: g.Tenant}, g.Subject
		return nil
	default:
		// Signature routes bring their verifier with their feature; a
		// route of a kind nothing verifies is refused.
		return fmt.Errorf("route %s: auth kind %q has no verifier", c.Route.Operation, c.Route.Auth)
	}
	if c.Admitted != nil {
		c.Principal, res.Principal = *c.Admitted, c.Admitted
		return checkScope(c)
	}
	if c.KeyErr != nil {
		return c.KeyErr
	}
	mode, digest, ok := auth.ParseKey(c.Key)
	if !ok {
		return errcode.New(errcode.InvalidAPIKey, "The API key is malformed; keys start with mk_test_ or mk_live_.")
	}
	if c.Route.RateLimit != manifest.PerKey {
		return fmt.Errorf("route %s: partner-key routes are counted per key, not %q", c.Route.Operation, c.Route.RateLimit)
	}
	pr, u, err := p.d.Store.Admit(ctx, digest, c.Now, auth.RateLimit)
	if err != nil {
		return err
	}
	if pr.Mode != mode {
		return errcode.New(errcode.InvalidAPIKey, auth.InvalidKeyMessage)
	}
	c.Principal, res.Principal, res.Usage = pr, &pr, &u
	if !u.Admitted {
		return errcode.New(errcode.RateLimited,
			"Rate limit of %d requests per minute exceeded for this API key; retry after %d seconds.", u.Limit, u.RetryAfter(c.Now)).
			WithDetail("limit", u.Limit).WithDetail("retry_after", u.RetryAfter(c.Now))
	}
	return checkScope(c)
}

// checkScope refuses a key without the route's scope (a route without one,
// the agent tool server's, admits any key).
func checkScope(c *Call) error {
	if c.Route.Scope != "" && !c.Principal.Has(c.Route.Scope) {
		return errcode.New(errcode.InsufficientScope, "This API key lacks the %s scope this endpoint requires.", c.Route.Scope).
			WithDetail("required_scope", string(c.Route.Scope))
	}
	return nil
}

// Admit authenticates req's key by req.Route's auth kind and counts it
// against the key's rate limit, as Run does before an operation, for an
// edge that serves the request itself (the agent tool server). The error
// is the one Run would render; the Result carries the principal and usage
// for the edge's headers and log.
func (p *Pipeline) Admit(ctx context.Context, req *Request) (auth.Principal, Result, error) {
	c := &Call{Request: req, Now: p.d.Now(), p: p}
	res := Result{ContentType: manifest.JSON}
	if !req.Route.Auth.PartnerKey() {
		return auth.Principal{}, res, fmt.Errorf("route %s: Admit serves partner-key routes, not %q", req.Route.Operation, req.Route.Auth)
	}
	err := p.admit(ctx, Endpoint{Operation: req.Route.Operation}, c, &res)
	return c.Principal, res, err
}

// Partner returns the settings of partner id (beta features, rate card),
// from the same instance cache as Call.Partner.
func (p *Pipeline) Partner(ctx context.Context, id string) (partner.Partner, error) {
	return p.settings.get(ctx, id, p.d.Now())
}

// admitToken authenticates a token route by its endpoint's Verify, which
// also counts the request against the token's rate limit.
func (p *Pipeline) admitToken(ctx context.Context, ep Endpoint, c *Call, res *Result) error {
	if ep.Verify == nil {
		return fmt.Errorf("route %s: auth kind %q but the endpoint has no Verify", c.Route.Operation, c.Route.Auth)
	}
	if c.Route.RateLimit != manifest.PerToken {
		return fmt.Errorf("route %s: token routes are counted per token, not %q", c.Route.Operation, c.Route.RateLimit)
	}
	g, err := ep.Verify(ctx, c)
	if err != nil {
		return err
	}
	c.Principal = auth.Principal{Tenant: g.Tenant}
	c.Subject = g.Subject
	u := g.Usage
	res.Usage = &u
	if !u.Admitted {
		period := u.Period
		if period == "" {
			period = "minute"
		}
		return errcode.New(errcode.RateLimited,
			"Rate limit of %d requests per %s exceeded for this link; retry after %d seconds.", u.Limit, period, u.RetryAfter(c.Now)).
			WithDetail("limit", u.Limit).WithDetail("retry_after", u.RetryAfter(c.Now))
	}
	return nil
}

// BetaNotEnabled is the refusal of a route whose beta feature f the
// caller's partner lacks.
func BetaNotEnabled(f partner.Feature) error {
	return errcode.New(errcode.BetaNotEnabled,
		"This endpoint is in private beta (%s) and not enabled for your account; ask your operator to enable it.", f).
		WithDetail("feature", string(f))
}

// TooLarge is the error for a body over limit bytes.
func TooLarge(limit int) error {
	return errcode.New(errcode.PayloadTooLarge, "The request body exceeds %d bytes.", limit).
		WithDetail("max_bytes", limit)
}

// marshal renders a view. Views are plain structs, so a failure is a
// programming error the tests catch; it still answers 500, never a panic.
func marshal(view any) ([]byte, error) {
	b, err := json.Marshal(view)
	if err != nil {
		return nil, fmt.Errorf("render response: %w", err)
	}
	return b, nil
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    errcode.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// Render returns the status and the spec's error body for err. An error
// without a code is internal: its text goes to logs, never to the client.
func Render(err error) (int, []byte) {
	e := errcode.As(err)
	if e == nil {
		e = errcode.New(errcode.Internal, "An internal error occurred; nothing was written. Retry the request.")
	}
	details := e.Details
	if details == nil {
		details = map[string]any{}
	}
	b, merr := json.Marshal(errorBody{Error: errorDetail{Code: e.Code, Message: e.Message, Details: details}})
	if merr != nil {
		b = []byte(`{"error":{"code":"internal_error","message":"An internal error occurred.","details":{}}}`)
		return 500, b
	}
	return errcode.Status(e.Code), b
}
