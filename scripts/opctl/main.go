// Command opctl is the operator's tool for partners and their API keys: it
// creates partners, edits their rate cards, beta features and capture link
// lifetimes, creates, revokes and lists keys, and shows a survey's video
// links and who opened them, writing straight to the service's DynamoDB
// table through package dynamo (the same store code the API uses). `make
// opctl` builds it as ./opctl in the repository root (git-ignored).
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
// `opctl help`, -h and --help (also after a command) print the usage on
// stdout and exit 0: asking for help is not a mistake.
//
// Exit status 2 means the command line is wrong and nothing was read or
// written: no command, an unknown command, flag or positional argument, a
// missing or invalid flag value (a --survey with white space inside, a
// --limit below 1), an unknown beta feature, both or neither of --enable
// and --disable, rate-card values that fail RateCard.Validate, or a
// capture link lifetime that is malformed, out of bounds (the message
// names the bounds) or given with --default. No
// command and an unknown command print the usage on stderr (an unknown
// command preceded by one error line); every other usage error prints one
// line.
//
// Exit status 1 means the command could not be carried out: TABLE_NAME
// unset, an unknown partner, key or survey, a stored rate card that would still be
// invalid after the change, or a DynamoDB failure. It prints one line
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
