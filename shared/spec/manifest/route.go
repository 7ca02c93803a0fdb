package manifest

import (
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

// Operation names an API operation, as in the spec (createLead, listLeads, ...).
type Operation string

// The operations served today.
const (
	CreateLead Operation = "createLead"
	ListLeads  Operation = "listLeads"
	GetLead    Operation = "getLead"
	// GetSurveyLink returns a lead's hosted video-survey capture link.
	GetSurveyLink Operation = "getSurveyLink"
	// The capture page (HTML) and its own JSON calls, authenticated by the
	// capture token in the path: they are not partner API (see
	// docs/CAPTURE.md for how they are versioned).
	CapturePage      Operation = "capturePage"
	CaptureClip      Operation = "captureClip"
	CaptureClips     Operation = "captureClips"
	CaptureChecklist Operation = "captureChecklist"
	CaptureFrames    Operation = "captureFrames"
	CaptureFinish    Operation = "captureFinish"
	// CreateSurveyVideoAccess mints a forwardable link to a survey's
	// walkthrough video; RevokeSurveyVideoAccess closes every live one.
	CreateSurveyVideoAccess Operation = "createSurveyVideoAccess"
	RevokeSurveyVideoAccess Operation = "revokeSurveyVideoAccess"
	// VideoPage is the viewer page (HTML) a video link opens,
	// authenticated by the view token in the path; not partner API.
	VideoPage Operation = "videoPage"
	// The beta quotes and deposits (issue 12; docs/QUOTES.md,
	// docs/DEPOSITS.md): a partner makes a quote, its customer accepts it
	// (acceptQuote, or the quote page), and a deposit is taken through
	// Stripe Checkout on the partner's connected account.
	CreateQuote   Operation = "createQuote"
	AcceptQuote   Operation = "acceptQuote"
	CreateDeposit Operation = "createDeposit"
	GetDeposit    Operation = "getDeposit"
	// ListEvents and GetEvent read the tenant's events of the last 30
	// days, with the type and data of their webhook payloads: how a
	// partner that cannot receive webhooks stays in sync (docs/API.md).
	ListEvents Operation = "listEvents"
	GetEvent   Operation = "getEvent"
	// The hosted quote page (HTML) and its own JSON calls (accept, start
	// the deposit's checkout), authenticated by the quote token in the
	// path: not partner API.
	QuotePage    Operation = "quotePage"
	QuoteAccept  Operation = "quoteAccept"
	QuoteDeposit Operation = "quoteDeposit"
	// StripeWebhook receives Stripe's Connect webhook events, verified by
	// their Stripe-Signature: not partner API.
	StripeWebhook Operation = "stripeWebhook"
	// The partner dashboard (docs/DASHBOARD.md): sign-in with passkeys,
	// people and the audit trail; not partner API.
	DashboardAsset            Operation = "dashboardAsset"
	DashboardSignInPage       Operation = "dashboardSignInPage"
	DashboardSignInBegin      Operation = "dashboardSignInBegin"
	DashboardSignInFinish     Operation = "dashboardSignInFinish"
	DashboardInvitationPage   Operation = "dashboardInvitationPage"
	DashboardInvitationBegin  Operation = "dashboardInvitationBegin"
	DashboardInvitationFinish Operation = "dashboardInvitationFinish"
	DashboardHome             Operation = "dashboardHome"
	DashboardSignOut          Operation = "dashboardSignOut"
	DashboardMode             Operation = "dashboardMode"
	DashboardReauthBegin      Operation = "dashboardReauthBegin"
	DashboardReauthFinish     Operation = "dashboardReauthFinish"
	DashboardPeople           Operation = "dashboardPeople"
	DashboardPasskeyBegin     Operation = "dashboardPasskeyBegin"
	DashboardPasskeyFinish    Operation = "dashboardPasskeyFinish"
	DashboardPersonRemove     Operation = "dashboardPersonRemove"
	DashboardAudit            Operation = "dashboardAudit"
	DashboardKeys             Operation = "dashboardKeys"
	DashboardKeyCreate        Operation = "dashboardKeyCreate"
	DashboardKeyRevoke        Operation = "dashboardKeyRevoke"
	DashboardWebhooks         Operation = "dashboardWebhooks"
	DashboardWebhookAdd       Operation = "dashboardWebhookAdd"
	DashboardWebhook          Operation = "dashboardWebhook"
	DashboardWebhookDisable   Operation = "dashboardWebhookDisable"
	DashboardWebhookEnable    Operation = "dashboardWebhookEnable"
	DashboardWebhookRotate    Operation = "dashboardWebhookRotate"
	DashboardWebhookTest      Operation = "dashboardWebhookTest"
	DashboardRedeliver        Operation = "dashboardRedeliver"
	DashboardEvents           Operation = "dashboardEvents"
	DashboardEvent            Operation = "dashboardEvent"
	DashboardLeads            Operation = "dashboardLeads"
	DashboardLead             Operation = "dashboardLead"
	DashboardLeadSurveyLink   Operation = "dashboardLeadSurveyLink"
	// AgentTools is the agent tool server's HTTP transport (MCP,
	// streamable HTTP, stateless): every operation of AgentToolOperations
	// as a tool (docs/AGENT-TOOLS.md).
	AgentTools Operation = "agentTools"
	// RouteNotFound answers requests no other route matches ($default).
	RouteNotFound Operation = "routeNotFound"
)

// AuthKind says how a route authenticates its caller. The request
// pipeline enforces it; no handler re-checks it.
type AuthKind string

// The auth kinds.
const (
	// AuthPartnerKey: a partner API key (Authorization: Bearer), with the
	// route's Scope; the key's partner and mode own everything it touches.
	AuthPartnerKey AuthKind = "partner_key"
	// AuthAgentKey: a partner API key in the X-Partner-Key header (the
	// agent tool server's HTTP transport, which leaves Authorization to
	// the MCP client), counted as AuthPartnerKey; each tool then checks
	// its own operation's scope and beta gate.
	AuthAgentKey AuthKind = "agent_key"
	// AuthCaptureToken: the survey capture token in the URL path.
	AuthCaptureToken AuthKind = "capture_token"
	// AuthViewToken: a forwardable video link's token in the URL path.
	AuthViewToken AuthKind = "view_token"
	// AuthQuoteToken: a quote page's token in the URL path.
	AuthQuoteToken AuthKind = "quote_token"
	// AuthProcessorSignature: the payment processor's signature over the
	// raw body.
	AuthProcessorSignature AuthKind = "processor_signature"
	// AuthDashboardSession: a partner dashboard session (the
	// dashboard.CookieName cookie); a state-changing request also carries
	// the session's CSRF token and an Origin equal to the public base
	// URL's (docs/DASHBOARD.md). The session's partner and mode own what
	// the request touches.
	AuthDashboardSession AuthKind = "dashboard_session"
	// AuthNone: public.
	AuthNone AuthKind = "none"
)

// PartnerKey reports whether routes of kind a authenticate a partner API
// key (and count it against the key's rate limit).
func (a AuthKind) PartnerKey() bool { return a == AuthPartnerKey || a == AuthAgentKey }

// AgentKeyHeader is the header that carries the partner API key to the
// agent tool server's HTTP transport (AuthAgentKey).
const AgentKeyHeader = "X-Partner-Key"

// TokenInPath reports whether routes of kind a carry a secret in their path
// parameter, which logs must never show.
func (a AuthKind) TokenInPath() bool {
	return a == AuthCaptureToken || a == AuthViewToken || a == AuthQuoteToken
}

// ContentType is what a route answers with.
type ContentType string

// The response content types.
const (
	JSON ContentType = "application/json"
	HTML ContentType = "text/html; charset=utf-8"
)

// RateLimitPolicy says what a route's requests are counted against.
type RateLimitPolicy string

// The rate-limit policies.
const (
	// PerKey: 120 requests per API key per clock-aligned minute.
	PerKey RateLimitPolicy = "per_key"
	// PerToken: per URL token (capture and view pages set their own limit).
	PerToken RateLimitPolicy = "per_token"
	// PerClient: per client address (the dashboard's sign-in and
	// invitation calls: dashboard.AttemptLimit a minute; an invitation's
	// token is counted too).
	PerClient RateLimitPolicy = "per_client"
	// NoRateLimit: not counted (API Gateway's stage throttle still applies).
	NoRateLimit RateLimitPolicy = "none"
)

// DefaultBodyLimit is the largest request body a JSON route accepts (64 KiB).
const DefaultBodyLimit = 64 << 10

// The $default route: API Gateway sends it every request no other route
// matches.
const (
	DefaultPath = "$default"
	AnyMethod   = "ANY"
)

// ParamType is the form of a route's path parameter.
type ParamType string

// The checked path parameter types ("" leaves the value to the endpoint:
// a token route's Verify, the webhook's mode).
const (
	// ParamUUID: a resource id, a UUID in its 36-character form. Any
	// other value names no resource: 404 "No <resource> with that id
	// exists for this API key.", the resource named by the pilot path's
	// parameter ({lead_id}: lead).
	ParamUUID ParamType = "uuid"
	// ParamEventID: an event id, "evt_" and lowercase letters, digits,
	// "_", "." or "-" (webhook.ValidID). Any other value names no event:
	// 404 as for ParamUUID.
	ParamEventID ParamType = "event_id"
)

// Route is one operation served by one function at two paths.
//
// Paths use API Gateway's template syntax ({name} for a path parameter) and
// hold at most one parameter.
type Route struct {
	Operation   Operation
	Slug        string // the serving function's slug; filled by Routes
	Method      string
	PilotPath   string // e.g. /v1-lead-get/{lead_id}
	LogicalPath string // e.g. /v1/leads/{id}; empty for routes with one path
	// PathParamType is what the path parameter must be; the pipeline
	// refuses any other value before the endpoint runs.
	PathParamType ParamType

	Auth  AuthKind
	Scope auth.Scope // for AuthPartnerKey
	// Beta names the feature that gates the route ("" = generally available):
	// a partner the operator has not enabled gets 403 beta_not_enabled.
	Beta partner.Feature
	// Idempotent routes honour an Idempotency-Key header.
	Idempotent bool
	// BodyLimit is the largest body accepted, in bytes (413 beyond).
	BodyLimit int
	Response  ContentType
	RateLimit RateLimitPolicy
	// Admin: an AuthDashboardSession route only an admin may call (a
	// viewer gets 403 admin_required).
	Admin bool
	// RecentSignIn: an AuthDashboardSession route that needs a passkey
	// sign-in within dashboard.RecentSignIn (else 403
	// reauthentication_required: sign in with the passkey again).
	RecentSignIn bool
}

// StateChanging reports whether r changes state: any method but GET and
// HEAD. A dashboard route's state change needs a CSRF token and Origin.
func (r Route) StateChanging() bool { return r.Method != "GET" && r.Method != "HEAD" }

// SecretInPath reports whether r's path parameter is a secret logs must
// never show: a token route's, or a {token} parameter (an invitation's).
func (r Route) SecretInPath() bool {
	return r.Auth.TokenInPath() || strings.Contains(r.PilotPath, "{token}")
}

// Methods returns the methods r answers: its Method, and for a page (an
// HTML GET) HEAD too, which answers as GET does without the body. The
// local gateway, the CDK stack and the SAM template route each of them.
func (r Route) Methods() []string {
	if r.Method == "GET" && r.Response == HTML {
		return []string{"GET", "HEAD"}
	}
	return []string{r.Method}
}

// IsDefault reports whether r is the $default route.
func (r Route) IsDefault() bool { return r.PilotPath == DefaultPath }

// Paths returns r's distinct path templates, pilot first.
func (r Route) Paths() []string {
	if r.LogicalPath == "" || r.LogicalPath == r.PilotPath {
		return []string{r.PilotPath}
	}
	return []string{r.PilotPath, r.LogicalPath}
}

// PathParam returns the value of r's path parameter from params (as API
// Gateway fills them), whichever path form matched. It returns "" when the
// route has no parameter or none was supplied.
func (r Route) PathParam(params map[string]string) string {
	for _, p := range r.Paths() {
		if name := ParamName(p); name != "" {
			if v, ok := params[name]; ok {
				return v
			}
		}
	}
	return ""
}

// ParamName returns the name of the path parameter in template, or "".
func ParamName(template string) string {
	i := strings.IndexByte(template, '{')
	j := strings.IndexByte(template, '}')
	if i < 0 || j < i {
		return ""
	}
	return template[i+1 : j]
}

// Match reports whether path matches template exactly as API Gateway does
// and, when it does, the path parameter's name and value (both "" when the
// template has none). path is the raw (still percent-encoded) request path:
// an encoded slash never separates segments, a trailing slash or an empty
// segment never matches, and a parameter matches exactly one non-empty
// segment.
func Match(template, path string) (ok bool, name, value string) {
	if !strings.HasPrefix(path, "/") || template == DefaultPath {
		return false, "", ""
	}
	ts := strings.Split(template[1:], "/")
	ps := strings.Split(path[1:], "/")
	if len(ts) != len(ps) {
		return false, "", ""
	}
	for i, seg := range ts {
		if ps[i] == "" {
			return false, "", ""
		}
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			name, value = seg[1:len(seg)-1], ps[i]
			continue
		}
		if seg != ps[i] {
			return false, "", ""
		}
	}
	return true, name, value
}

// Resolve finds the route for method and raw path among routes. When no
// route has that method but some match the path, allowed lists their
// methods (for a 405 with Allow).
func Resolve(routes []Route, method, path string) (r Route, template, name, value string, allowed []string, ok bool) {
	for _, rt := range routes {
		if rt.IsDefault() {
			continue
		}
		for _, t := range rt.Paths() {
			m, n, v := Match(t, path)
			if !m {
				continue
			}
			if slices.Contains(rt.Methods(), method) {
				return rt, t, n, v, nil, true
			}
			for _, m := range rt.Methods() {
				if !slices.Contains(allowed, m) {
					allowed = append(allowed, m)
				}
			}
		}
	}
	return Route{}, "", "", "", allowed, false
}
