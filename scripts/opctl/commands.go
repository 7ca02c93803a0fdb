package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
)

// action carries out a parsed command against s at time now and returns
// the value to print as JSON.
type action func(ctx context.Context, s target, now time.Time) (any, error)

// target is what an action works on: the table's store and, for the
// webhook commands that seal signing secrets, the sealing key's loader.
// The key is read only when an action asks for it, so every other command
// works without it.
type target struct {
	*dynamo.Store
	// sealer returns the Sealer over the webhook sealing key
	// (manifest.SecretWebhookSealing), or why there is none.
	sealer func(context.Context) (sealing, error)
	// env is the environment opctl chose (dev.json's variables first
	// while make dev runs), from which deposit simulate reads the Stripe
	// webhook signing secrets and the public base URL, when it runs.
	env devfile.Choice
}

// command is one "<group> <verb>" of opctl.
type command struct {
	name     string // e.g. "key create"
	synopsis string // flags and arguments, for the usage text
	// parse reads args (what follows the name) into fs and checks them
	// without touching the table; it returns a usageError on bad input.
	parse func(fs *flag.FlagSet, args []string) (action, error)
}

// commands is the command table; parse dispatches on it and usage lists it.
var commands = []command{
	{"partner create", "--name NAME [--currency usd]", parsePartnerCreate},
	{"partner rate-card", "--partner ID [--hourly-cents N] [--crew N] [--travel-cents-per-mile N] [--minimum-cents N]", parseRateCard},
	{"partner beta", "--partner ID (--enable FEATURE,... | --disable FEATURE,...)", parsePartnerBeta},
	{"partner capture-link", "--partner ID [--lifetime DURATION | --default]", parseCaptureLink},
	{"partner deposits", "--partner ID [--carrier-legal-name S] [--usdot N] [--stripe-account acct_...] [--default-deposit-cents N] [--checkout-ttl DURATION]", parsePartnerDeposits},
	{"key create", "--partner ID --mode test|live [--scopes SCOPE,...]", parseKeyCreate},
	{"key revoke", "KEY_ID", parseKeyRevoke},
	{"key list", "--partner ID", parseKeyList},
	{"survey grants", "--survey ID", parseSurveyGrants},
	{"survey opens", "--survey ID [--limit N]", parseSurveyOpens},
	{"quote evidence", "--partner ID --mode test|live --lead LEAD_ID", parseQuoteEvidence},
	{"deposit simulate", "--partner ID --mode test|live --deposit DEPOSIT_ID --event EVENT [--url URL] [--event-id evt_...]", parseDepositSimulate},
	{"webhook add", "--partner ID --mode test|live --url URL [--events TYPE,...]", parseWebhookAdd},
	{"webhook list", "--partner ID [--mode test|live]", parseWebhookList},
	{"webhook disable", "--endpoint ID", parseWebhookDisable},
	{"webhook enable", "--endpoint ID", parseWebhookEnable},
	{"webhook rotate-secret", "--endpoint ID", parseWebhookRotate},
	{"webhook deliveries", "--endpoint ID [--limit N]", parseWebhookDeliveries},
	{"webhook redeliver", "--delivery WEBHOOK_ID", parseWebhookRedeliver},
	{"webhook test", "--endpoint ID", parseWebhookTest},
	{"webhook replay", "--partner ID --mode test|live --event EVENT_ID", parseWebhookReplay},
	{"dashboard invite", "--partner ID --email E --role admin|viewer", parseDashboardInvite},
	{"audit", "--partner ID [--limit N]", parseAudit},
}

// errHelp asks for the usage text: `opctl help`, -h or --help, alone or
// after a command. It is not a usage error: exit status 0.
var errHelp = errors.New("help requested")

// errNoCommand is an empty command line: the usage, exit status 2.
var errNoCommand = errors.New("no command given; see opctl help")

// usageError is a mistake on the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// unknownCommandError names a command that is not in the table; the usage
// text follows it.
type unknownCommandError struct{ name string }

func (e unknownCommandError) Error() string {
	return fmt.Sprintf("unknown command %q; see opctl help", e.name)
}

// usagef returns a usageError prefixed with the command's name.
func usagef(fs *flag.FlagSet, format string, args ...any) error {
	return usageError{fs.Name() + ": " + fmt.Sprintf(format, args...)}
}

// parse finds the command named by the first two words of args and parses
// the rest. It returns errHelp when help is asked for, and errNoCommand, an
// unknownCommandError or a usageError on bad input; it reads nothing from
// the table.
func parse(args []string) (action, error) {
	if len(args) == 0 {
		return nil, errNoCommand
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return nil, errHelp
	}
	for _, c := range commands {
		// A command is one word (audit) or two (key create).
		n := strings.Count(c.name, " ") + 1
		if len(args) >= n && c.name == strings.Join(args[:n], " ") {
			fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			return c.parse(fs, args[n:])
		}
	}
	return nil, unknownCommandError{strings.Join(args[:min(2, len(args))], " ")}
}

// parseFlags parses args into fs and returns the positional arguments. A
// flag error becomes a usageError; -h becomes errHelp.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp
		}
		return nil, usagef(fs, "%v", err)
	}
	return fs.Args(), nil
}

// parseNoArgs parses args into fs and refuses positional arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(fs, "unexpected argument %q", rest[0])
	}
	return nil
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// requiredID returns the trimmed value of the flag named name, or a
// usageError when it is blank.
func requiredID(fs *flag.FlagSet, name, value string) (string, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return "", usagef(fs, "--%s is required", name)
	}
	return v, nil
}

// maxIDLen bounds the ids plainID reads (leads and deposits have UUIDs,
// 36 characters): anything much longer is a paste gone wrong.
const maxIDLen = 128

// plainID returns the trimmed value of the required flag named name: an
// id without white space or control characters inside, at most maxIDLen
// bytes long. It returns a usageError otherwise.
func plainID(fs *flag.FlagSet, name, value string) (string, error) {
	id, err := requiredID(fs, name, value)
	if err != nil {
		return "", err
	}
	if strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "", usagef(fs, "--%s %q is not an id: it contains white space or control characters", name, id)
	}
	if len(id) > maxIDLen {
		return "", usagef(fs, "--%s is %d bytes long; an id has at most %d", name, len(id), maxIDLen)
	}
	return id, nil
}

// modeFlag reads a --mode value: test or live.
// tenantFlags declares the required --partner and --mode flags on fs and
// returns what reads them into a tenant once fs is parsed.
func tenantFlags(fs *flag.FlagSet) func() (auth.Tenant, error) {
	id := fs.String("partner", "", "partner id (required)")
	modeName := fs.String("mode", "", "test or live (required)")
	return func() (auth.Tenant, error) {
		partnerID, err := requiredID(fs, "partner", *id)
		if err != nil {
			return auth.Tenant{}, err
		}
		mode, err := modeFlag(fs, *modeName)
		if err != nil {
			return auth.Tenant{}, err
		}
		return auth.Tenant{PartnerID: partnerID, Mode: mode}, nil
	}
}

func modeFlag(fs *flag.FlagSet, value string) (auth.Mode, error) {
	if value == "" {
		return "", usagef(fs, "--mode is required (test or live)")
	}
	mode, err := auth.ParseMode(value)
	if err != nil {
		return "", usagef(fs, "--mode: %v", err)
	}
	return mode, nil
}
