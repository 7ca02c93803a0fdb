package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
)

// fixtureTable is a table on the test's DynamoDB Local holding the sample
// events' fixtures (sample.Seed), as make dev seeds them; fixtureBucket is
// a bucket on the test's MinIO holding the fixture clip's object
// (sample.PutClipObject).
var fixtureTable, fixtureBucket string

func TestMain(m *testing.M) {
	err := setUp()
	if err == nil {
		code := m.Run()
		tearDown()
		os.Exit(code)
	}
	fmt.Fprintln(os.Stderr, err)
	tearDown()
	os.Exit(1)
}

// tearDown stops what setUp started, last first.
var tearDown = func() {}

func setUp() error {
	endpoint, stopDB, err := dynamolocal.ForTests()
	if err != nil {
		return err
	}
	tearDown = stopDB
	dynamolocal.SetEnv(endpoint)
	srv, stopS3, err := s3local.ForTests()
	if err != nil {
		return err
	}
	tearDown = func() { stopS3(); stopDB() }
	s3local.SetEnv(srv) // after dynamolocal's: MinIO checks the credentials
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	db := dynamodb.NewFromConfig(cfg)
	fixtureTable = fmt.Sprintf("invoke-%d", time.Now().UnixNano())
	if err := dynamo.CreateTables(ctx, db, fixtureTable); err != nil {
		return err
	}
	if err := sample.Seed(ctx, dynamo.New(db, fixtureTable)); err != nil {
		return err
	}
	client := srv.Client()
	fixtureBucket = fmt.Sprintf("invoke-clips-%d", time.Now().UnixNano())
	if err := s3local.CreateBucket(ctx, client, s3local.Bucket{Name: fixtureBucket}); err != nil {
		return err
	}
	tearDown = func() {
		for _, key := range sample.ClipKeys() {
			_, _ = client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(fixtureBucket), Key: aws.String(key)})
		}
		_, _ = client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(fixtureBucket)})
		stopS3()
		stopDB()
	}
	if err := sample.PutClipObject(ctx, client, fixtureBucket); err != nil {
		return err
	}
	os.Setenv(settings.Table, fixtureTable)
	os.Setenv(settings.CursorSecret, strings.Repeat("ab", 32))
	os.Setenv(settings.WebhookSealingKey, strings.Repeat("cd", 32))
	os.Setenv(settings.CaptureLinkKey, strings.Repeat("ef", 32))
	os.Setenv(settings.ClipBucket, fixtureBucket)
	os.Setenv(settings.PublicBaseURL, "http://127.0.0.1:3000")
	// The deposit functions reach stripe-mock, with make dev's kind of
	// settings: its test key, a webhook secret per mode.
	stripe, stopStripe, err := stripelocal.ForTests()
	if err != nil {
		return err
	}
	stopRest := tearDown
	tearDown = func() { stopStripe(); stopRest() }
	stripelocal.SetEnv(stripe)
	os.Setenv(settings.StripeAPIKeys, `{"test":"`+stripelocal.SecretKey+`","live":""}`)
	os.Setenv(settings.StripeWebhookSecrets, `{"test":"whsec_invoke_test","live":"whsec_invoke_live"}`)
	return nil
}

// fromEnvironment resolves to the process environment, never to a
// developer's .local/dev.json.
func fromEnvironment(context.Context) devfile.Choice { return devfile.Choice{Getenv: os.Getenv} }

// invocation is one run of invoke.
type invocation struct {
	code           int
	stdout, stderr string
	resp           events.APIGatewayV2HTTPResponse
}

func invoke(t *testing.T, resolve func(context.Context) devfile.Choice, build func(string) (any, error), args ...string) invocation {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr, resolve, build)
	inv := invocation{code: code, stdout: stdout.String(), stderr: stderr.String()}
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &inv.resp); err != nil {
			t.Fatalf("invoke %q: stdout %q is not a response event: %v", args, stdout.String(), err)
		}
	}
	return inv
}

// eventFiles returns the sample events, by path.
func eventFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "events", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample events in events/: %v", err)
	}
	return files
}

// TestSamplesAnswerAsNamed invokes every sample event as the README shows,
// with no extra flag: each API Gateway sample must answer the status its
// name ends in (the 401 samples carry no or an unknown key, the others the
// fixture's), each S3 and scheduled sample must succeed, printing Lambda's
// null, each stream sample must report no failed record, and invoke must
// exit 0 for all of them (none is a 5xx or a failure).
func TestSamplesAnswerAsNamed(t *testing.T) {
	for _, path := range eventFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			slug, _, status, err := sample.ParseFileName(name)
			if err != nil {
				t.Fatal(err)
			}
			inv := invoke(t, fromEnvironment, buildHandler, "-function", slug, "-event", path)
			f, _ := manifest.BySlug(slug)
			wantLine := "invoke: using table " + fixtureTable + " at "
			switch f.Trigger() {
			case manifest.TriggerS3:
				if inv.code != exitOK || inv.stdout != "null\n" || !strings.HasPrefix(inv.stderr, wantLine) ||
					!strings.Contains(inv.stderr, " and bucket "+fixtureBucket+" at ") {
					t.Errorf("exit %d, stdout %q, stderr %q; want 0, null, and the table and bucket named", inv.code, inv.stdout, inv.stderr)
				}
				checkClipDecided(t)
				return
			case manifest.TriggerSchedule:
				if inv.code != exitOK || inv.stdout != "null\n" || !strings.HasPrefix(inv.stderr, wantLine) {
					t.Errorf("exit %d, stdout %q, stderr %q; want 0, null, and the table named", inv.code, inv.stdout, inv.stderr)
				}
				return
			case manifest.TriggerQueue:
				var resp events.SQSEventResponse
				if err := json.Unmarshal([]byte(inv.stdout), &resp); err != nil || len(resp.BatchItemFailures) != 0 ||
					inv.code != exitOK || !strings.HasPrefix(inv.stderr, wantLine) {
					t.Errorf("exit %d, stdout %q (%v), stderr %q; want 0, no failed message, and the table named", inv.code, inv.stdout, err, inv.stderr)
				}
				return
			case manifest.TriggerStream:
				var resp events.DynamoDBEventResponse
				if err := json.Unmarshal([]byte(inv.stdout), &resp); err != nil || len(resp.BatchItemFailures) != 0 ||
					inv.code != exitOK || !strings.HasPrefix(inv.stderr, wantLine) {
					t.Errorf("exit %d, stdout %q (%v), stderr %q; want 0, no failed record, and the table named", inv.code, inv.stdout, err, inv.stderr)
				}
				return
			}
			if inv.resp.StatusCode != status {
				t.Errorf("status %d; want %d (body %s)", inv.resp.StatusCode, status, inv.resp.Body)
			}
			if inv.code != exitOK {
				t.Errorf("exit %d; want 0 (stderr %q)", inv.code, inv.stderr)
			}
			if !strings.HasPrefix(inv.stderr, "invoke: using table "+fixtureTable+" at ") {
				t.Errorf("stderr %q; want it to start by naming table %s", inv.stderr, fixtureTable)
			}
		})
	}
}

// checkClipDecided checks that the fixture clip in fixtureTable was
// decided playable: the clip processor read its object from
// fixtureBucket.
func checkClipDecided(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	store := dynamo.New(dynamodb.NewFromConfig(cfg), fixtureTable)
	c, err := store.GetClip(ctx, auth.Tenant{PartnerID: sample.PartnerID, Mode: auth.Test}, sample.FinishSurveyID, sample.ClipID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != survey.ClipPlayable {
		t.Errorf("fixture clip %s (%s); want playable", c.Status, c.RejectReason)
	}
}

// TestRelativeToWorkingDirectory runs invoke from events/ with a bare file
// name.
func TestRelativeToWorkingDirectory(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", "events"))
	inv := invoke(t, fromEnvironment, buildHandler, "-function", "v1-lead-get", "-event", "v1-lead-get.valid.200.json")
	if inv.code != exitOK || inv.resp.StatusCode != 200 {
		t.Errorf("exit %d, status %d (stderr %q); want 0 and 200", inv.code, inv.resp.StatusCode, inv.stderr)
	}
}

func TestKeyFlag(t *testing.T) {
	event := filepath.Join("..", "..", "events", "v1-lead-get.valid.200.json")
	t.Run("explicit key replaces the event's", func(t *testing.T) {
		inv := invoke(t, fromEnvironment, buildHandler, "-function", "v1-lead-get", "-event", event, "-key", sample.UnknownAPIKey)
		if inv.resp.StatusCode != 401 || inv.code != exitOK {
			t.Errorf("status %d, exit %d; want 401 and exit 0", inv.resp.StatusCode, inv.code)
		}
	})
	t.Run("dev key without make dev", func(t *testing.T) {
		inv := invoke(t, func(context.Context) devfile.Choice {
			return devfile.Choice{Getenv: os.Getenv, Skipped: "no .local/dev.json"}
		}, buildHandler, "-function", "v1-lead-get", "-event", event, "-key", "dev")
		if inv.code != exitFailure || !strings.Contains(inv.stderr, "-key dev needs a running make dev: no .local/dev.json") {
			t.Errorf("exit %d, stderr %q; want 1 and a message that make dev is not running", inv.code, inv.stderr)
		}
	})
}

func TestWithKey(t *testing.T) {
	tests := []struct {
		name    string
		headers map[string]string
	}{
		{"no headers", nil},
		{"lower case", map[string]string{"authorization": "Bearer old"}},
		{"other spelling", map[string]string{"Authorization": "Bearer old", "x-other": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := json.Marshal(events.APIGatewayV2HTTPRequest{Headers: tt.headers})
			out, err := withKey(in, manifest.Function{}, "mk_test_new")
			if err != nil {
				t.Fatal(err)
			}
			var ev events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal(out, &ev); err != nil {
				t.Fatal(err)
			}
			auth := 0
			for k, v := range ev.Headers {
				if strings.EqualFold(k, "authorization") {
					auth++
					if v != "Bearer mk_test_new" {
						t.Errorf("%s = %q; want Bearer mk_test_new", k, v)
					}
				}
			}
			if auth != 1 {
				t.Errorf("headers %v; want exactly one Authorization", ev.Headers)
			}
		})
	}
	if _, err := withKey([]byte("[1]"), manifest.Function{}, "k"); err == nil {
		t.Error("withKey of a non-object succeeded; want an error")
	}
}

// TestWithKeyForTheAgentToolServer: the agent tool server reads the key
// in X-Partner-Key, so -key puts it there (replacing any spelling of it)
// and leaves Authorization, the MCP client's own, as it is.
func TestWithKeyForTheAgentToolServer(t *testing.T) {
	f, ok := manifest.BySlug(manifest.AgentToolsSlug)
	if !ok {
		t.Fatalf("no function %s", manifest.AgentToolsSlug)
	}
	in, _ := json.Marshal(events.APIGatewayV2HTTPRequest{Headers: map[string]string{"X-Partner-Key": "old", "authorization": "Bearer client-own"}})
	out, err := withKey(in, f, "mk_test_new")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(out, &ev); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"x-partner-key": "mk_test_new", "authorization": "Bearer client-own"}; !maps.Equal(ev.Headers, want) {
		t.Errorf("headers %v; want %v", ev.Headers, want)
	}
}

// TestKeyFlagForTheAgentToolServer: -key with the agent tool server's
// sample answers as the key does, an unknown one 401, the fixture's 200,
// whatever key the sample carried.
func TestKeyFlagForTheAgentToolServer(t *testing.T) {
	for _, tt := range []struct {
		event, key string
		status     int
	}{
		{"v1-mcp.tools-list.200.json", sample.UnknownAPIKey, 401},
		{"v1-mcp.missing-key.401.json", sample.APIKey, 200},
	} {
		event := filepath.Join("..", "..", "events", tt.event)
		inv := invoke(t, fromEnvironment, buildHandler, "-function", manifest.AgentToolsSlug, "-event", event, "-key", tt.key)
		if inv.resp.StatusCode != tt.status || inv.code != exitOK {
			t.Errorf("%s with -key: status %d, exit %d (body %s, stderr %q); want %d and exit 0", tt.event, inv.resp.StatusCode, inv.code, inv.resp.Body, inv.stderr, tt.status)
		}
	}
}

// TestServerErrorExitsNonZero points the function at a table that does not
// exist: DynamoDB fails, the function answers 5xx, and invoke still prints
// the response but exits 1.
func TestServerErrorExitsNonZero(t *testing.T) {
	t.Setenv(settings.Table, "invoke-no-such-table")
	event := filepath.Join("..", "..", "events", "v1-lead-get.valid.200.json")
	inv := invoke(t, fromEnvironment, buildHandler, "-function", "v1-lead-get", "-event", event)
	if inv.resp.StatusCode < 500 {
		t.Fatalf("status %d; want a 5xx from a missing table (stderr %q)", inv.resp.StatusCode, inv.stderr)
	}
	if inv.code != exitFailure || !strings.Contains(inv.stderr, fmt.Sprintf("invoke: function v1-lead-get answered %d", inv.resp.StatusCode)) {
		t.Errorf("exit %d, stderr %q; want 1 and a line naming the status", inv.code, inv.stderr)
	}
}

func TestHandlerErrorExitsNonZero(t *testing.T) {
	failing := func(string) (any, error) {
		return func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{}, errors.New("boom")
		}, nil
	}
	event := filepath.Join("..", "..", "events", "v1-lead-get.valid.200.json")
	inv := invoke(t, fromEnvironment, failing, "-function", "v1-lead-get", "-event", event)
	if inv.code != exitFailure || !strings.Contains(inv.stderr, "invoke: function v1-lead-get failed: ") || inv.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, no response and the handler's error", inv.code, inv.stdout, inv.stderr)
	}
}

func TestUsageAndSetupErrors(t *testing.T) {
	event := filepath.Join("..", "..", "events", "v1-lead-get.valid.200.json")
	s3Event := filepath.Join("..", "..", "events", "clip-processor.object-created.json")
	streamEvent := filepath.Join("..", "..", "events", "webhook-dispatcher.event-inserted.json")
	scheduleEvent := filepath.Join("..", "..", "events", "webhook-retrier.tick.json")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"no flags", nil, exitUsage, "-function and -event are required"},
		{"no event", []string{"-function", "v1-lead-get"}, exitUsage, "-function and -event are required"},
		{"positional", []string{"-function", "v1-lead-get", "-event", event, "extra"}, exitUsage, `unexpected argument "extra"`},
		{"unknown flag", []string{"-fn", "x"}, exitUsage, "flag provided but not defined"},
		{"help", []string{"-h"}, exitOK, "-function"},
		{"missing event file", []string{"-function", "v1-lead-get", "-event", "no-such.json"}, exitFailure, "invoke: read event:"},
		{"unknown function", []string{"-function", "v9-nothing", "-event", event}, exitUsage, `no function "v9-nothing" in the manifest (functions: clip-processor, dashboard, route-not-found, `},
		{"key for an S3 event", []string{"-function", "clip-processor", "-event", s3Event, "-key", "dev"}, exitUsage, "-key applies to API Gateway events; function clip-processor is started by S3"},
		{"key for a stream event", []string{"-function", "webhook-dispatcher", "-event", streamEvent, "-key", "dev"}, exitUsage,
			"-key applies to API Gateway events; function webhook-dispatcher is started by DynamoDB"},
		{"key for a scheduled event", []string{"-function", "webhook-retrier", "-event", scheduleEvent, "-key", "dev"}, exitUsage,
			"-key applies to API Gateway events; function webhook-retrier is started by Schedule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := invoke(t, fromEnvironment, buildHandler, tt.args...)
			if inv.code != tt.wantCode || !strings.Contains(inv.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", inv.code, inv.stderr, tt.wantCode, tt.want)
			}
		})
	}
}

// TestDevFileWins checks that a running make dev's variables replace stale
// ones in the process environment before the function is built, and that
// the line on stderr says so.
func TestDevFileWins(t *testing.T) {
	t.Setenv(settings.Table, "stale-table")
	endpoint := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	choice := devfile.Choice{
		Getenv:   os.Getenv,
		FromFile: true,
		File:     devfile.File{PID: 4242, Env: map[string]string{settings.Table: fixtureTable, "AWS_ENDPOINT_URL_DYNAMODB": endpoint}},
	}
	// The choice's Getenv reads the process environment, which run sets
	// from the file.
	event := filepath.Join("..", "..", "events", "v1-lead-get.valid.200.json")
	inv := invoke(t, func(context.Context) devfile.Choice { return choice }, buildHandler, "-function", "v1-lead-get", "-event", event)
	if inv.code != exitOK || inv.resp.StatusCode != 200 {
		t.Errorf("exit %d, status %d (stderr %q); want 0 and 200 from dev.json's table", inv.code, inv.resp.StatusCode, inv.stderr)
	}
	want := "invoke: using table " + fixtureTable + " at " + endpoint + ", from .local/dev.json of make dev (pid 4242)\n"
	if !strings.HasPrefix(inv.stderr, want) {
		t.Errorf("stderr %q; want it to start %q", inv.stderr, want)
	}
}

// TestS3HandlerErrorExitsNonZero points the clip processor at a table that
// does not exist: reading the clip fails, the handler returns the error
// (Lambda would retry the event), and invoke prints nothing on stdout and
// exits 1.
func TestS3HandlerErrorExitsNonZero(t *testing.T) {
	t.Setenv(settings.Table, "invoke-no-such-table")
	event := filepath.Join("..", "..", "events", "clip-processor.object-created.json")
	inv := invoke(t, fromEnvironment, buildHandler, "-function", "clip-processor", "-event", event)
	if inv.code != exitFailure || inv.stdout != "" || !strings.Contains(inv.stderr, "invoke: function clip-processor failed: ") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing and the handler's error", inv.code, inv.stdout, inv.stderr)
	}
}

// TestS3FunctionNeedsBucket: without CLIP_BUCKET the clip processor
// cannot be built, and invoke says why.
func TestS3FunctionNeedsBucket(t *testing.T) {
	t.Setenv(settings.ClipBucket, "")
	event := filepath.Join("..", "..", "events", "clip-processor.object-created.json")
	inv := invoke(t, fromEnvironment, buildHandler, "-function", "clip-processor", "-event", event)
	if inv.code != exitFailure || !strings.Contains(inv.stderr, "bucket (none: CLIP_BUCKET is unset)") ||
		!strings.Contains(inv.stderr, "invoke: build function clip-processor: CLIP_BUCKET is not set") {
		t.Errorf("exit %d, stderr %q; want 1, the unset bucket named and the build error", inv.code, inv.stderr)
	}
}

// TestStreamFailureExitsNonZero points the dispatcher at a table that does
// not exist: listing the partner's endpoints fails, the handler reports
// the record failed (Lambda would deliver it again), and invoke prints the
// batch response and exits 1.
func TestStreamFailureExitsNonZero(t *testing.T) {
	t.Setenv(settings.Table, "invoke-no-such-table")
	event := filepath.Join("..", "..", "events", "webhook-dispatcher.event-inserted.json")
	inv := invoke(t, fromEnvironment, buildHandler, "-function", "webhook-dispatcher", "-event", event)
	var resp events.DynamoDBEventResponse
	if err := json.Unmarshal([]byte(inv.stdout), &resp); err != nil || len(resp.BatchItemFailures) != 1 {
		t.Errorf("stdout %q (%v); want a batch response with the one record failed", inv.stdout, err)
	}
	if inv.code != exitFailure || !strings.Contains(inv.stderr, "invoke: function webhook-dispatcher reported 1 failed record(s)") {
		t.Errorf("exit %d, stderr %q; want 1 and a line naming the failed record", inv.code, inv.stderr)
	}
}

// TestScheduleFailureExitsNonZero points the retrier at a table that does
// not exist: finding the due deliveries fails, the handler returns the
// error (Lambda would retry the tick), and invoke prints nothing on
// stdout and exits 1.
func TestScheduleFailureExitsNonZero(t *testing.T) {
	t.Setenv(settings.Table, "invoke-no-such-table")
	event := filepath.Join("..", "..", "events", "webhook-retrier.tick.json")
	inv := invoke(t, fromEnvironment, buildHandler, "-function", "webhook-retrier", "-event", event)
	if inv.code != exitFailure || inv.stdout != "" || !strings.Contains(inv.stderr, "invoke: function webhook-retrier failed: ") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing and the handler's error", inv.code, inv.stdout, inv.stderr)
	}
}

// TestEveryFunctionRuns: invoke can build every function of the manifest
// (package catalog lists the builder of each, by trigger), and each
// catalog map names functions of its trigger only.
func TestEveryFunctionRuns(t *testing.T) {
	for _, f := range manifest.Functions {
		t.Run(f.Slug, func(t *testing.T) {
			h, err := buildHandler(f.Slug)
			if err != nil || h == nil {
				t.Errorf("buildHandler(%q) = %v, %v; want a handler", f.Slug, h, err)
			}
		})
	}
	check := func(what string, slugs []string, is func(manifest.Function) bool) {
		for _, slug := range slugs {
			if f, ok := manifest.BySlug(slug); !ok || !is(f) {
				t.Errorf("%s names %q, which is not such a function of the manifest", what, slug)
			}
		}
	}
	check("catalog.S3Processors", slices.Collect(maps.Keys(catalog.S3Processors())), func(f manifest.Function) bool { return f.S3 != nil })
	check("catalog.StreamProcessors", slices.Collect(maps.Keys(catalog.StreamProcessors())), func(f manifest.Function) bool { return f.Stream != nil })
	check("catalog.QueueProcessors", slices.Collect(maps.Keys(catalog.QueueProcessors())), func(f manifest.Function) bool { return f.Queue != nil })
	check("catalog.Jobs", slices.Collect(maps.Keys(catalog.Jobs())), func(f manifest.Function) bool { return f.Schedule != nil })
}

// TestEveryTriggerHasASample: invoke's samples cover every kind of
// trigger of the manifest, so TestSamplesAnswerAsNamed runs each kind.
func TestEveryTriggerHasASample(t *testing.T) {
	has := map[manifest.TriggerKind]bool{}
	for _, path := range eventFiles(t) {
		slug, _, _, err := sample.ParseFileName(filepath.Base(path))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := manifest.BySlug(slug)
		has[f.Trigger()] = true
	}
	for _, f := range manifest.Functions {
		if !has[f.Trigger()] {
			t.Errorf("no sample event in events/ for a %s function (%s)", f.Trigger(), f.Slug)
		}
	}
}
