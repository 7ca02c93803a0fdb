// Command opctl is the operator's tool for partners, their API keys and
// their webhook endpoints: it creates partners, edits their rate cards,
// beta features and capture link lifetimes, creates, revokes and lists
// keys, shows a survey's video links and who opened them, and registers,
// disables, enables, re-keys and tests webhook endpoints, reads their
// delivery logs and sends deliveries again, writing straight to the
// service's DynamoDB table through package dynamo (the same store code the
// API uses). `make opctl` builds it as ./opctl in the repository root
// (git-ignored).
//
//	opctl partner create --name NAME [--currency usd]
//	opctl partner rate-card --partner ID [--hourly-cents N] [--crew N] [--travel-cents-per-mile N] [--minimum-cents N]
//	opctl partner beta --partner ID (--enable FEATURE,... | --disable FEATURE,...)
//	opctl partner capture-link --partner ID [--lifetime DURATION | --default]
//	opctl key create --partner ID --mode test|live [--scopes leads:read,leads:write,...]
//	opctl key revoke KEY_ID
//	opctl key list --partner ID
//	opctl survey grants --survey ID
//	opctl survey opens --survey ID [--limit N]
//	opctl webhook add --partner ID --mode test|live --url URL [--events TYPE,...]
//	opctl webhook list --partner ID [--mode test|live]
//	opctl webhook disable --endpoint ID
//	opctl webhook enable --endpoint ID
//	opctl webhook rotate-secret --endpoint ID
//	opctl webhook deliveries --endpoint ID [--limit N]
//	opctl webhook redeliver --delivery WEBHOOK_ID
//	opctl webhook test --endpoint ID
//	opctl webhook replay --partner ID --mode test|live --event EVENT_ID
//	opctl help
//
// # Configuration
//
// Run anywhere inside the repository while `make dev` runs, opctl uses the
// variables in <repo root>/.local/dev.json (TABLE_NAME, the DynamoDB Local
// endpoint, region, dummy credentials), and they win over the same
// variables in the environment, which may be left over from an earlier
// make dev on another port. dev.json counts as running when its pid is a
// live process and its endpoint answers; otherwise, and outside the
// repository, opctl uses its environment: TABLE_NAME (required) and the AWS
// SDK's standard configuration (region, credentials, and
// AWS_ENDPOINT_URL_DYNAMODB). Either way one line on stderr says which
// table, endpoint and origin it uses:
//
//	opctl: using table partner-api at http://127.0.0.1:41234, from .local/dev.json of make dev (pid 4242)
//
// webhook add and webhook rotate-secret also need the webhook sealing key
// (manifest.SecretWebhookSealing), which seals endpoints' signing secrets
// in the table; no other command reads it. While make dev runs, the
// WEBHOOK_SEALING_KEY of its dev.json; otherwise WEBHOOK_SEALING_KEY_ARN,
// whose Secrets Manager secret opctl reads with the AWS configuration
// above, or else WEBHOOK_SEALING_KEY itself: 64 hex characters. Neither
// set is an error naming both (exit status 1); no message ever quotes the
// key.
//
// # Output and exit status
//
// On success opctl prints one JSON object, indented, on stdout and exits 0.
// Timestamps are RFC 3339 in UTC with six fractional digits, as the API
// reports them.
//
//	partner create        {"partner_id": "ptn_<16 hex>"}
//	partner rate-card     {"currency", "hourly_cents", "crew", "travel_cents_per_mile", "minimum_cents"}
//	partner beta          {"partner_id", "beta": [FEATURE, ...]}  (the features on after the change)
//	partner capture-link  {"partner_id", "capture_link_lifetime": "168h0m0s", "capture_link_lifetime_seconds": 604800}
//	key create            {"key_id", "key", "mode", "scopes"}  (the only time the key is shown)
//	key revoke            {"key_id", "revoked": true, "revoked_at"}
//	key list              {"partner_id", "keys": [{"key_id", "mode", "scopes", "created_at", "revoked_at"}]}
//	survey grants         {"survey_id", "partner_id", "mode", "lead_id", "grants": [{"grant_id", "label",
//	                       "created_at", "expires_at", "revoked_at", "live", "opens"}]}
//	survey opens          {"survey_id", "partner_id", "mode", "total", "opens": [{"at", "grant_id",
//	                       "user_agent", "client_address"}]}
//	webhook add           ENDPOINT + {"secret", "note"}  (the only time the secret is shown)
//	webhook list          {"partner_id", "endpoints": [ENDPOINT, ...]}
//	webhook disable       ENDPOINT
//	webhook enable        ENDPOINT + {"note"}
//	webhook rotate-secret {"endpoint_id", "secret", "previous_secret_until", "note"}  (the only time it is shown)
//	webhook deliveries    {"endpoint_id", "partner_id", "mode", "endpoint_status", "deliveries": [DELIVERY, ...]}
//	webhook redeliver     DELIVERY + {"previous_status", "previous_attempts", "note"}
//	webhook test          {"event_id", "webhook_id", "endpoint_id", "partner_id", "mode", "type", "note"}
//	webhook replay        {"event_id", "event_type", "partner_id", "mode", "deliveries": [DELIVERY, ...], "note"}
//
// where ENDPOINT is {"endpoint_id", "partner_id", "mode", "url", "events",
// "created_at", "status", "disabled_reason", "disabled_at",
// "failing_since", "previous_secret_until"} and DELIVERY is
// {"webhook_id", "endpoint_id", "event_id", "event_type", "event_at",
// "status", "attempts", "next_attempt_at", "last_attempt": {"n", "at",
// "status", "latency_ms", "error", "body"}}.
//
// In key list, revoked_at is null for a key in use; a revoked key keeps the
// time of its first revocation. Scopes are listed in the order of
// manifest.AllScopes, without repeats. A rate card lives on the partner
// record only; the API reads it from there (nothing is copied onto keys).
//
// partner capture-link sets how long the partner's capture links (the
// video-survey links it sends its customers) stay valid: --lifetime takes
// a Go duration (72h, 90m), whole days (14d) or both (1d12h), from
// survey.MinTokenLifetime (1h) to survey.MaxTokenLifetime (30d), in whole
// seconds; --default removes the setting, so links live
// survey.DefaultTokenLifetime (7d) again; with neither it shows the current
// lifetime. The output is always the lifetime in effect (the default when
// none is set). A change applies to links minted afterwards.
//
// survey grants lists a survey's video links (createSurveyVideoAccess),
// oldest first, never their tokens: label and revoked_at are null when
// there is none (a link that expired before any revoke keeps revoked_at
// null); live is whether the link opens now (in the survey's live set and
// not expired); opens counts its logged opens. survey opens prints the
// open log, oldest first: each open's time, link, user agent (truncated)
// and client address (its /24 or /48 network); total counts them all and
// --limit N keeps only the last N. Both find the survey's partner and mode
// from the survey id alone (its id record).
//
// Webhook endpoints never show their signing secrets, not even sealed,
// except in the output of webhook add and webhook rotate-secret. events is
// ["*"] for an endpoint that receives every type. status is enabled or
// disabled; disabled_reason says why (an operator's webhook disable, or
// the service's "every attempt failed since ..." after 5 days of failures)
// and is null, like disabled_at, when enabled; failing_since is when its
// current run of failed attempts began (null after a success);
// previous_secret_until is when the secret before the last rotation stops
// signing (null when only one signs). webhook disable keeps the reason and
// time of an endpoint disabled already; webhook enable clears them and the
// failure run (deliveries that failed meanwhile stay failed).
// rotate-secret keeps the old secret signing beside the new one for 24 h
// (webhook.RotationOverlap).
//
// webhook deliveries lists the newest --limit (default 20, at most 200)
// deliveries, newest event first, each with its last attempt (null before
// the first): the answer's status (null: no answer, error says why), its
// latency and the first 256 bytes of its body. A delivery is named by its
// webhook-id, msg_<event_id>_<endpoint_id>, which webhook redeliver takes:
// it makes the delivery pending and due now with its attempts counted
// from zero, whatever its status (the webhook-retrier sends it within a
// minute). webhook test writes a webhook.test event for that endpoint
// alone, with a fresh event id, to the table, whose stream hands it to the
// webhook-dispatcher. webhook replay, for the stream's dead-letter alarm,
// reads an event (kept 30 days) and writes its missing deliveries, due
// now, without sending them: run twice, it makes no second delivery, and a
// delivery made already keeps its status. redeliver and test refuse a
// disabled endpoint (an attempt on it fails at once): enable it first.
//
// `opctl help`, -h and --help (also after a command) print the usage on
// stdout and exit 0: asking for help is not a mistake.
//
// Exit status 2 means the command line is wrong and nothing was read or
// written: no command, an unknown command, flag or positional argument, a
// missing or invalid flag value (a --survey with white space inside, a
// --limit below 1 or, for webhook deliveries, above 200), an unknown beta
// feature, a webhook URL that safehttp.CheckURL refuses (live mode needs
// https), an unknown event type, a --delivery that is not a webhook-id,
// both or neither of --enable and --disable, rate-card values that fail
// RateCard.Validate, or a capture link lifetime that is malformed, out of
// bounds (the message names the bounds) or given with --default. No
// command and an unknown command print the usage on stderr (an unknown
// command preceded by one error line); every other usage error prints one
// line.
//
// Exit status 1 means the command could not be carried out: TABLE_NAME
// unset, an unknown partner, key, survey, webhook endpoint, delivery or
// event, a disabled endpoint for redeliver or test, the webhook sealing key
// unset, malformed or not this table's, a stored rate card that would
// still be invalid after the change, or a DynamoDB or Secrets Manager
// failure. It prints one line
// (after the line naming the table, once one was chosen).
//
// Every error line has the form "opctl: <message>"; stdout is then empty.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	resolve := func(ctx context.Context) devfile.Choice { return devfile.Choose(ctx, os.Getenv) }
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, resolve)
	stop()
	os.Exit(code)
}
