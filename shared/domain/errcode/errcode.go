// Package errcode is the single table of the API's error codes: each code,
// the HTTP status it answers with, and what it means. Domain packages return
// *Error values carrying a code; the API edge turns them into the spec's
// error body and status using Table, and nothing else maps codes to statuses.
package errcode

import (
	"errors"
	"fmt"
)

// Code is a machine-readable error code, sent as error.code.
type Code string

// The error codes. Add a code here and a row to Table together; a test fails
// when one is missing from the other.
const (
	InvalidAPIKey        Code = "invalid_api_key"
	InsufficientScope    Code = "insufficient_scope"
	NotSignedIn          Code = "not_signed_in"
	CSRFFailed           Code = "csrf_failed"
	AdminRequired        Code = "admin_required"
	ReauthRequired       Code = "reauthentication_required"
	PasskeyFailed        Code = "passkey_failed"
	BetaNotEnabled       Code = "beta_not_enabled"
	OriginNotAllowed     Code = "origin_not_allowed"
	NotFound             Code = "not_found"
	RouteNotFound        Code = "route_not_found"
	MethodNotAllowed     Code = "method_not_allowed"
	RequestTimeout       Code = "request_timeout"
	Conflict             Code = "conflict"
	SurveyClosed         Code = "survey_closed"
	NoQuote              Code = "no_quote"
	QuoteExpired         Code = "quote_expired"
	QuoteAlreadyAccepted Code = "quote_already_accepted"
	LeadClosed           Code = "lead_closed"
	LinkExpired          Code = "link_expired"
	PartnerNotEligible   Code = "partner_not_eligible"
	QuoteNotAccepted     Code = "quote_not_accepted"
	DepositInProgress    Code = "deposit_in_progress"
	NoDepositRequired    Code = "no_deposit_required"
	PaymentRefused       Code = "payment_refused"
	InvalidSignature     Code = "invalid_signature"
	IdempotencyKeyInUse  Code = "idempotency_key_in_use"
	PayloadTooLarge      Code = "payload_too_large"
	ValidationFailed     Code = "validation_failed"
	NoPlayableClips      Code = "no_playable_clips"
	TooManyVideoLinks    Code = "too_many_video_links"
	InvalidJSON          Code = "invalid_json"
	UnsupportedMediaType Code = "unsupported_media_type"
	BadRequest           Code = "bad_request"
	IdempotencyKeyReused Code = "idempotency_key_reused"
	RateLimited          Code = "rate_limited"
	Internal             Code = "internal_error"
	UpstreamFailed       Code = "upstream_failed"
)

// Entry is one row of the error-code table.
type Entry struct {
	Code    Code
	Status  int
	Meaning string
}

// Table maps every code to its HTTP status and meaning. README's error table
// is generated from it.
var Table = []Entry{
	{InvalidAPIKey, 401, "The Authorization header (the agent tool server's X-Partner-Key header) is missing, malformed, or names an unknown or revoked API key."},
	{InsufficientScope, 403, "The API key is valid but lacks the scope this endpoint requires (details.required_scope)."},
	{BetaNotEnabled, 403, "The endpoint is in private beta and not enabled for this partner (details.feature); ask the operator to enable it."},
	{OriginNotAllowed, 403, "The agent tool server refused a request from a web page's origin (the Origin header) it does not allow: call it from a program. (The dashboard: a state change without the dashboard's own Origin.)"},
	{NotSignedIn, 401, "The dashboard request has no live session (none, signed out, idle for 30 minutes or older than 12 hours): sign in with your passkey."},
	{CSRFFailed, 403, "The dashboard's state change did not carry its session's CSRF token (form field csrf_token or header X-CSRF-Token): reload the page and try again."},
	{AdminRequired, 403, "The dashboard action needs an admin; a viewer may only read."},
	{ReauthRequired, 403, "The dashboard action needs a passkey sign-in within the last 10 minutes: confirm with your passkey, then retry."},
	{PasskeyFailed, 400, "The passkey ceremony failed (an unknown, expired or reused challenge, or a response that does not verify); nothing was changed. Start again."},
	{NotFound, 404, "The resource does not exist, belongs to another partner, or belongs to the other mode (test/live)."},
	{RouteNotFound, 404, "No route matches the path."},
	{MethodNotAllowed, 405, "The path exists but not with this method; the Allow header lists the methods it has."},
	{RequestTimeout, 408, "The request body did not arrive in time."},
	{Conflict, 409, "The resource already exists or changed concurrently; nothing was written."},
	{SurveyClosed, 409, "The video survey was already finished; a capture link cannot change it any more."},
	{NoQuote, 409, "The lead has no quote to accept; create a quote for it first. (An unknown or foreign lead is 404 not_found instead.)"},
	{QuoteExpired, 409, "The quote is past its expiry (details.expires_at) or a newer quote replaced it, and it was never accepted; send the customer a new quote."},
	{QuoteAlreadyAccepted, 409, "The quote was already accepted or signed with other terms (another email, signer, signature or liability option; details.stage), or a new quote would replace an accepted one (details.lead_status). Nothing was changed; the same acceptance repeated is a success."},
	{LeadClosed, 409, "The lead is lost, booked or completed (details.lead_status), so its quote can no longer be created or accepted."},
	{PartnerNotEligible, 409, "The partner cannot take deposits yet: details.missing names what the operator must set (carrier_legal_name, usdot_number, stripe_account)."},
	{QuoteNotAccepted, 409, "The quote is not accepted or signed yet (details.stage); a deposit follows acceptance."},
	{DepositInProgress, 409, "The lead has a deposit whose checkout is open with another amount, or whose payment is processing (details.deposit_id, details.status); nothing was created."},
	{NoDepositRequired, 409, "The quote asks for no deposit, so the quote page has none to take (the partner can still create one with createDeposit)."},
	{PaymentRefused, 409, "Stripe refused to create the checkout for the partner's connected account (details.stripe_code); the message says why. Nothing was created."},
	{InvalidSignature, 400, "A Stripe webhook whose Stripe-Signature does not verify (wrong secret, altered body, or a timestamp more than five minutes away); nothing was changed."},
	{LinkExpired, 410, "The link has expired (a capture link: the partner can send a new one with getSurveyLink; a video link: or it was revoked)."},
	{BadRequest, 400, "The HTTP request itself is malformed (a header, the path's encoding, or the framing); it never reached the API."},
	{IdempotencyKeyInUse, 409, "Another request with the same Idempotency-Key is still in progress; retry after it finishes."},
	{PayloadTooLarge, 413, "The request body exceeds 64 KiB."},
	{UnsupportedMediaType, 415, "The body's Content-Type is not JSON, or its Content-Encoding is not supported (send plain, uncompressed JSON)."},
	{ValidationFailed, 422, "The request failed validation; details.fields maps each failing field to the reason."},
	{NoPlayableClips, 422, "The survey has no clip that can be played yet, so no video link was made."},
	{TooManyVideoLinks, 422, "The survey already has the most live video links it may have (details.max); revoke them before minting more."},
	{InvalidJSON, 422, "The request body is not a JSON object; the message says what is wrong and where."},
	{IdempotencyKeyReused, 422, "The Idempotency-Key was already used with a different request body."},
	{RateLimited, 429, "More than 120 requests in the current minute for this key (a video link: more than 20 opens in the last 60 minutes); see Retry-After."},
	{Internal, 500, "An unexpected error; nothing was written. Retry with the same Idempotency-Key."},
	{UpstreamFailed, 502, "A dependency failed after retries; nothing was half-written. Retry with the same Idempotency-Key."},
}

// Status returns the HTTP status of code, or 500 for a code not in Table.
func Status(code Code) int {
	for _, e := range Table {
		if e.Code == code {
			return e.Status
		}
	}
	return 500
}

// Error is an error the API reports to the client as it is: its Message and
// Details are written for partners and must never carry internal text.
type Error struct {
	Code    Code
	Message string
	Details map[string]any
	// Cause is the internal error behind it, for logs only; it never reaches
	// a client.
	Cause error
}

// Error implements error. It includes Cause, so it is for logs only.
func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns Cause.
func (e *Error) Unwrap() error { return e.Cause }

// Upstream returns an upstream_failed error for a dependency that failed
// after its retries while doing what; cause stays in logs.
func Upstream(what string, cause error) *Error {
	return &Error{
		Code:    UpstreamFailed,
		Message: "A dependency failed; nothing was half-written. Retry the request (with the same Idempotency-Key, if you sent one).",
		Details: map[string]any{},
		Cause:   fmt.Errorf("%s: %w", what, cause),
	}
}

// New returns an *Error with code and a formatted message and empty details.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Details: map[string]any{}}
}

// WithDetail returns e with details[key] = value.
func (e *Error) WithDetail(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// As returns the *Error in err's chain, or nil when there is none.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// FieldErrors collects per-field validation failures in the order found.
type FieldErrors map[string]string

// Add records reason for field unless the field already has one.
func (f FieldErrors) Add(field, reason string) {
	if _, ok := f[field]; !ok {
		f[field] = reason
	}
}

// Err returns nil when no field failed, else a validation_failed *Error whose
// details.fields maps each field to its reason.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	m := make(map[string]any, len(f))
	for k, v := range f {
		m[k] = v
	}
	return New(ValidationFailed, "The request has %d invalid field(s); see details.fields.", len(f)).WithDetail("fields", m)
}

// Fields returns the per-field reasons of e's details.fields, as
// FieldErrors.Err wrote them (empty when e has none), so a caller can name
// them within a larger request (e.g. frames[3].size).
func (e *Error) Fields() FieldErrors {
	out := FieldErrors{}
	m, _ := e.Details["fields"].(map[string]any)
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}
