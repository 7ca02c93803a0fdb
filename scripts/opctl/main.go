// Command opctl is the operator's tool for partners and their API keys: it
// creates partners, edits their rate cards, and creates, revokes and lists
// keys, writing straight to the service's DynamoDB table through package
// dynamo (the same store code the API uses).
//
//	go run ./scripts/opctl partner create --name NAME [--currency usd]
//	go run ./scripts/opctl partner rate-card --partner ID [--hourly-cents N] [--crew N] [--travel-cents-per-mile N] [--minimum-cents N]
//	go run ./scripts/opctl key create --partner ID --mode test|live [--scopes leads:read,leads:write,...]
//	go run ./scripts/opctl key revoke KEY_ID
//	go run ./scripts/opctl key list --partner ID
//
// # Configuration
//
// TABLE_NAME names the table and is required. Everything else comes from
// the AWS SDK's standard configuration (config.LoadDefaultConfig): region,
// credentials, and AWS_ENDPOINT_URL_DYNAMODB for DynamoDB Local.
//
// # Output and exit status
//
// On success opctl prints one JSON object, indented, on stdout and exits 0.
// Timestamps are RFC 3339 in UTC with six fractional digits, as the API
// reports them.
//
//	partner create     {"partner_id": "ptn_<16 hex>"}
//	partner rate-card  {"currency", "hourly_cents", "crew", "travel_cents_per_mile", "minimum_cents"}
//	key create         {"key_id", "key", "mode", "scopes"}  (the only time the key is shown)
//	key revoke         {"key_id", "revoked": true, "revoked_at"}
//	key list           {"partner_id", "keys": [{"key_id", "mode", "scopes", "created_at", "revoked_at"}]}
//
// In key list, revoked_at is null for a key in use; a revoked key keeps the
// time of its first revocation. Scopes are listed in the order of
// route.AllScopes, without repeats.
//
// Exit status 2 means the command line is wrong and nothing was read or
// written: an unknown command, flag or positional argument, a missing or
// invalid flag value, or rate-card values that fail RateCard.Validate.
// `opctl help`, no arguments, -h and an unknown command print the usage on
// stderr (an unknown command preceded by one error line); every other
// usage error prints one line.
//
// Exit status 1 means the command could not be carried out: TABLE_NAME
// unset, an unknown partner or key, a stored rate card that would still be
// invalid after the change, or a DynamoDB failure. It prints one line.
//
// Every error line has the form "opctl: <message>"; stdout is then empty.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
