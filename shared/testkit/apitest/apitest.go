// Package apitest is the integration-test harness of the partner API: a
// fresh DynamoDB Local table per test, the real handler behind the local
// API Gateway on a loopback HTTP server, partners and keys made through the
// same store code the operator CLI uses, and a settable clock. Tests import
// it; production code never does.
package apitest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/localgw"
	"github.com/moveleads/partnerapi/shared/local/queuelocal"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/testkit/openapitest"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
)

// Clock is a settable clock; its zero value follows real time.
type Clock struct {
	mu    sync.Mutex
	fixed time.Time
}

// Now returns the set time, or time.Now when none is set.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fixed.IsZero() {
		return time.Now()
	}
	return c.fixed
}

// Set fixes the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.fixed = t
	c.mu.Unlock()
}

// Advance moves a fixed clock by d (fixing it at now+d first if unset).
func (c *Clock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// tick moves a fixed clock by d and leaves one that follows real time
// alone.
func (c *Clock) tick(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fixed.IsZero() {
		c.fixed = c.fixed.Add(d)
	}
}

// Env is one test's stack.
type Env struct {
	DB     *dynamodb.Client
	Store  *dynamo.Store
	Stack  *catalog.Stack
	Server *httptest.Server
	// Bucket is the Env's clip bucket (Options.S3).
	Bucket string
	// S3 is a client of the test binary's MinIO (Options.S3).
	S3    *s3.Client
	Clock *Clock
	Logs  *SyncBuffer
	// Client talks to Server.
	Client *http.Client
	// Secret is the value of every secret of the stack but Stripe's (the
	// cursor secret, the webhook sealing key), for a process that must
	// share them (the agent tool server's stdio transport).
	Secret []byte
	spec   *openapitest.Validator
}

// Options adjust an Env.
type Options struct {
	// HTTPClient is the DynamoDB client's HTTP client (e.g. one that injects
	// faults); nil for the SDK default.
	HTTPClient aws.HTTPClient
	// DynamoDB adjusts the DynamoDB client (e.g. dynamometer's middleware).
	DynamoDB func(*dynamodb.Options)
	// IdempotencyWait overrides how long a duplicate waits.
	IdempotencyWait time.Duration
	// SettingsTTL overrides how long partner settings are cached.
	SettingsTTL time.Duration
	// S3 gives the Env its own clip bucket on the test binary's MinIO
	// (see MainS3), whose object-created events reach the stack's clip
	// processor, and sets CLIP_BUCKET and PUBLIC_BASE_URL (also in the
	// process environment, for subprocesses, unless Parallel).
	S3 bool
	// Parallel keeps the Env's settings out of the process environment
	// (no t.Setenv): they reach its stack only, so the test may call
	// t.Parallel, and a subprocess it starts does not get them.
	Parallel bool
	// Dashboard sets PUBLIC_BASE_URL to the Env's server, which the
	// dashboard function needs; S3 sets it too.
	Dashboard bool
	// Detector is the clip processor's frame detector (the local sidecar:
	// shared/local/detectlocal); nil records frames as not analysed.
	Detector inventory.Detector
	// Webhooks delivers webhooks as make dev does (see runWebhooks): the
	// events table gets its stream, and test-mode deliveries may reach
	// loopback receivers (settings.WebhookAllowLoopback, never deployed).
	Webhooks bool
}

var tableSeq atomic.Int64

// New returns an Env over a fresh table on the DynamoDB Local that the test
// binary's TestMain configured through AWS_ENDPOINT_URL_DYNAMODB.
func New(t testing.TB, opts ...Options) *Env {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatalf("load AWS config: %v", err)
	}
	if o.HTTPClient != nil {
		cfg.HTTPClient = o.HTTPClient
	}
	var optFns []func(*dynamodb.Options)
	if o.DynamoDB != nil {
		optFns = append(optFns, o.DynamoDB)
	}
	db := dynamodb.NewFromConfig(cfg, optFns...)
	name := fmt.Sprintf("test-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	create := dynamo.CreateTables
	if o.Webhooks {
		create = dynamo.CreateTablesWithStream
	}
	if err := create(ctx, db, name); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() { _ = dynamo.DeleteTables(context.Background(), db, name) })

	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	e := &Env{DB: db, Store: dynamo.New(db, name), Clock: &Clock{}, Logs: &SyncBuffer{}, Secret: secret}
	e.Server = httptest.NewUnstartedServer(nil)
	// The Env's own settings reach its stack through getenv, whatever
	// another Env in the process sets.
	own := map[string]string{}
	if o.S3 {
		e.Bucket = e.newBucket(t, cfg)
		own[settings.ClipBucket] = e.Bucket
	}
	if o.Dashboard && !o.S3 {
		// The dashboard presigns clip addresses (no request to S3); tests
		// that play clips set S3.
		own[settings.ClipBucket] = "apitest-no-bucket"
	}
	if o.S3 || o.Dashboard {
		own[settings.PublicBaseURL] = "http://" + e.Server.Listener.Addr().String()
	}
	var attempts *queuelocal.Queue
	if o.Webhooks {
		own[settings.WebhookAllowLoopback] = "1"
		attempts = queuelocal.New(manifest.QueueWebhookAttempts, queuelocal.Options{})
	}
	if !o.Parallel {
		for k, v := range own {
			t.Setenv(k, v)
		}
	}
	getenv := func(name string) string {
		if v, ok := own[name]; ok {
			return v
		}
		return os.Getenv(name)
	}
	e.Stack = catalog.New(catalog.Deps{
		Store: e.Store, Now: e.Clock.Now, AWS: cfg, Getenv: getenv,
		Secret: func(name string) func(context.Context) ([]byte, error) {
			return func(context.Context) ([]byte, error) {
				if v, ok := StripeSecrets[name]; ok {
					return []byte(v), nil
				}
				return secret, nil
			}
		},
		Log:             slog.New(slog.NewJSONHandler(e.Logs, nil)),
		IdempotencyWait: o.IdempotencyWait, SettingsTTL: o.SettingsTTL,
		Detector: o.Detector, WebhookQueue: attempts,
	})
	gw := localgw.New(func(op manifest.Operation) any { return e.Stack.Route(op) }, slog.New(slog.NewJSONHandler(e.Logs, nil)))
	e.Server.Config.Handler = gw
	e.Server.Start()
	t.Cleanup(e.Server.Close)
	if o.S3 {
		buckets.Store(e.Bucket, e.Stack.Clips())
		t.Cleanup(func() { buckets.Delete(e.Bucket) })
	}
	if o.Webhooks {
		e.runWebhooks(t, name, attempts)
	}
	e.Client = e.Server.Client()
	e.spec = openapitest.New(t)
	return e
}

// StripeWebhookSecret is the signing secret of the test-mode Stripe
// webhook endpoint in every Env (its live one: StripeLiveWebhookSecret).
const (
	StripeWebhookSecret     = "whsec_apitest_test"
	StripeLiveWebhookSecret = "whsec_apitest_live"
)

// StripeSecrets are the Stripe secrets every Env's functions read, by
// manifest name: stripe-mock's test key (it refuses live keys, so a
// live-mode deposit fails to configure), and the webhook secrets above.
var StripeSecrets = map[string]string{
	manifest.SecretStripeKeys:    `{"test": "` + stripelocal.SecretKey + `", "live": ""}`,
	manifest.SecretStripeWebhook: `{"test": "` + StripeWebhookSecret + `", "live": "` + StripeLiveWebhookSecret + `"}`,
}

// NewPartner creates a partner with the default USD rate card.
func (e *Env) NewPartner(t testing.TB, name string) string {
	t.Helper()
	id := "ptn_" + randomHex(8)
	err := e.Store.CreatePartner(context.Background(), partner.Partner{
		ID: id, Name: name, RateCard: estimate.DefaultRateCard("usd"), CreatedAt: time.Now(),
	})
	if err != nil {
		t.Fatalf("create partner: %v", err)
	}
	return id
}

// NewKey creates a key for partnerID in mode with scopes (all when none)
// and returns the key and its id.
func (e *Env) NewKey(t testing.TB, partnerID string, mode auth.Mode, scopes ...auth.Scope) (key, keyID string) {
	t.Helper()
	key, keyID, err := auth.NewKey(mode)
	if err != nil {
		t.Fatal(err)
	}
	if len(scopes) == 0 {
		scopes = auth.AllScopes
	}
	err = e.Store.CreateKey(context.Background(), auth.Key{
		KeyID: keyID, Digest: auth.Digest(key), PartnerID: partnerID, Mode: mode,
		Scopes: scopes, CreatedAt: time.Now(),
	})
	if err != nil {
		t.Fatalf("create key: %v", err)
	}
	return key, keyID
}

// Result is one HTTP exchange.
type Result struct {
	Req    *http.Request
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request (see DoRaw) and checks the response against the API
// description: every response a test receives must conform to it.
func (e *Env) Do(t testing.TB, method, path, key, body string, headers ...string) Result {
	t.Helper()
	r := e.DoRaw(t, method, path, key, body, headers...)
	if r.Status != 0 && partnerPath(method, path) {
		e.spec.Check(t, r.Req, r.Status, r.Header, r.Body)
	}
	return r
}

// DoRaw sends method path (with query) with key as bearer (none when ""),
// body (none when "") and extra headers given as "Name: value".
func (e *Env) DoRaw(t testing.TB, method, path, key, body string, headers ...string) Result {
	t.Helper()
	var rdr io.Reader
	if body != "" {
		rdr = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.Server.URL+path, rdr)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := e.Client.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return Result{Req: req}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("read body: %v", err)
	}
	return Result{Req: req, Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers (log handlers).
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Main runs a test binary's tests against DynamoDB Local: the developer's
// running one when AWS_ENDPOINT_URL_DYNAMODB is set, else one it starts and
// stops. Call it from TestMain.
func Main(m *testing.M) { dynamolocal.RunTests(m) }

// JSON decodes r's body as a JSON object, failing the test when it is not
// one.
func JSON(t testing.TB, r Result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("%s %s -> %d: body is not a JSON object: %v: %s", r.Req.Method, r.Req.URL.Path, r.Status, err, r.Body)
	}
	return m
}

// Want fails the test unless r has status and, when code is not "", the
// error body with that error.code; it returns the decoded body.
func Want(t testing.TB, r Result, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s %s -> %d; want %d: %s", r.Req.Method, r.Req.URL.Path, r.Status, status, r.Body)
	}
	m := JSON(t, r)
	if code != "" {
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != code {
			t.Fatalf("%s %s -> %s; want error code %s", r.Req.Method, r.Req.URL.Path, r.Body, code)
		}
	}
	return m
}
