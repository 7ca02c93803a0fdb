// Command invoke runs one function's handler by itself on one event, as
// `sam local invoke -e` would, without Docker: it builds the handler
// exactly as functions/<slug>/main.go does and invokes it through
// aws-lambda-go's handler wrapper with the event's JSON, then prints what
// the function returned on stdout: the response event of an HTTP function
// (an API Gateway HTTP API payload 2.0 event in); the batch response of a
// stream-triggered one (a DynamoDB stream event in), which lists the
// records that failed (batchItemFailures); null for an S3-triggered one
// (an S3 event notification in) and for a schedule-triggered one (an
// EventBridge scheduled event in), which return only an error.
//
//	go run ./scripts/invoke -function v1-leads -event events/v1-leads.valid.200.json
//	go run ./scripts/invoke -function clip-processor -event events/clip-processor.object-created.json
//	go run ./scripts/invoke -function webhook-dispatcher -event events/webhook-dispatcher.event-inserted.json
//	go run ./scripts/invoke -function webhook-retrier -event events/webhook-retrier.tick.json
//	go run ./scripts/invoke -function v1-mcp -event events/v1-mcp.tools-list.200.json -key dev
//
// It works from any directory inside the repository: -event is relative to
// the working directory. The event is sent as it is, so every sample in
// events/ answers with the status its name ends in, and the other samples
// succeed (make dev seeds the fixtures they use); -key KEY puts another key
// in an API Gateway event's Authorization header, or in its X-Partner-Key
// header for the agent tool server (v1-mcp), which reads the key there
// (-key dev: make dev's demo key). One exception: a Stripe webhook sample signed to verify
// (sample.Resign) is signed again now with the secret of its mode in
// STRIPE_WEBHOOK_SECRETS, since the receiver refuses a signature more than
// five minutes old; the bad-signature sample is sent as it is.
//
// Environment: while make dev runs, the variables of <repo
// root>/.local/dev.json (TABLE_NAME, CURSOR_SECRET, WEBHOOK_SEALING_KEY,
// CAPTURE_LINK_KEY,
// the DynamoDB Local endpoint, region, dummy credentials; CLIP_BUCKET,
// MinIO's endpoint and credentials, PUBLIC_BASE_URL; STRIPE_API_KEYS,
// STRIPE_WEBHOOK_SECRETS and stripe-mock's STRIPE_API_URL) win over the same
// variables in the
// environment, which may be left over from an earlier make dev on another
// port; otherwise the environment is used as it is. One line on stderr
// names the table and endpoint (and, for a function with a bucket grant,
// the bucket and its endpoint) and where they came from; the function's
// own log lines (and a scheduled job's metric line) go to stderr too.
//
// Exit status: 0 when an HTTP function answered below 500, a
// stream-triggered one reported no failed record, or another succeeded;
// 1 when the function answered 5xx, reported a failed record (Lambda would
// deliver it and the records after it again), or when the handler failed
// (an S3- or schedule-triggered function's error: Lambda would retry the
// event), or when the function could not be built or the event read; 2
// for a wrong command line (an unknown flag or function).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // 5xx, handler error, or setup failure
	exitUsage   = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	resolve := func(ctx context.Context) devfile.Choice { return devfile.Choose(ctx, os.Getenv) }
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, resolve, buildHandler)
	stop()
	os.Exit(code)
}

// run invokes the function named by args on its event and returns the
// exit status. resolve says where the environment comes from; its
// variables from dev.json are set in this process, which the handler
// reads as a Lambda function reads its environment. build returns the
// function's handler.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, resolve func(context.Context) devfile.Choice, build func(slug string) (any, error)) int {
	fs := flag.NewFlagSet("invoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	slug := fs.String("function", "", "function slug, e.g. v1-leads (required)")
	eventPath := fs.String("event", "", "path of the event JSON file, relative to the working directory (required)")
	key := fs.String("key", "", `put "Bearer KEY" in an API Gateway event's Authorization header (v1-mcp: KEY in X-Partner-Key) ("dev": make dev's demo key); default: send the event as it is`)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "invoke: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	case *slug == "" || *eventPath == "":
		fmt.Fprintln(stderr, "invoke: -function and -event are required")
		return exitUsage
	}
	f, known := manifest.BySlug(*slug)
	if !known {
		// A wrong command line, as the docs' exit status 2 says.
		fmt.Fprintf(stderr, "invoke: no function %q in the manifest (functions: %s)\n", *slug, strings.Join(runnable(), ", "))
		return exitUsage
	}
	if *key != "" && f.Trigger() != manifest.TriggerHTTP {
		fmt.Fprintf(stderr, "invoke: -key applies to API Gateway events; function %s is started by %s\n", f.Slug, f.Trigger())
		return exitUsage
	}

	payload, err := os.ReadFile(*eventPath)
	if err != nil {
		fmt.Fprintln(stderr, "invoke: read event:", err)
		return exitFailure
	}
	env := resolve(ctx)
	if env.FromFile {
		for k, v := range env.File.Env {
			if err := os.Setenv(k, v); err != nil {
				fmt.Fprintf(stderr, "invoke: set %s: %v\n", k, err)
				return exitFailure
			}
		}
	}
	if *key != "" {
		k := *key
		if k == "dev" {
			if !env.FromFile {
				fmt.Fprintln(stderr, "invoke: -key dev needs a running make dev:", env.Skipped)
				return exitFailure
			}
			k = env.File.APIKey
		}
		if payload, err = withKey(payload, f, k); err != nil {
			fmt.Fprintln(stderr, "invoke:", err)
			return exitFailure
		}
	}
	fmt.Fprintln(stderr, using(env, f))
	if signedByStripe(f) {
		// A stored sample's signature is older than the receiver's five
		// minutes: sign it again, as Stripe would send it now, with the
		// local endpoint's secret.
		var signed bool
		payload, signed, err = sample.Resign(payload, webhookSecrets(os.Getenv(settings.StripeWebhookSecrets)), time.Now())
		if err != nil {
			fmt.Fprintln(stderr, "invoke:", err)
			return exitFailure
		}
		if signed {
			fmt.Fprintf(stderr, "invoke: signed the sample Stripe event again now with %s's secret of its mode\n", settings.StripeWebhookSecrets)
		}
	}

	h, err := build(*slug)
	if err != nil {
		fmt.Fprintf(stderr, "invoke: build function %s: %v\n", *slug, err)
		return exitFailure
	}
	out, err := lambda.NewHandler(h).Invoke(ctx, payload)
	if err != nil {
		fmt.Fprintf(stderr, "invoke: function %s failed: %v\n", *slug, err)
		return exitFailure
	}
	if f.Stream != nil {
		return streamAnswer(*slug, out, stdout, stderr)
	}
	if f.Trigger() != manifest.TriggerHTTP {
		// The handler returns only an error: Lambda's answer is null.
		if _, err := fmt.Fprintln(stdout, strings.TrimSpace(string(out))); err != nil {
			fmt.Fprintln(stderr, "invoke: write response:", err)
			return exitFailure
		}
		return exitOK
	}
	return httpAnswer(*slug, out, stdout, stderr)
}

// httpAnswer prints an HTTP function's response event, indented, and
// returns the exit status: 1 when it is no response event or a 5xx.
func httpAnswer(slug string, out []byte, stdout, stderr io.Writer) int {
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		fmt.Fprintf(stderr, "invoke: function %s returned no response event: %v\n", slug, err)
		return exitFailure
	}
	if _, err := stdout.Write(indent(out)); err != nil {
		fmt.Fprintln(stderr, "invoke: write response:", err)
		return exitFailure
	}
	if resp.StatusCode >= 500 {
		fmt.Fprintf(stderr, "invoke: function %s answered %d\n", slug, resp.StatusCode)
		return exitFailure
	}
	return exitOK
}

// streamAnswer prints a stream-triggered function's batch response and
// returns the exit status: 1 when it reports a failed record.
func streamAnswer(slug string, out []byte, stdout, stderr io.Writer) int {
	var resp events.DynamoDBEventResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		fmt.Fprintf(stderr, "invoke: function %s returned no batch response: %v\n", slug, err)
		return exitFailure
	}
	if _, err := stdout.Write(indent(out)); err != nil {
		fmt.Fprintln(stderr, "invoke: write response:", err)
		return exitFailure
	}
	if n := len(resp.BatchItemFailures); n > 0 {
		fmt.Fprintf(stderr, "invoke: function %s reported %d failed record(s), from sequence number %s: Lambda would deliver it and the records after it again\n",
			slug, n, resp.BatchItemFailures[0].ItemIdentifier)
		return exitFailure
	}
	return exitOK
}

// indent returns JSON indented by two spaces, with a final newline; what
// is not JSON as it is.
func indent(b []byte) []byte {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", "  "); err != nil {
		pretty.Reset()
		pretty.Write(b)
	}
	pretty.WriteByte('\n')
	return pretty.Bytes()
}

// withKey returns the event payload with the key where f reads it: its
// Authorization header set to "Bearer key", or, for a function whose
// routes take the key in manifest.AgentKeyHeader (the agent tool server),
// that header set to key; either replaces any spelling of that header.
func withKey(payload []byte, f manifest.Function, key string) ([]byte, error) {
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("event is not an API Gateway payload 2.0 event: %w", err)
	}
	name, value := "authorization", "Bearer "+key
	if slices.ContainsFunc(f.HTTP, func(r manifest.Route) bool { return r.Auth == manifest.AuthAgentKey }) {
		name, value = strings.ToLower(manifest.AgentKeyHeader), key
	}
	for h := range ev.Headers {
		if strings.EqualFold(h, name) {
			delete(ev.Headers, h)
		}
	}
	if ev.Headers == nil {
		ev.Headers = map[string]string{}
	}
	ev.Headers[name] = value
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	return b, nil
}

// using is the line naming the table and endpoint the function f will
// use, and its bucket and S3 endpoint when its manifest entry grants it
// the clip bucket.
func using(env devfile.Choice, f manifest.Function) string {
	line := fmt.Sprintf("invoke: using table %s at %s", setting(env, settings.Table), endpoint(env, "DYNAMODB"))
	if len(f.Bucket.Read)+len(f.Bucket.Write) > 0 {
		line += fmt.Sprintf(" and bucket %s at %s", setting(env, settings.ClipBucket), endpoint(env, "S3"))
	}
	return line + ", " + env.Origin()
}

// setting is the value of the variable name, or says it is unset.
func setting(env devfile.Choice, name string) string {
	if v := env.Getenv(name); v != "" {
		return v
	}
	return "(none: " + name + " is unset)"
}

// endpoint is the endpoint the SDK uses for service (its environment
// name, e.g. DYNAMODB).
func endpoint(env devfile.Choice, service string) string {
	if e := awsenv.Endpoint(env.Getenv, service); e != nil {
		return *e
	}
	return "the AWS endpoint of the region"
}
