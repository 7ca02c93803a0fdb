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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/settings"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the command could not be carried out
	exitUsage   = 2 // the command line is wrong; nothing was read or written
)

// run carries out the command in args (without the program name), reading
// TABLE_NAME through env and the AWS configuration from the process
// environment. It writes the JSON result to stdout, or one error line (or,
// when help is asked for or the command is unknown, the usage) to stderr,
// and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env func(string) string) int {
	act, err := parse(args)
	if err != nil {
		if !errors.Is(err, errHelp) {
			fmt.Fprintln(stderr, errorLine(err))
		}
		if errors.Is(err, errHelp) || errors.As(err, new(unknownCommandError)) {
			fmt.Fprint(stderr, usage())
		}
		return exitUsage
	}
	store, err := openStore(ctx, env)
	if err != nil {
		fmt.Fprintln(stderr, errorLine(err))
		return exitFailure
	}
	out, err := act(ctx, store, time.Now())
	if err != nil {
		fmt.Fprintln(stderr, errorLine(err))
		return exitFailure
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, errorLine(fmt.Errorf("encode output: %w", err)))
		return exitFailure
	}
	if _, err := stdout.Write(append(b, '\n')); err != nil {
		fmt.Fprintln(stderr, errorLine(fmt.Errorf("write output: %w", err)))
		return exitFailure
	}
	return exitOK
}

// openStore returns a Store over the table named by TABLE_NAME, configured
// the way the Lambda functions are.
func openStore(ctx context.Context, env func(string) string) (*dynamo.Store, error) {
	name := strings.TrimSpace(env(settings.Table))
	if name == "" {
		return nil, errors.New(settings.Table + " is not set; it must name the DynamoDB table")
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	return dynamo.New(dynamodb.NewFromConfig(cfg), name), nil
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
	b.WriteString("usage: opctl <command> [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-17s %s\n", c.name, c.synopsis)
	}
	fmt.Fprintf(&b, "  %-17s %s\n", "help", "print this text")
	scopes := make([]string, len(manifest.AllScopes))
	for i, s := range manifest.AllScopes {
		scopes[i] = string(s)
	}
	fmt.Fprintf(&b, "\nScopes (default: all): %s\n", strings.Join(scopes, ","))
	b.WriteString("\nEnvironment: " + settings.Table + " (required) and the AWS SDK's standard variables\n" +
		"(AWS_REGION, credentials, AWS_ENDPOINT_URL_DYNAMODB).\n" +
		"Output: one JSON object on stdout. Exit status: 0 done, 1 failed, 2 usage error.\n")
	return b.String()
}
