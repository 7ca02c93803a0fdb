package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the command could not be carried out
	exitUsage   = 2 // the command line is wrong; nothing was read or written
)

// run carries out the command in args (without the program name). Only a
// command that needs the table calls resolve, which says where the table is
// (.local/dev.json of a running make dev, or the environment); run then
// prints one line on stderr naming the table, its endpoint and that origin.
// It writes the JSON result to stdout, or one error line (or, when the
// command is unknown or missing, the usage) to stderr, and returns the exit
// status. Asked for help, it prints the usage on stdout and returns 0.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, resolve func(context.Context) devfile.Choice) int {
	act, err := parse(args)
	switch {
	case errors.Is(err, errHelp):
		fmt.Fprint(stdout, usage())
		return exitOK
	case errors.Is(err, errNoCommand):
		fmt.Fprint(stderr, usage())
		return exitUsage
	case err != nil:
		fmt.Fprintln(stderr, errorLine(err))
		if errors.As(err, new(unknownCommandError)) {
			fmt.Fprint(stderr, usage())
		}
		return exitUsage
	}
	env := resolve(ctx)
	tgt, where, err := openTarget(ctx, env)
	if err != nil {
		fmt.Fprintln(stderr, errorLine(err))
		return exitFailure
	}
	fmt.Fprintln(stderr, where)
	out, err := act(ctx, tgt, time.Now())
	var shown shownError
	if errors.As(err, &shown) {
		out, err = shown.out, shown.err
	} else if err != nil {
		fmt.Fprintln(stderr, errorLine(err))
		return exitFailure
	}
	if werr := writeJSON(stdout, out); werr != nil {
		fmt.Fprintln(stderr, errorLine(werr))
		return exitFailure
	}
	if err != nil {
		fmt.Fprintln(stderr, errorLine(err))
		return exitFailure
	}
	return exitOK
}

// shownError is an action's failure that comes with a result to print all
// the same (deposit simulate's non-2xx answer from the receiver): run
// prints out on stdout, then err's line on stderr, and exits 1.
type shownError struct {
	out any
	err error
}

func (e shownError) Error() string { return e.err.Error() }

func (e shownError) Unwrap() error { return e.err }

// writeJSON writes out to w as indented JSON and a newline.
func writeJSON(w io.Writer, out any) error {
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// usingPrefix starts the line that names the table opctl uses.
const usingPrefix = "opctl: using table "

// openTarget returns a Store over the table named by TABLE_NAME in env
// and the events table EVENTS_TABLE_NAME names (unset: the local name,
// table.EventsName),
// with the region, credentials and DynamoDB endpoint env gives (each
// falling back to the AWS SDK's default configuration when unset), the
// loader of the webhook sealing key from the same environment (read only
// when called; see sealingKey), and the line "opctl: using table T at
// ENDPOINT, ORIGIN". It fails when TABLE_NAME is unset or the AWS
// configuration cannot be loaded.
func openTarget(ctx context.Context, env devfile.Choice) (target, string, error) {
	get := env.Getenv
	name := strings.TrimSpace(get(settings.Table))
	if name == "" {
		msg := settings.Table + " is not set; it must name the DynamoDB table"
		switch {
		case env.FromFile:
			msg += " (" + devfile.RelPath + " names none)"
		case env.Skipped != "":
			msg += " (make dev: " + env.Skipped + ")"
		}
		return target{}, "", errors.New(msg)
	}
	var opts []func(*config.LoadOptions) error
	if r := get("AWS_REGION"); r != "" {
		opts = append(opts, config.WithRegion(r))
	}
	if id, secret := get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(id, secret, get("AWS_SESSION_TOKEN"))))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return target{}, "", fmt.Errorf("load AWS config: %w", err)
	}
	endpoint := awsenv.Endpoint(get, "DYNAMODB")
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != nil {
			o.BaseEndpoint = endpoint
		}
	})
	at := "the AWS endpoint of " + cfg.Region
	if endpoint != nil {
		at = *endpoint
	}
	events := strings.TrimSpace(get(settings.EventsTable))
	if events == "" {
		events = table.EventsName(name)
	}
	tgt := target{Store: dynamo.NewWithEvents(db, name, events), sealer: sealerLoader(env, secretsManagerValue(cfg, get)), env: env}
	return tgt, fmt.Sprintf("%s%s at %s, %s", usingPrefix, name, at, env.Origin()), nil
}

// errorLine renders err as the single line "opctl: <message>". An
// upstream_failed error shows its cause (the SDK's error), which is what an
// operator needs and which the API would hide from a partner; any other
// coded error shows its message. Line breaks, including those of
// errors.Join, become "; " so that the result is always one line.
func errorLine(err error) string {
	msg := err.Error()
	if e := errcode.As(err); e != nil {
		switch {
		case e.Code == errcode.UpstreamFailed && e.Cause != nil:
			msg = "DynamoDB request failed: " + e.Cause.Error()
		case e.Code != errcode.UpstreamFailed:
			msg = e.Message
		}
	}
	lines := strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return "opctl: " + strings.Join(lines, "; ")
}

// usage returns the help text, built from the command table.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: opctl <command> [flags]   (make opctl builds ./opctl)\n\nCommands:\n")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-*s %s\n", width, c.name, c.synopsis)
	}
	fmt.Fprintf(&b, "  %-*s %s\n", width, "help", "print this text")
	scopes := make([]string, len(auth.AllScopes))
	for i, s := range auth.AllScopes {
		scopes[i] = string(s)
	}
	fmt.Fprintf(&b, "\nScopes (default: all): %s\n", strings.Join(scopes, ","))
	features := make([]string, len(partner.Features))
	for i, f := range partner.Features {
		features[i] = string(f)
	}
	fmt.Fprintf(&b, "Beta features: %s\n", strings.Join(features, ","))
	fmt.Fprintf(&b, "Capture link lifetime: a Go duration (72h, 90m) or days (14d), %s to %s;\n"+
		"default %s (--default resets to it; no flag shows the current one).\n",
		survey.MinTokenLifetime, survey.MaxTokenLifetime, survey.DefaultTokenLifetime)
	fmt.Fprintf(&b, "Deposit settings: --usdot 1 to %d digits; --stripe-account acct_...; --default-deposit-cents\n"+
		"%d to %d (0: none); --checkout-ttl a Go duration, %s to %s (0: the default, %s);\n"+
		"an empty text removes a setting; no flag shows them.\n",
		maxUSDOTDigits, deposit.MinAmountCents, deposit.MaxAmountCents, deposit.MinCheckoutTTL, deposit.MaxCheckoutTTL, deposit.DefaultCheckoutTTL)
	fmt.Fprintf(&b, "Deposit events (deposit simulate --event): %s\n", strings.ReplaceAll(eventNames(), "|", ","))
	types := make([]string, len(webhook.Catalogue))
	for i, k := range webhook.Catalogue {
		types[i] = string(k.Type)
	}
	fmt.Fprintf(&b, "Webhook event types (default: all): %s\n", strings.Join(types, ","))
	b.WriteString("A delivery is named by its webhook-id, msg_<event_id>_<endpoint_id> (webhook deliveries).\n")
	b.WriteString("\nEnvironment: inside the repository, while make dev runs, the variables of its\n" +
		devfile.RelPath + " (they win over stale ones in the environment); otherwise\n" +
		settings.Table + " (required) and the AWS SDK's standard variables (AWS_REGION,\n" +
		"credentials, AWS_ENDPOINT_URL_DYNAMODB). One line on stderr names the table used.\n" +
		"webhook add and rotate-secret also need the webhook sealing key: make dev's\n" +
		settings.WebhookSealingKey + ", else " + settings.WebhookSealingKeyARN + " (read from Secrets Manager) or\n" +
		settings.WebhookSealingKey + " (64 hex characters) from the environment.\n" +
		"deposit simulate signs with the --mode's secret in " + settings.StripeWebhookSecrets + "\n" +
		"({\"test\": \"whsec_...\", \"live\": \"whsec_...\"}) and posts to --url, else to\n" +
		settings.PublicBaseURL + "/stripe-webhook/MODE (make dev's, else the environment's).\n" +
		"Output: one JSON object on stdout. Exit status: 0 done (and for help),\n" +
		"1 failed, 2 usage error.\n")
	return b.String()
}
