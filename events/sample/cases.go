package sample

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/local/localgw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Case is one sample API Gateway (HTTP API, payload 2.0) event.
type Case struct {
	Slug string // the function it is for (manifest.Functions)
	Name string // what it shows, e.g. "valid" or "bad-limit"; no dots
	// Status is the status the function answers with.
	Status int
	// Operation selects the route of a function with several (v1-capture);
	// "" selects the function's first route.
	Operation manifest.Operation
	// Logical selects the route's logical path; else its pilot path.
	Logical bool
	// Param is the path parameter's value, for routes that have one.
	Param string
	// Method and Path are the request's method and raw path for the
	// $default route (route-not-found), which has neither of its own.
	Method, Path string
	// Query is the raw query string, without "?".
	Query string
	// Key is sent as the route's auth kind asks: "Authorization: Bearer
	// <Key>", or "X-Partner-Key: <Key>" (manifest.AgentKeyHeader) for the
	// agent tool server's route; none when empty.
	Key string
	// Headers are further request headers.
	Headers map[string]string
	// Body is the request body; none when empty.
	Body string
}

// A complete createLead body: it gets an instant estimate.
const createBody = `{"customer_name":"Ada Lovelace","email":"ada@example.com","phone":"+15551234567",` +
	`"from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108",` +
	`"home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano"],"source":"web-form"}`

// A clip upload request of the capture page (POST /v1-capture/{token}/clips).
const framesBody = `{"clip_id":"` + FramesClipID + `","frames":[{"offset_ms":1000,"size":48213,"width":1280,"height":720},{"offset_ms":3000,"size":51977,"width":1280,"height":720}]}`

const clipBody = `{"clip_id":"` + AnnouncedClipID + `","room":"Living room","size":7340032,"content_type":"video/webm;codecs=vp8,opus"}`

// A checklist of the capture page (PUT /v1-capture/{token}/checklist).
const checklistBody = `{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":1},{"key":"armchair","count":2}]}]}`

// A createQuote body (POST /v1-lead-quote/{lead_id}): a non-binding quote
// with a deposit.
const quoteBody = `{"estimate_type":"non_binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`

// An acceptQuote body (and the quote page's accept call's) for the
// non-binding fixture quotes: the email they were, or are, accepted with.
const acceptBody = `{"accepter_email":"` + fixtureEmail + `"}`

// depositBody is a createDeposit body for the quote shareLinkID of lead
// leadID, for the quote's own deposit.
func depositBody(leadID, shareLinkID string) string {
	return `{"lead_id":"` + leadID + `","quote_share_link_id":"` + shareLinkID + `"}`
}

// The agent tool server's JSON-RPC messages (POST /v1-mcp, /v1/mcp): its
// transport is stateless, so each stands alone (tools/list and tools/call
// need no initialize before them).
const (
	mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
		`"clientInfo":{"name":"sample-client","version":"1.0"}}}`
	mcpToolsList = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	mcpGetLead   = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_lead","arguments":{"lead_id":"` + LeadID + `"}}}`
)

// mcpClient returns the headers of an MCP client's POST: a JSON body, and
// JSON or an event stream accepted (the transport answers JSON). The key
// is the case's Key (X-Partner-Key).
func mcpClient() map[string]string {
	return map[string]string{"content-type": "application/json", "accept": "application/json, text/event-stream"}
}

// ignoredEvent is a Stripe Connect event of a type the receiver does not
// subscribe to: verified, it is acknowledged (200) and changes nothing.
var ignoredEvent = stripeEvent("evt_sample_ignored_local_only", "customer.created",
	`{"id":"cus_sample_local_only","object":"customer","email":"grace@example.com"}`)

// phoneAgent is the User-Agent of a phone's browser.
const phoneAgent = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"

// phoneBrowser returns the headers of a phone's browser opening a capture
// link.
func phoneBrowser() map[string]string {
	return map[string]string{
		"user-agent":      phoneAgent,
		"accept":          "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		"accept-language": "en-US,en;q=0.9",
	}
}

// desktopBrowser returns the headers of a desktop browser opening a
// forwarded video link (a carrier's office).
func desktopBrowser() map[string]string {
	return map[string]string{
		"user-agent":      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"accept":          "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		"accept-language": "en-US,en;q=0.9",
	}
}

// with returns h with the header k set to v.
func with(h map[string]string, k, v string) map[string]string {
	h[k] = v
	return h
}

// Cases returns every sample API Gateway event. Each route and path form
// has at least one 2xx case; the $default route has a 404 and a 405. Cases
// do not depend on one another or on their order, and running one again
// answers the same status (creates with an Idempotency-Key replay the first
// response; getSurveyLink answers the lead's survey with a fresh link; the
// capture calls are idempotent and finishing again answers the survey's
// state; each createSurveyVideoAccess mints another link, which a revoke
// closes; the videoPage event opens a link no event revokes, up to
// videolink.OpensPerHour times an hour; accepting a quote again with the
// same terms answers the same; a second deposit for the same quote and
// amount answers the open checkout; the Stripe event verified is one the
// receiver ignores).
func Cases() []Case {
	jsonBody := map[string]string{"content-type": "application/json"}
	withIdem := func(key string) map[string]string {
		return map[string]string{"content-type": "application/json", "idempotency-key": key}
	}
	// The capture page's own calls: fetch from the page, same origin.
	fromPage := map[string]string{"content-type": "application/json", "origin": "http://" + eventHost, "user-agent": phoneAgent}
	return []Case{
		{Slug: "v1-leads", Name: "valid", Status: 200, Key: APIKey, Headers: withIdem("sample-create-1"), Body: createBody},
		{Slug: "v1-leads", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Headers: withIdem("sample-create-2"), Body: createBody},
		{Slug: "v1-leads", Name: "minimal", Status: 200, Key: APIKey, Headers: jsonBody, Body: `{"name":"Ada Lovelace","phone":"+1 555 123 4567"}`},
		{Slug: "v1-leads", Name: "bad-body", Status: 422, Key: APIKey, Headers: jsonBody,
			Body: `{"customer_name":"Ada Lovelace","email":"not-an-email","move_date":"2027-02-30","colour":"blue"}`},
		{Slug: "v1-leads", Name: "not-json", Status: 422, Key: APIKey, Headers: jsonBody, Body: `customer_name=Ada+Lovelace`},
		{Slug: "v1-leads", Name: "missing-key", Status: 401, Headers: jsonBody, Body: createBody},
		{Slug: "v1-leads", Name: "unknown-key", Status: 401, Logical: true, Key: UnknownAPIKey, Headers: jsonBody, Body: createBody},

		{Slug: "v1-leads-list", Name: "valid", Status: 200, Key: APIKey, Query: "limit=2"},
		{Slug: "v1-leads-list", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Query: "updated_since=2026-01-01T00%3A00%3A00Z"},
		{Slug: "v1-leads-list", Name: "bad-limit", Status: 422, Key: APIKey, Query: "limit=0"},
		{Slug: "v1-leads-list", Name: "bad-cursor", Status: 422, Logical: true, Key: APIKey, Query: "cursor=not-a-cursor"},
		{Slug: "v1-leads-list", Name: "unknown-param", Status: 422, Key: APIKey, Query: "page=2"},
		{Slug: "v1-leads-list", Name: "missing-key", Status: 401},

		{Slug: "v1-lead-get", Name: "valid", Status: 200, Key: APIKey, Param: LeadID},
		{Slug: "v1-lead-get", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Param: LeadID},
		{Slug: "v1-lead-get", Name: "unknown-id", Status: 404, Key: APIKey, Param: UnknownLeadID},
		{Slug: "v1-lead-get", Name: "not-a-uuid", Status: 404, Logical: true, Key: APIKey, Param: "lead-42"},
		{Slug: "v1-lead-get", Name: "missing-key", Status: 401, Param: LeadID},

		{Slug: "v1-events", Name: "valid", Status: 200, Key: EventsAPIKey, Query: "limit=2"},
		{Slug: "v1-events", Name: "logical-path", Status: 200, Logical: true, Key: EventsAPIKey, Query: "type=deposit.paid&lead_id=" + PaidLeadID},
		{Slug: "v1-events", Name: "bad-type", Status: 422, Key: EventsAPIKey, Query: "type=lead.created"},
		{Slug: "v1-events", Name: "bad-cursor", Status: 422, Logical: true, Key: EventsAPIKey, Query: "cursor=not-a-cursor"},
		{Slug: "v1-events", Name: "missing-key", Status: 401},

		{Slug: "v1-event-get", Name: "valid", Status: 200, Key: EventsAPIKey, Param: PaidEventID},
		{Slug: "v1-event-get", Name: "logical-path", Status: 200, Logical: true, Key: EventsAPIKey, Param: PaidEventID},
		{Slug: "v1-event-get", Name: "unknown-id", Status: 404, Key: EventsAPIKey, Param: UnknownEventID},
		{Slug: "v1-event-get", Name: "not-an-event-id", Status: 404, Logical: true, Key: EventsAPIKey, Param: LeadID},
		{Slug: "v1-event-get", Name: "missing-key", Status: 401, Param: PaidEventID},

		{Slug: "v1-lead-survey", Name: "valid", Status: 200, Key: APIKey, Param: LeadID, Headers: withIdem("sample-survey-1"), Body: `{"delivery":"link"}`},
		{Slug: "v1-lead-survey", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Param: LeadID, Headers: jsonBody, Body: `{"delivery":"link"}`},
		{Slug: "v1-lead-survey", Name: "no-body", Status: 200, Key: APIKey, Param: LeadID},
		{Slug: "v1-lead-survey", Name: "bad-body", Status: 422, Key: APIKey, Param: LeadID, Headers: jsonBody, Body: `{"delivery":"sms"}`},
		{Slug: "v1-lead-survey", Name: "unknown-lead", Status: 404, Key: APIKey, Param: UnknownLeadID},
		{Slug: "v1-lead-survey", Name: "not-a-uuid", Status: 404, Logical: true, Key: APIKey, Param: "lead-42"},
		{Slug: "v1-lead-survey", Name: "missing-key", Status: 401, Param: LeadID},

		{Slug: "v1-capture", Name: "page", Status: 200, Operation: manifest.CapturePage, Param: CaptureToken, Headers: phoneBrowser()},
		{Slug: "v1-capture", Name: "unknown-token", Status: 404, Operation: manifest.CapturePage, Param: UnknownCaptureToken, Headers: phoneBrowser()},
		{Slug: "v1-capture", Name: "clip", Status: 200, Operation: manifest.CaptureClip, Param: CaptureToken, Headers: fromPage, Body: clipBody},
		{Slug: "v1-capture", Name: "clip-unknown-token", Status: 404, Operation: manifest.CaptureClip, Param: UnknownCaptureToken, Headers: fromPage, Body: clipBody},
		{Slug: "v1-capture", Name: "clips", Status: 200, Operation: manifest.CaptureClips, Param: CaptureToken, Headers: map[string]string{"user-agent": phoneAgent}},
		{Slug: "v1-capture", Name: "frames", Status: 200, Operation: manifest.CaptureFrames, Param: CaptureToken, Headers: fromPage, Body: framesBody},
		{Slug: "v1-capture", Name: "frames-unknown-clip", Status: 404, Operation: manifest.CaptureFrames, Param: CaptureToken, Headers: fromPage,
			Body: `{"clip_id":"` + UnknownLeadID + `","frames":[{"offset_ms":0,"size":1000,"width":640,"height":360}]}`},
		{Slug: "v1-capture", Name: "checklist", Status: 200, Operation: manifest.CaptureChecklist, Param: CaptureToken, Headers: fromPage, Body: checklistBody},
		{Slug: "v1-capture", Name: "finish", Status: 200, Operation: manifest.CaptureFinish, Param: FinishToken, Headers: fromPage, Body: `{}`},

		{Slug: "v1-survey-video-access", Name: "valid", Status: 200, Operation: manifest.CreateSurveyVideoAccess, Key: APIKey, Param: VideoSurveyID,
			Headers: jsonBody, Body: `{"ttl_hours":24,"label":"Sent to the carrier for a quote"}`},
		{Slug: "v1-survey-video-access", Name: "logical-path", Status: 200, Operation: manifest.CreateSurveyVideoAccess, Logical: true, Key: APIKey, Param: VideoSurveyID},
		{Slug: "v1-survey-video-access", Name: "no-playable-clips", Status: 422, Operation: manifest.CreateSurveyVideoAccess, Key: APIKey, Param: CaptureSurveyID},
		{Slug: "v1-survey-video-access", Name: "bad-body", Status: 422, Operation: manifest.CreateSurveyVideoAccess, Key: APIKey, Param: VideoSurveyID,
			Headers: jsonBody, Body: `{"ttl_hours":0,"grant":"all"}`},
		{Slug: "v1-survey-video-access", Name: "unknown-survey", Status: 404, Operation: manifest.CreateSurveyVideoAccess, Key: APIKey, Param: UnknownSurveyID},
		{Slug: "v1-survey-video-access", Name: "not-a-uuid", Status: 404, Operation: manifest.CreateSurveyVideoAccess, Logical: true, Key: APIKey, Param: "survey-42"},
		{Slug: "v1-survey-video-access", Name: "missing-key", Status: 401, Operation: manifest.CreateSurveyVideoAccess, Param: VideoSurveyID},
		{Slug: "v1-survey-video-access", Name: "revoke", Status: 200, Operation: manifest.RevokeSurveyVideoAccess, Key: APIKey, Param: VideoSurveyID},
		{Slug: "v1-survey-video-access", Name: "revoke-logical-path", Status: 200, Operation: manifest.RevokeSurveyVideoAccess, Logical: true, Key: APIKey, Param: VideoSurveyID},
		{Slug: "v1-survey-video-access", Name: "revoke-bad-body", Status: 422, Operation: manifest.RevokeSurveyVideoAccess, Key: APIKey, Param: VideoSurveyID,
			Headers: jsonBody, Body: `{"grant_id":"` + ViewGrantID + `"}`},
		{Slug: "v1-survey-video-access", Name: "revoke-unknown-survey", Status: 404, Operation: manifest.RevokeSurveyVideoAccess, Key: APIKey, Param: UnknownSurveyID},

		{Slug: "v1-video", Name: "page", Status: 200, Operation: manifest.VideoPage, Param: ViewToken, Headers: desktopBrowser()},
		{Slug: "v1-video", Name: "unknown-token", Status: 404, Operation: manifest.VideoPage, Param: UnknownViewToken, Headers: desktopBrowser()},

		{Slug: "dashboard", Name: "script", Status: 200, Operation: manifest.DashboardAsset, Param: "dashboard.js", Headers: desktopBrowser()},
		{Slug: "dashboard", Name: "sign-in-begin", Status: 200, Operation: manifest.DashboardSignInBegin, Headers: jsonBody},
		{Slug: "dashboard", Name: "sign-in-page", Status: 200, Operation: manifest.DashboardSignInPage, Headers: desktopBrowser()},
		{Slug: "dashboard", Name: "home-signed-out", Status: 303, Operation: manifest.DashboardHome, Headers: desktopBrowser()},
		{Slug: "dashboard", Name: "sign-out-no-session", Status: 401, Operation: manifest.DashboardSignOut, Headers: desktopBrowser()},
		{Slug: "dashboard", Name: "unknown-invitation", Status: 404, Operation: manifest.DashboardInvitationPage, Param: UnknownViewToken, Headers: desktopBrowser()},

		{Slug: "v1-lead-quote", Name: "valid", Status: 200, Key: APIKey, Param: QuoteLeadID, Headers: withIdem("sample-quote-1"), Body: quoteBody},
		{Slug: "v1-lead-quote", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Param: QuoteLeadID, Headers: withIdem("sample-quote-2"), Body: quoteBody},
		{Slug: "v1-lead-quote", Name: "bad-body", Status: 422, Key: APIKey, Param: QuoteLeadID, Headers: jsonBody,
			Body: `{"estimate_type":"fixed","price_cents":2450.5,"deposit_cents":50}`},
		{Slug: "v1-lead-quote", Name: "accepted", Status: 409, Key: APIKey, Param: DepositLeadID, Headers: jsonBody, Body: quoteBody},
		{Slug: "v1-lead-quote", Name: "unknown-lead", Status: 404, Key: APIKey, Param: UnknownLeadID, Headers: jsonBody, Body: quoteBody},
		{Slug: "v1-lead-quote", Name: "not-a-uuid", Status: 404, Logical: true, Key: APIKey, Param: "lead-42", Headers: jsonBody, Body: quoteBody},
		{Slug: "v1-lead-quote", Name: "missing-key", Status: 401, Param: QuoteLeadID, Headers: jsonBody, Body: quoteBody},

		{Slug: "v1-accept", Name: "valid", Status: 200, Key: APIKey, Param: AcceptLeadID, Headers: withIdem("sample-accept-1"), Body: acceptBody},
		{Slug: "v1-accept", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Param: AcceptLeadID, Headers: jsonBody, Body: acceptBody},
		{Slug: "v1-accept", Name: "bad-body", Status: 422, Key: APIKey, Param: AcceptLeadID, Headers: jsonBody,
			Body: `{"accepter_email":"not-an-email","signer_name":"Grace Hopper"}`},
		{Slug: "v1-accept", Name: "no-quote", Status: 409, Key: APIKey, Param: LeadID, Headers: jsonBody, Body: acceptBody},
		{Slug: "v1-accept", Name: "unknown-lead", Status: 404, Key: APIKey, Param: UnknownLeadID, Headers: jsonBody, Body: acceptBody},
		{Slug: "v1-accept", Name: "missing-key", Status: 401, Param: AcceptLeadID, Headers: jsonBody, Body: acceptBody},

		{Slug: "v1-deposits", Name: "valid", Status: 200, Key: APIKey, Headers: withIdem("sample-deposit-1"), Body: depositBody(DepositLeadID, DepositShareLinkID)},
		{Slug: "v1-deposits", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Headers: jsonBody, Body: depositBody(DepositLeadID, DepositShareLinkID)},
		{Slug: "v1-deposits", Name: "bad-body", Status: 422, Key: APIKey, Headers: jsonBody, Body: `{"lead_id":"lead-42","amount_cents":50,"currency":"usd"}`},
		{Slug: "v1-deposits", Name: "quote-not-accepted", Status: 409, Key: APIKey, Headers: jsonBody, Body: depositBody(OpenLeadID, OpenShareLinkID)},
		{Slug: "v1-deposits", Name: "unknown-quote", Status: 404, Key: APIKey, Headers: jsonBody, Body: depositBody(DepositLeadID, UnknownLeadID)},
		{Slug: "v1-deposits", Name: "missing-key", Status: 401, Headers: jsonBody, Body: depositBody(DepositLeadID, DepositShareLinkID)},

		{Slug: "v1-deposit-status", Name: "valid", Status: 200, Key: APIKey, Param: PaidDepositID},
		{Slug: "v1-deposit-status", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Param: PaidDepositID},
		{Slug: "v1-deposit-status", Name: "unknown-deposit", Status: 404, Key: APIKey, Param: UnknownDepositID},
		{Slug: "v1-deposit-status", Name: "not-a-uuid", Status: 404, Logical: true, Key: APIKey, Param: "deposit-42"},
		{Slug: "v1-deposit-status", Name: "missing-key", Status: 401, Param: PaidDepositID},

		{Slug: "v1-quote", Name: "page", Status: 200, Operation: manifest.QuotePage, Param: QuoteToken, Headers: phoneBrowser()},
		{Slug: "v1-quote", Name: "unknown-token", Status: 404, Operation: manifest.QuotePage, Param: UnknownQuoteToken, Headers: phoneBrowser()},
		{Slug: "v1-quote", Name: "accept", Status: 200, Operation: manifest.QuoteAccept, Param: QuoteToken, Headers: fromPage, Body: acceptBody},
		{Slug: "v1-quote", Name: "accept-unknown-token", Status: 404, Operation: manifest.QuoteAccept, Param: UnknownQuoteToken, Headers: fromPage, Body: acceptBody},
		{Slug: "v1-quote", Name: "deposit", Status: 200, Operation: manifest.QuoteDeposit, Param: DepositQuoteToken, Headers: fromPage, Body: `{}`},

		{Slug: "stripe-webhook", Name: "ignored-type", Status: 200, Param: "test",
			Headers: fromStripe(StripeWebhookSecret, ignoredEvent), Body: ignoredEvent},
		{Slug: "stripe-webhook", Name: "bad-signature", Status: 400, Param: "test",
			Headers: fromStripe(wrongWebhookSecret, ignoredEvent), Body: ignoredEvent},
		{Slug: "stripe-webhook", Name: "unknown-mode", Status: 404, Param: "staging",
			Headers: fromStripe(StripeWebhookSecret, ignoredEvent), Body: ignoredEvent},

		{Slug: "v1-mcp", Name: "tools-list", Status: 200, Key: APIKey, Headers: mcpClient(), Body: mcpToolsList},
		{Slug: "v1-mcp", Name: "logical-path", Status: 200, Logical: true, Key: APIKey, Headers: mcpClient(), Body: mcpInitialize},
		{Slug: "v1-mcp", Name: "get-lead", Status: 200, Key: APIKey, Headers: mcpClient(), Body: mcpGetLead},
		{Slug: "v1-mcp", Name: "missing-key", Status: 401, Headers: mcpClient(), Body: mcpToolsList},
		// The key where the API takes it, not where the agent tool
		// server does: refused, Authorization is the MCP client's own.
		{Slug: "v1-mcp", Name: "key-in-authorization", Status: 401, Logical: true,
			Headers: with(mcpClient(), "authorization", "Bearer "+APIKey), Body: mcpToolsList},

		{Slug: "route-not-found", Name: "unknown-path", Status: 404, Method: "GET", Path: "/v1/quotes", Key: APIKey},
		{Slug: "route-not-found", Name: "wrong-method", Status: 405, Method: "DELETE", Path: "/v1/leads/" + LeadID, Key: APIKey},
	}
}

// FileName returns the name of c's file in events/: <slug>.<name>.<status>.json.
func (c Case) FileName() string { return fmt.Sprintf("%s.%s.%d.json", c.Slug, c.Name, c.Status) }

// ParseFileName splits an events/ file name into the function's slug, the
// case name and the expected status: <slug>.<case>.<status>.json for a
// function API Gateway starts, <slug>.<case>.json (status 0) for one
// another trigger starts (S3, a stream, a schedule, a queue), which answers no
// status. It fails for any
// other form, for a slug that is not a function of the manifest, and for
// a form that does not fit the function's trigger.
func ParseFileName(name string) (slug, caseName string, status int, err error) {
	base, ok := strings.CutSuffix(name, ".json")
	parts := strings.Split(base, ".")
	if !ok || len(parts) < 2 || len(parts) > 3 || slices.Contains(parts, "") {
		return "", "", 0, fmt.Errorf("event file %q: want <slug>.<case>.<status>.json (HTTP) or <slug>.<case>.json (S3, stream, schedule)", name)
	}
	f, ok := manifest.BySlug(parts[0])
	if !ok {
		return "", "", 0, fmt.Errorf("event file %q: no function %q in the manifest", name, parts[0])
	}
	isHTTP := f.Trigger() == manifest.TriggerHTTP
	switch {
	case isHTTP && len(parts) != 3:
		return "", "", 0, fmt.Errorf("event file %q: function %s is started by API Gateway; want <slug>.<case>.<status>.json", name, f.Slug)
	case !isHTTP && len(parts) != 2:
		return "", "", 0, fmt.Errorf("event file %q: function %s is started by %s, which answers no status; want <slug>.<case>.json", name, f.Slug, f.Trigger())
	case !isHTTP:
		return parts[0], parts[1], 0, nil
	}
	status, err = strconv.Atoi(parts[2])
	if err != nil || status < 100 || status > 599 {
		return "", "", 0, fmt.Errorf("event file %q: %q is not an HTTP status", name, parts[2])
	}
	return parts[0], parts[1], status, nil
}

// The fixed parts of every event: what a curl on the developer's machine
// through `make dev` would produce, with a fixed time and request id so
// that the files are reproducible.
var (
	eventTime  = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	eventHost  = "127.0.0.1:3000"
	eventAgent = "curl/8.5.0"
)

// Route returns the route c is for: its function's route of c.Operation,
// or the function's first route when c names none.
func (c Case) Route() (manifest.Route, error) {
	f, ok := manifest.BySlug(c.Slug)
	if !ok || len(f.HTTP) == 0 {
		return manifest.Route{}, fmt.Errorf("case %s: no HTTP function %q in the manifest", c.FileName(), c.Slug)
	}
	i := 0
	if c.Operation != "" {
		i = slices.IndexFunc(f.HTTP, func(r manifest.Route) bool { return r.Operation == c.Operation })
		if i < 0 {
			return manifest.Route{}, fmt.Errorf("case %s: function %s has no route %s", c.FileName(), c.Slug, c.Operation)
		}
	}
	rt := f.HTTP[i]
	rt.Slug = f.Slug
	return rt, nil
}

// Event returns c as the event API Gateway sends the route's function.
func (c Case) Event() (events.APIGatewayV2HTTPRequest, error) {
	rt, err := c.Route()
	if err != nil {
		return events.APIGatewayV2HTTPRequest{}, err
	}
	method, template, path, name, value := rt.Method, rt.PilotPath, "", "", ""
	if c.Logical {
		template = rt.LogicalPath
	}
	if rt.IsDefault() {
		method, path = c.Method, c.Path
	} else {
		path = template
		if n := manifest.ParamName(template); n != "" {
			path = strings.Replace(template, "{"+n+"}", c.Param, 1)
		}
		var ok bool
		if ok, name, value = manifest.Match(template, path); !ok {
			return events.APIGatewayV2HTTPRequest{}, fmt.Errorf("case %s: path %q does not match %q", c.FileName(), path, template)
		}
	}
	target := path
	if c.Query != "" {
		target += "?" + c.Query
	}
	r := httptest.NewRequest(method, target, strings.NewReader(c.Body))
	r.Host = eventHost
	r.RemoteAddr = "127.0.0.1:54321"
	r.Header = http.Header{"User-Agent": {eventAgent}, "Accept": {"*/*"}}
	switch {
	case c.Key == "":
	case rt.Auth == manifest.AuthAgentKey:
		r.Header.Set(manifest.AgentKeyHeader, c.Key)
	default:
		r.Header.Set("Authorization", "Bearer "+c.Key)
	}
	for k, v := range c.Headers {
		r.Header.Set(k, v)
	}
	ev := localgw.Event(r, rt, template, name, value, []byte(c.Body))
	ev.RequestContext.RequestID = "sample-" + strings.TrimSuffix(c.FileName(), ".json")
	ev.RequestContext.Time = eventTime.Format("02/Jan/2006:15:04:05 -0700")
	ev.RequestContext.TimeEpoch = eventTime.UnixMilli()
	if c.Body != "" {
		ev.Headers["content-length"] = strconv.Itoa(len(c.Body))
	}
	return ev, nil
}

// Files returns every case's file name and content: the API Gateway
// events of Cases, the S3 events of S3Cases, the DynamoDB stream events of
// StreamCases, the scheduled events of ScheduleCases and the SQS events of
// QueueCases.
func Files() (map[string][]byte, error) {
	files := map[string][]byte{}
	add := func(name string, ev any) error {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ev); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, dup := files[name]; dup {
			return fmt.Errorf("two cases are named %s", name)
		}
		files[name] = buf.Bytes()
		return nil
	}
	for _, c := range Cases() {
		ev, err := c.Event()
		if err != nil {
			return nil, err
		}
		if err := add(c.FileName(), ev); err != nil {
			return nil, err
		}
	}
	for _, c := range S3Cases() {
		if err := add(c.FileName(), c.event()); err != nil {
			return nil, err
		}
	}
	for _, c := range StreamCases() {
		if err := add(c.FileName(), c.event()); err != nil {
			return nil, err
		}
	}
	for _, c := range ScheduleCases() {
		if err := add(c.FileName(), c.event()); err != nil {
			return nil, err
		}
	}
	for _, c := range QueueCases() {
		if err := add(c.FileName(), c.event()); err != nil {
			return nil, err
		}
	}
	return files, nil
}
