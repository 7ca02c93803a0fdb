// Command opctl is the operator's tool for partners, their API keys and
// their webhook endpoints: it creates partners, edits their rate cards,
// beta features, capture link lifetimes and deposit settings, creates,
// revokes and lists keys, shows a survey's video links and who opened
// them, shows a quote's acceptance and signature evidence, sends a
// deposit's simulated Stripe events to the Stripe webhook receiver, and
// registers, disables, enables, re-keys and tests webhook endpoints,
// reads their delivery logs and sends deliveries again, writing straight
// to the service's DynamoDB table through package dynamo (the same store
// code the API uses). `make opctl` builds it as ./opctl in the repository root
// (git-ignored).
//
//	opctl partner create --name NAME [--currency usd]
//	opctl partner rate-card --partner ID [--hourly-cents N] [--crew N] [--travel-cents-per-mile N] [--minimum-cents N]
//	opctl partner beta --partner ID (--enable FEATURE,... | --disable FEATURE,...)
//	opctl partner capture-link --partner ID [--lifetime DURATION | --default]
//	opctl partner deposits --partner ID [--carrier-legal-name S] [--usdot N] [--stripe-account acct_...]
//	                       [--default-deposit-cents N] [--checkout-ttl DURATION]
//	opctl key create --partner ID --mode test|live [--scopes leads:read,leads:write,...]
//	opctl key revoke KEY_ID
//	opctl key list --partner ID
//	opctl survey grants --survey ID
//	opctl survey opens --survey ID [--limit N]
//	opctl quote evidence --partner ID --mode test|live --lead LEAD_ID
//	opctl deposit simulate --partner ID --mode test|live --deposit DEPOSIT_ID --event EVENT [--url URL] [--event-id evt_...]
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
// deposit simulate also needs the Stripe webhook endpoints' signing
// secrets, STRIPE_WEBHOOK_SECRETS (settings.StripeWebhookSecrets): JSON
// text, {"test": "whsec_…", "live": "whsec_…"}, of which it uses the
// --mode's; and, without --url, PUBLIC_BASE_URL, the API's origin, to
// which it appends the receiver's path, /stripe-webhook/MODE (the
// manifest's stripeWebhook route). Both come from the same place as the
// table: make dev's dev.json while it runs (a variable it lacks from the
// environment), else the environment. No other command reads them, and
// no message ever quotes a secret. Unset, malformed or without the mode's
// secret is an error (exit status 1) that names the variable.
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
//	partner deposits      {"partner_id", "carrier_legal_name", "usdot_number", "stripe_account",
//	                       "default_deposit_cents", "checkout_ttl": "24h0m0s", "checkout_ttl_seconds": 86400,
//	                       "eligible", "missing": [FIELD, ...]}
//	key create            {"key_id", "key", "mode", "scopes"}  (the only time the key is shown)
//	key revoke            {"key_id", "revoked": true, "revoked_at"}
//	key list              {"partner_id", "keys": [{"key_id", "mode", "scopes", "created_at", "revoked_at"}]}
//	survey grants         {"survey_id", "partner_id", "mode", "lead_id", "grants": [{"grant_id", "label",
//	                       "created_at", "expires_at", "revoked_at", "live", "opens"}]}
//	survey opens          {"survey_id", "partner_id", "mode", "total", "opens": [{"at", "grant_id",
//	                       "user_agent", "client_address"}]}
//	quote evidence        {"lead_id", "quote_id", "estimate_type", "price_cents", "deposit_cents", "currency",
//	                       "stage", "shown_hash", "acceptance": null | {"mode", "at", "ip", "email",
//	                       "evidence": null | EVIDENCE, "evidence_hash", "evidence_hash_verified"}}
//	deposit simulate      {"event_id", "type", "deposit_id", "status", "response"}
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
// "status", "latency_ms", "error", "body"}}, and EVIDENCE is
// {"quote_id", "shown_hash", "signer_name", "signer_email",
// "signature_sha256", "signature_key", "liability_election",
// "consent_version", "consent_checked", "at", "ip", "user_agent"}.
//
// In key list, revoked_at is null for a key in use; a revoked key keeps the
// time of its first revocation. Scopes are listed in the order of
// auth.AllScopes, without repeats. A rate card lives on the partner
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
// partner deposits sets what the beta deposits need of a partner
// (partner.DepositSettings): the motor carrier's legal name
// (--carrier-legal-name, at most 200 characters, one line) and USDOT
// number (--usdot, 1 to 8 digits), its connected Stripe account
// (--stripe-account, acct_ and letters or digits), the deposit asked for
// when a request names none (--default-deposit-cents, a
// deposit.ValidAmount from 100 to 500000; 0 removes it), and how long a
// checkout stays payable (--checkout-ttl, a Go duration from 30m to 24h in
// whole seconds; 0 goes back to deposit.DefaultCheckoutTTL, 24h). It reads
// the partner and changes only the settings whose flags are given (an
// empty text removes that setting); with none it shows them. The output
// is the settings afterwards: null for a text or default deposit that is
// unset, the checkout lifetime in effect, and missing, what createDeposit
// still needs (partner.DepositSettings.Missing: carrier_legal_name,
// usdot_number, stripe_account), empty when eligible. Two operators
// editing one partner's settings at the same moment can overwrite each
// other (last write wins), as with rate cards.
//
// quote evidence prints a lead's current quote (the latest made) as stored
// and its acceptance: stage is the stage now (an open quote past its
// expiry is expired), shown_hash the hash of the terms the quote page
// showed (quote.Quote.ShownHash), and deposit_cents 0 when no deposit is
// asked for. acceptance is null until the customer accepts; a non-binding
// quote's acceptance (an email address) has evidence and evidence_hash
// null. A binding quote's signature carries its evidence, every field the
// evidence hash covers, in that order; evidence_hash_verified says whether
// hashing that evidence again (quote.Evidence.Hash) gives the
// evidence_hash recorded at signing (false when there is no evidence). It
// never shows the signature image itself: signature_key names it in the
// clip bucket.
//
// deposit simulate plays Stripe for one deposit, as `stripe trigger`
// would: it reads the deposit, builds the Stripe event that amounts to
// --event (stripepay.SimulatedEvent; paid and unpaid are
// checkout.session.completed, async_paid and async_failed its
// async_payment_succeeded and async_payment_failed, expired
// checkout.session.expired, refunded charge.refunded, disputed
// charge.dispute.created) on the deposit's connected account, with its
// session, amount and currency, its PaymentIntent (pi_sim_<deposit id>
// while none is known: Stripe names it in the checkout events) and the
// metadata CreateCheckout sets, dated now; signs it with the mode's
// signing secret as Stripe does (Stripe-Signature) and POSTs it to --url
// or the receiver of PUBLIC_BASE_URL. The event id is --event-id, or a
// fresh evt_sim_<24 hex>: give the id of an earlier run to simulate a
// redelivery. A redirect is not followed. The output is the event's id
// and Stripe type, the deposit, and the receiver's answer: its HTTP
// status and its body (JSON as sent; other text as a string of at most
// 1024 characters; none as null). An answer outside 2xx is printed all
// the same, followed by an error line (exit status 1). Beware --mode
// live: a receiver that trusts the signature books the lead as if the
// customer had paid.
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
// --limit below 1 or, for webhook deliveries, above 200, a --lead or
// --deposit with white space inside), an unknown beta feature, a webhook
// URL or deposit simulate --url that webhookhttp.CheckURL refuses (live mode
// needs https for a webhook endpoint), an unknown event type or deposit
// event, an --event-id that is not evt_ and letters, digits or
// underscores, a --delivery that is not a webhook-id, both or neither of
// --enable and --disable, rate-card values that fail RateCard.Validate, a
// capture link lifetime that is malformed, out of bounds (the message
// names the bounds) or given with --default, or a deposit setting that is
// malformed or out of bounds (a USDOT number, a Stripe account id, a
// default deposit, a checkout lifetime, a legal name). No
// command and an unknown command print the usage on stderr (an unknown
// command preceded by one error line); every other usage error prints one
// line.
//
// Exit status 1 means the command could not be carried out: TABLE_NAME
// unset, an unknown partner, key, survey, lead, deposit, webhook endpoint,
// delivery or event, a lead without a quote for quote evidence, a disabled
// endpoint for redeliver or test, the webhook sealing key unset, malformed
// or not this table's, STRIPE_WEBHOOK_SECRETS unset, malformed or without
// the mode's secret, PUBLIC_BASE_URL unset when deposit simulate has no
// --url, a receiver that cannot be reached or answers outside 2xx, a
// stored rate card that would still be invalid after the change, or a
// DynamoDB or Secrets Manager failure. It prints one line
// (after the line naming the table, once one was chosen).
//
// Every error line has the form "opctl: <message>"; stdout is then empty,
// except after deposit simulate's answer outside 2xx, which is printed
// first.
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
