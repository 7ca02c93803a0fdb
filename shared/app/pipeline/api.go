// Package api is the request pipeline every partner operation shares,
// whatever carries the request: API Gateway (shared/edge/apigw) today, the agent
// tool server later. It authenticates the caller by the route's auth kind,
// counts the request against the route's rate-limit policy, checks the
// scope and the beta gate, enforces the body limit, and runs the operation
// under the Idempotency-Key when the manifest marks the route idempotent.
// Every rule comes from the route's manifest entry; no operation re-checks
// one.
//
// Operations are plain Go over domain types (one feature package each, e.g.
// shared/app/leads); they return domain errors carrying an errcode, and the
// edges map codes to statuses. The package imports no AWS or HTTP package.
package pipeline

import (
	"context"
	"strconv"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Request is one call of an operation as an edge decoded it.
type Request struct {
	Route     manifest.Route
	RequestID string
	// Key is the partner API key as sent ("" when none was sent).
	Key string
	// KeyErr, when set, is the edge's own error for a credential it could
	// not read (e.g. an Authorization header that is not "Bearer <key>");
	// the pipeline reports it as the authentication failure.
	KeyErr error
	// PathParam is the value of the route's path parameter ("" if none).
	PathParam string
	// Query holds the query parameters, each given once; the edge parses
	// strictly and reports what it cannot parse in Malformed.
	Query map[string]string
	// Body is the request body, decoded by the edge.
	Body []byte
	// IdempotencyKey is the Idempotency-Key sent, nil when none was.
	IdempotencyKey *string
	// Malformed, when set, is what the edge found wrong with the request's
	// framing (content type, encoding, query syntax). It is reported after
	// authentication, so an anonymous caller learns nothing else.
	Malformed error
	// UserAgent and SourceIP describe the client as the edge saw it (API
	// Gateway's requestContext.http), for the logs an operation keeps
	// (a video link's opens); "" when unknown.
	UserAgent string
	SourceIP  string
	// Signature is the payment processor's signature header
	// (Stripe-Signature) of a manifest.AuthProcessorSignature route, which
	// its endpoint's Verify checks over Body; "" when none was sent.
	Signature string
	// Admitted, when set, is the key an in-process edge already admitted
	// (Pipeline.Admit) for the request that carries this call: the agent
	// tool server admits each of its HTTP requests once, and the tool
	// calls in it run as that key without being counted again. The route's
	// scope and beta gate still apply. Edges that decode outside requests
	// never set it.
	Admitted *auth.Principal
	// Cookies are the Cookie headers sent, as API Gateway lists them;
	// Origin the Origin header and CSRF the X-CSRF-Token header ("" when
	// not sent): a dashboard-session route's credentials.
	Cookies []string
	Origin  string
	CSRF    string
}

// Call is an admitted request as an operation sees it.
type Call struct {
	*Request
	// Principal is the verified key (zero for routes without a partner
	// key). A token route's Principal carries only the tenant that owns the
	// token (PartnerID and Mode).
	Principal auth.Principal
	// Subject is what a token route's verifier resolved the token to (the
	// survey of a capture token); nil on other routes.
	Subject any
	// ID is the path's id in canonical form on a route whose path
	// parameter is a manifest.ParamUUID or ParamEventID (checked before
	// Prepare); "" on other routes.
	ID string
	// Viewer is the signed-in person of a manifest.AuthDashboardSession
	// route (nil on other routes).
	Viewer *Viewer
	// Now is the request's time, fixed once.
	Now time.Time
	p   *Pipeline
}

// Tenant returns the caller's partner and mode, which own every resource
// the call touches.
func (c *Call) Tenant() auth.Tenant { return c.Principal.Tenant }

// Partner returns the caller's partner settings (rate card, beta features),
// from a short-lived instance cache (see SettingsTTL).
func (c *Call) Partner(ctx context.Context) (partner.Partner, error) {
	return c.p.settings.get(ctx, c.Principal.PartnerID, c.Now)
}

// Endpoint binds an operation to its manifest route.
type Endpoint struct {
	Operation manifest.Operation
	// Prepare validates the call (body, query, path) and returns the work to
	// do. It must not write: nothing is stored for an invalid request.
	Prepare func(ctx context.Context, c *Call) (Work, error)
	// Verify authenticates a token route (manifest.AuthCaptureToken,
	// AuthViewToken): it resolves the token in the path (c.PathParam) to
	// its tenant and subject and counts the request against the token's
	// rate limit. c has no Principal yet. The pipeline refuses a token
	// route whose endpoint has none. On a manifest.AuthProcessorSignature
	// route it checks the processor's signature (c.Signature) over the
	// body; such routes are not rate-limited, so its Usage is ignored.
	Verify func(ctx context.Context, c *Call) (Grant, error)
	// Dashboard admits a manifest.AuthDashboardSession route (its
	// session, CSRF and Origin) and counts a PerClient route's attempts;
	// the pipeline refuses such a route without it.
	Dashboard *DashboardGate
	// RenderError renders an error of an HTML route as a page (the JSON
	// error body is for programs, not people). Nil: the JSON body.
	RenderError func(err error) Document
	// BetaOff decides a call of a route whose beta feature (manifest
	// Route.Beta) the partner lacks: nil lets it run (a read of what the
	// beta already made), an error refuses it (a customer's page words its
	// own). Nil: 403 beta_not_enabled (BetaNotEnabled).
	BetaOff func(ctx context.Context, c *Call, ptn partner.Partner) error
}

// Grant is what a token route's Verify found.
type Grant struct {
	Tenant  auth.Tenant
	Subject any
	// Usage is the token's rate-limit count (Admitted false: over the
	// limit).
	Usage auth.Usage
}

// Document is a view that is not JSON (an HTML page): Run returns it and
// the edge sends Body as is, with Status and Header.
type Document struct {
	Status int
	Header map[string]string
	Body   []byte
}

// Route returns e's manifest route.
func (e Endpoint) Route() manifest.Route { return manifest.ByOperation(e.Operation) }

// Work is a validated call's work.
type Work struct {
	// Run does the work and returns the response view (rendered as JSON,
	// status 200). id is the resource id to create with: pinned by the
	// Idempotency-Key's claim when one was sent, fresh otherwise.
	Run func(ctx context.Context, id string) (any, error)
	// Creates, when set, marks work that creates one resource whose response
	// is known before it writes: the claim stores the response up front and
	// the key counts as completed once Exists reports the resource written,
	// which saves the write that would complete it.
	Creates *Creation
	// Secret, when set, marks work whose response holds a secret (a
	// capture link's token) that must not be stored in plain text under
	// an Idempotency-Key: see SecretResponse.
	Secret *SecretResponse
}

// SecretResponse keeps a response's secret out of its stored idempotent
// copy: the key stores Strip(view), and a replay answers
// Restore(stored), which mints a fresh secret for the same resource.
type SecretResponse struct {
	Strip   func(view any) any
	Restore func(ctx context.Context, stored []byte) (any, error)
}

// Creation describes work that creates one resource (see Work.Creates).
type Creation struct {
	// Respond returns the response view for the resource with id.
	Respond func(id string) any
	// Exists reports whether the resource with id has been written.
	Exists func(ctx context.Context, id string) (bool, error)
}

// Result is the pipeline's answer: the status and JSON body, and what the
// edge needs for headers and its log line.
type Result struct {
	Status int
	Body   []byte
	// Replayed is true when Body is a stored idempotent response.
	Replayed bool
	// Principal is the verified key, when authentication succeeded.
	Principal *auth.Principal
	// Usage is the rate-limit count, when the request was counted.
	Usage *auth.Usage
	// Err is the error behind a non-2xx answer, for the edge's log (its
	// internal text never reaches a client).
	Err error
	// Header holds extra response headers (e.g. Allow, an HTML page's
	// security headers).
	Header map[string]string
	// ContentType is the body's media type: the route's (manifest.JSON
	// unless the route answers HTML and rendered a page).
	ContentType manifest.ContentType
}

// Headers returns the headers every answer of res carries: its content
// type, no caching, the request id, the key's rate-limit count (and
// Retry-After when it was refused), Idempotent-Replayed, then res.Header.
func (res Result) Headers(requestID string, now time.Time) map[string]string {
	ct := res.ContentType
	if ct == "" {
		ct = manifest.JSON
	}
	h := map[string]string{
		"Content-Type":  string(ct),
		"Cache-Control": "no-store",
		"X-Request-Id":  requestID,
	}
	if u := res.Usage; u != nil {
		h["X-RateLimit-Limit"] = strconv.Itoa(u.Limit)
		h["X-RateLimit-Remaining"] = strconv.Itoa(u.Remaining)
		h["X-RateLimit-Reset"] = strconv.FormatInt(u.Reset, 10)
		if !u.Admitted {
			h["Retry-After"] = strconv.FormatInt(u.RetryAfter(now), 10)
		}
	}
	if res.Replayed {
		h["Idempotent-Replayed"] = "true"
	}
	for k, v := range res.Header {
		h[k] = v
	}
	return h
}
