// Command devstack is `make dev`: it installs Amazon DynamoDB Local and
// MinIO when missing, starts both on loopback, creates the table from the
// shared schema and the clip bucket, seeds a demo partner with a
// test-mode key, and serves every route of the route table at
// http://127.0.0.1:$PORT (default 3000) through the local API Gateway,
// which invokes the very handlers the Lambda functions run. The clip
// bucket's object-created events under clips/ reach the clip processor's
// handler as they would in AWS, through MinIO's webhook to the gateway
// (s3local.Receiver at /_local/s3-events, with a random auth token). Once
// the API serves, it creates a demo lead with a video survey and prints
// its capture link. It also seeds the fixtures the sample events in
// events/ use (events/sample). It writes .local/dev.json (package devfile)
// so that scripts and tools reach the same stack, and .local/sam-env.json
// and .local/sam-env.host-network.json so that `sam local invoke` and `sam
// local start-api` do (samconfig.toml).
//
// Its log is quiet: one JSON line per request, state change (a clip
// decided, a survey settled, a webhook attempt, a deposit moved) and
// warning or error. -v, or VERBOSE=1 (make dev VERBOSE=1), logs every
// line, each stream and queue record and the MCP SDK's sessions too.
//
// Ctrl-C (SIGINT) or SIGTERM stops everything it started, removes those
// files and exits 0: a signal is the normal way to stop it. It exits 1,
// with one line on stderr, when the stack cannot start or fails while
// serving.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/local/detectlocal"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/localgw"
	"github.com/moveleads/partnerapi/shared/local/queuelocal"
	"github.com/moveleads/partnerapi/shared/local/repo"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/local/streamlocal"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/openapi"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
)

func main() {
	verbose := flag.Bool("v", false, "log every line: each stream, queue and S3 record and the MCP SDK's session lines (as VERBOSE=1)")
	flag.Parse()
	getenv := os.Getenv
	if *verbose {
		getenv = func(k string) string {
			if k == VerboseVar {
				return "1"
			}
			return os.Getenv(k)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := func() error {
		root, err := repo.Root()
		if err != nil {
			return err
		}
		// The soak benchmark runs a second stack beside a developer's,
		// with its state files elsewhere.
		state := os.Getenv(devfile.StateDirVar)
		if state == "" {
			state = filepath.Join(root, ".local")
		}
		return run(ctx, os.Stdout, getenv, state)
	}()
	code := exitCode(ctx, err)
	if code != 0 {
		fmt.Fprintln(os.Stderr, "make dev:", err)
	}
	stop()
	os.Exit(code)
}

// exitCode is 0 when run ended without error, or because a signal ended
// ctx and what failed is only the work the signal cancelled (a Ctrl-C
// while DynamoDB Local starts, say); otherwise 1.
func exitCode(ctx context.Context, err error) int {
	if err == nil || (ctx.Err() != nil && errors.Is(err, context.Canceled)) {
		return 0
	}
	return 1
}

const (
	// clipBucket is the local clip bucket (settings.ClipBucket).
	clipBucket = "moveleads-clips-local"
	// s3EventsPath is where the gateway takes MinIO's notifications of
	// the clip bucket (loopback only, like the whole gateway).
	s3EventsPath = "/_local/s3-events"
	// clipsWebhook names MinIO's notification target.
	clipsWebhook = "clips"
)

// run serves the stack until ctx ends, keeping its state files (lock,
// dev.json, the SAM env files) in stateDir. It returns nil when it stopped
// because ctx ended, having stopped DynamoDB Local and MinIO and removed
// the files.
func run(ctx context.Context, out io.Writer, getenv func(string) string, stateDir string) error {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	unlock, err := lock(filepath.Join(stateDir, "dev.lock"), filepath.Join(stateDir, "dev.json"))
	if err != nil {
		return err
	}
	defer unlock()

	ln, err := listenPort(getenv)
	if err != nil {
		return err
	}
	defer ln.Close()
	// The API's origin: capture links start with it, and MinIO's CORS
	// lets the capture page upload from it.
	base := "http://" + ln.Addr().String()

	fmt.Fprintln(out, "Starting Amazon DynamoDB Local, MinIO (the local S3), the inventory's detector (a CenterNet COCO model under Node) and stripe-mock (the local Stripe API), installing what is missing...")
	// MinIO checks only that the webhook's port accepts connections (ln
	// already listens) and posts each event once, with this token.
	hook := s3local.Webhook{ID: clipsWebhook, Endpoint: base + s3EventsPath, AuthToken: randomHex(32)}
	srv, err := startServers(ctx, hook, base)
	defer srv.stop()
	if err != nil {
		return err
	}
	if srv.db.Warning != "" {
		fmt.Fprintln(out, "WARNING:", srv.db.Warning)
	}
	if err := createClipBucket(ctx, srv.s3, hook); err != nil {
		return err
	}
	detector, detectorURL := srv.detector(out)
	env := setStackEnv(srv, base)
	co, err := startCheckout(srv.stripe.URL, base, env)
	if err != nil {
		return err
	}
	defer co.stop()
	key, partnerID, invite, err := seedAll(ctx, srv.s3)
	if err != nil {
		return err
	}
	queues := localQueues(nil)
	gw, stack, log, err := gateway(ctx, newLog(out, getenv(VerboseVar) != ""), detector, queues)
	if err != nil {
		return err
	}
	if gw.Extra, err = extraHandlers(ctx, hook, stack, co, log); err != nil {
		return err
	}

	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	served := make(chan error, 1)
	go func() { served <- localgw.Serve(serveCtx, ln, gw) }()
	// The stream-, queue- and schedule-triggered functions (the
	// webhooks') run on the same handlers, from DynamoDB Local's stream,
	// in-process queues and a ticker; one that stops fails the stack as a
	// failing server would.
	triggered := make(chan error, 1)
	if err := startTriggered(serveCtx, stack, queues, log, triggered); err != nil {
		return stop0(stopServing, served, err)
	}

	demo, err := demoSurvey(ctx, base, key)
	if err != nil {
		return stop0(stopServing, served, err)
	}
	demo.invite = invite
	dev := devFile(base, key, partnerID, env, hook, detectorURL, demo)
	remove, err := writeStateFiles(stateDir, dev)
	defer remove()
	if err != nil {
		return stop0(stopServing, served, err)
	}

	printBanner(out, dev, srv.names())

	select {
	case err = <-served:
	case err = <-triggered:
		err = fmt.Errorf("a stream or schedule function stopped: %w", err)
		stopServing()
		<-served
	}
	fmt.Fprintf(out, "Stopping %s.\n", srv.names())
	return err
}

// extraHandlers are the gateway's routes beside the functions': the
// OpenAPI document, MinIO's bucket notifications and the local checkout
// page.
func extraHandlers(ctx context.Context, hook s3local.Webhook, stack *catalog.Stack, co *checkout, log *slog.Logger) (map[string]http.Handler, error) {
	extra := map[string]http.Handler{
		"/openapi.yaml": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/yaml")
			_, _ = w.Write(openapi.Document)
		}),
		s3EventsPath: s3local.Receiver(hook.AuthToken, stack.Clips(), log),
	}
	page, err := co.page(ctx, log)
	if err != nil {
		return nil, err
	}
	extra[stripelocal.CheckoutPath] = page
	return extra, nil
}

// devFile is what the stack tells its clients (.local/dev.json), and all
// the banner shows.
func devFile(base, key, partnerID string, env map[string]string, hook s3local.Webhook, detectorURL string, demo demoLead) devfile.File {
	return devfile.File{
		BaseURL: base, APIKey: key, PartnerID: partnerID, Env: env, PID: os.Getpid(),
		S3Events:    &devfile.S3Events{URL: hook.Endpoint, Authorization: "Bearer " + hook.AuthToken},
		DetectorURL: detectorURL,
		Demo: &devfile.Demo{
			LeadID: demo.LeadID, SurveyID: demo.SurveyID, CaptureURL: demo.CaptureURL,
			VideoURL:         base + "/v1-video/" + sample.ViewToken,
			FixturePartnerID: sample.PartnerID, FixtureAPIKey: sample.APIKey, FixtureLeadID: sample.LeadID,
			DashboardSite: dashboard.SiteURL(base), DashboardInvite: dashboard.SiteURL(base) + dashboard.InvitationPath(demo.invite),
		},
	}
}

// listenPort listens on loopback at $PORT (default 3000).
func listenPort(getenv func(string) string) (net.Listener, error) {
	port := getenv("PORT")
	if port == "" {
		port = "3000"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, fmt.Errorf("port %s is taken by another program (set PORT=another to use another port): %w", port, err)
	}
	return ln, nil
}

// servers are the local stand-ins the stack runs on; a nil one did not
// start.
type servers struct {
	db     *dynamolocal.Server
	s3     *s3local.Server
	det    *detectlocal.Server
	stripe *stripelocal.Server
	// detErr is why the detector did not start: the stack runs without it.
	detErr error
}

// startServers starts the four servers side by side (each installs itself
// first if missing): make dev waits for the slowest, not for their sum.
// MinIO posts the clip bucket's events to hook and lets base upload. It
// returns the ones that started, to stop, with the error of DynamoDB
// Local, MinIO or stripe-mock failing.
func startServers(ctx context.Context, hook s3local.Webhook, base string) (*servers, error) {
	var (
		s                    servers
		dbErr, s3Err, strErr error
		wg                   sync.WaitGroup
	)
	wg.Go(func() { s.db, dbErr = dynamolocal.Start(ctx) })
	wg.Go(func() { s.s3, s3Err = s3local.Start(ctx, s3local.WithWebhooks(hook), s3local.WithCORSOrigins(base)) })
	wg.Go(func() { s.det, s.detErr = detectlocal.Start(ctx) })
	wg.Go(func() { s.stripe, strErr = stripelocal.Start(ctx) })
	wg.Wait()
	return &s, errors.Join(dbErr, s3Err, strErr)
}

// names names the API and the servers that started, for the banner and
// the stop message.
func (s *servers) names() string {
	names := []string{"the API"}
	for _, n := range []struct {
		on   bool
		name string
	}{{s.db != nil, "DynamoDB Local"}, {s.s3 != nil, "MinIO"}, {s.det != nil, "the detector"}, {s.stripe != nil, "stripe-mock"}} {
		if n.on {
			names = append(names, n.name)
		}
	}
	last := len(names) - 1
	if last == 0 {
		return names[0]
	}
	return strings.Join(names[:last], ", ") + " and " + names[last]
}

// stop stops the servers that started, in the reverse order of their start.
func (s *servers) stop() {
	if s.stripe != nil {
		s.stripe.Stop()
	}
	if s.det != nil {
		s.det.Stop()
	}
	if s.s3 != nil {
		s.s3.Stop()
	}
	if s.db != nil {
		s.db.Stop()
	}
}

// detector returns the detector's client and endpoint, or, when it did not
// start, nothing and a warning on out.
func (s *servers) detector(out io.Writer) (inventory.Detector, string) {
	if s.detErr != nil {
		// The survey works without it: frames are recorded as not
		// analysed and inventories come from the checklist.
		fmt.Fprintln(out, "WARNING: the detector did not start; survey inventories will come from checklists alone:", s.detErr)
		return nil, ""
	}
	return s.det.Client(), s.det.Endpoint
}

// createClipBucket creates the clip bucket, whose objects created under
// clips/ MinIO posts to hook.
func createClipBucket(ctx context.Context, s3srv *s3local.Server, hook s3local.Webhook) error {
	return s3local.CreateBucket(ctx, s3srv.Client(), s3local.Bucket{
		Name: clipBucket, Notify: []s3local.Notification{{Target: hook, Prefix: manifest.ClipPrefix}},
	})
}

// setStackEnv sets the stack's variables (stackEnv, stripeEnv) in this
// process, whose handlers read them, and returns them for dev.json.
func setStackEnv(srv *servers, base string) map[string]string {
	env := stackEnv(srv.db.Endpoint, srv.s3, base)
	for k, v := range stripeEnv(srv.stripe) {
		env[k] = v
	}
	for k, v := range env {
		os.Setenv(k, v)
	}
	return env
}

// seedAll seeds the demo partner (its key and id returned) and the
// fixtures of the sample events.
func seedAll(ctx context.Context, s3srv *s3local.Server) (key, partnerID, invite string, err error) {
	key, partnerID, invite, err = seed(ctx)
	if err != nil {
		return "", "", "", err
	}
	// The sample clip-processor event names this object (events/sample):
	// it is stored before the notifications' receiver serves, so its own
	// event is dropped and the sample event decides it when invoked.
	if err := sample.PutClipObject(ctx, s3srv.Client(), clipBucket); err != nil {
		return "", "", "", err
	}
	return key, partnerID, invite, nil
}

// writeStateFiles writes dev.json and the SAM env files into stateDir.
// remove deletes those written, even when err says one failed.
func writeStateFiles(stateDir string, dev devfile.File) (remove func(), err error) {
	var written []string
	remove = func() {
		for i := len(written) - 1; i >= 0; i-- {
			os.Remove(written[i])
		}
	}
	devPath := filepath.Join(stateDir, "dev.json")
	if err := devfile.Write(devPath, dev); err != nil {
		return remove, err
	}
	written = append(written, devPath)
	for name, host := range samEnvFiles {
		path := filepath.Join(stateDir, name)
		if err := writeSAMEnv(path, dev.Env, host); err != nil {
			return remove, err
		}
		written = append(written, path)
	}
	return remove, nil
}

// printBanner prints how to reach the stack, its fixtures and the demo
// survey: only values of dev (what dev.json holds), so that the banner can
// say that everything in it is also in the file. stops names what Ctrl-C
// stops.
func printBanner(out io.Writer, dev devfile.File, stops string) {
	base, key := dev.BaseURL, dev.APIKey
	demo := dev.Demo
	if demo == nil {
		demo = &devfile.Demo{}
	}
	fmt.Fprintf(out, `
Partner API running at %s   (Ctrl-C stops %s)
  partner:  %s
  API key:  %s   (test mode, all scopes)
  details:  everything shown here is also in %s (jq . %s)   API description: %s/openapi.yaml
  S3:       MinIO at %s, bucket %s; uploads under %s run the clip processor
  detector: %s
  webhooks: the events table's stream runs webhook-dispatcher, an in-process queue webhook-sender; webhook-retrier runs every %s
            watch events arrive: go run ./scripts/webhook-listen   (another terminal)
  fixtures: partner %s, key %s, lead %s
            (local-only, not secret) used by events/*.json
  log:      one line per request, error and state change; make dev VERBOSE=1 logs every stream,
            queue and S3 record and the MCP SDK's session lines too

  curl -s %s/v1/leads -H "Authorization: Bearer %s" -H "Content-Type: application/json" -d '{"customer_name":"Ada Lovelace","email":"ada@example.com","from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108","home_size":"2 bedroom"}'

Video survey of the demo lead %s (the customer's side):
  Open this on your phone or in a browser: %s
  It works in this machine's browser. A phone would have to reach this machine, and the link,
  like MinIO's upload URLs, names 127.0.0.1 (loopback); recording video (MediaRecorder) needs a
  secure context, and http://127.0.0.1 counts as one. After recording, tap Finish survey, then:
  curl -s %s/v1/leads/%s -H "Authorization: Bearer %s"   (survey.status, recommended_estimate)

Forwardable video link of a fixture survey with a playable clip (the carrier's side):
  %s
  Mint your own once your survey has a playable clip (its survey_id is in getLead's survey):
  curl -s -X POST %s/v1/surveys/SURVEY_ID/video-access -H "Authorization: Bearer %s" -H "Content-Type: application/json" -d '{"ttl_hours":24}'

Partner dashboard (passkeys; docs/DASHBOARD.md) at %s/dashboard
  The demo partner's admin's one-time invitation (24 h): %s
  More people: go run ./scripts/opctl dashboard invite --partner %s --email E --role admin|viewer

`, base, stops, dev.PartnerID, key, devfile.RelPath, devfile.RelPath, base,
		dev.Env["AWS_ENDPOINT_URL_S3"], dev.Env[settings.ClipBucket], manifest.ClipPrefix, detectorLine(dev.DetectorURL), retrierEvery(),
		demo.FixturePartnerID, demo.FixtureAPIKey, demo.FixtureLeadID, base, key,
		demo.LeadID, demo.CaptureURL, base, demo.LeadID, key,
		demo.VideoURL, base, key, demo.DashboardSite, demo.DashboardInvite, dev.PartnerID)
}

// detectorLine says where survey frames are analysed.
func detectorLine(url string) string {
	if url == "" {
		return "not running: frames are kept but not analysed (inventories come from checklists)"
	}
	return "survey frames go to the CenterNet COCO sidecar at " + url + " (in AWS: Amazon Rekognition)"
}

// stop0 ends serving (stopServing, then waits for served) and returns err.
func stop0(stopServing func(), served chan error, err error) error {
	stopServing()
	<-served
	return err
}

// localQueues returns an in-process queue (shared/local/queuelocal) for each
// queue trigger of the manifest, by name, with the trigger's batch size
// and concurrency, logging to log.
func localQueues(log *slog.Logger) map[string]*queuelocal.Queue {
	qs := map[string]*queuelocal.Queue{}
	for _, f := range manifest.Functions {
		if q := f.Queue; q != nil {
			qs[q.Name] = queuelocal.New(q.Name, queuelocal.Options{BatchSize: q.BatchSize, Concurrency: q.MaxConcurrency, Log: log})
		}
	}
	return qs
}

// startTriggered runs each stream-triggered function of the manifest on
// DynamoDB Local's stream of the table (shared/local/streamlocal: Lambda's
// batches, order and retries), each queue-triggered one on its queue of
// queues (shared/local/queuelocal: batches, concurrency, delays and retries)
// and each schedule-triggered one on a ticker at its rate, with the
// handlers stack built (the functions' own). The first one that stops
// with an error sends it on failed.
func startTriggered(ctx context.Context, stack *catalog.Stack, queues map[string]*queuelocal.Queue, log *slog.Logger, failed chan<- error) error {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	db := dynamodb.NewFromConfig(cfg)
	fail := func(err error) {
		select {
		case failed <- err:
		default:
		}
	}
	for _, f := range manifest.Functions {
		switch {
		case f.Stream != nil:
			h, ok := stack.Streams()[f.Slug]
			if !ok {
				return fmt.Errorf("stream function %s has no handler in shared/wire/catalog", f.Slug)
			}
			go func() {
				if err := streamlocal.Poll(ctx, db, streamlocal.StreamsClient(db), table.EventsName(table.DefaultName), streamlocal.TrimHorizon,
					f.Stream.BatchSize, h, log.With("function", f.Slug)); err != nil {
					fail(fmt.Errorf("%s: %w", f.Slug, err))
				}
			}()
		case f.Queue != nil:
			h, ok := stack.Queues()[f.Slug]
			q := queues[f.Queue.Name]
			if !ok || q == nil {
				return fmt.Errorf("queue function %s has no handler in shared/wire/catalog or no local queue", f.Slug)
			}
			go func() { _ = q.Run(ctx, h) }()
		case f.Schedule != nil:
			h, ok := stack.Jobs()[f.Slug]
			if !ok {
				return fmt.Errorf("schedule function %s has no handler in shared/wire/catalog", f.Slug)
			}
			every, err := f.Schedule.Every()
			if err != nil {
				return err
			}
			go tickEvery(ctx, every, func(n int) {
				// A failed run is logged by the handler; the next tick runs again.
				_ = h(ctx, events.EventBridgeEvent{ID: fmt.Sprintf("local-%s-%d", f.Slug, n), DetailType: "Scheduled Event", Source: "aws.events"})
			})
		}
	}
	return nil
}

// tickEvery calls run every d until ctx ends, never two at once.
func tickEvery(ctx context.Context, d time.Duration, run func(n int)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			run(n)
		}
	}
}

// retrierEvery is webhook-retrier's rate, for the banner.
func retrierEvery() string {
	if f, ok := manifest.BySlug("webhook-retrier"); ok && f.Schedule != nil {
		if d, err := f.Schedule.Every(); err == nil {
			return d.String()
		}
	}
	return "?"
}

// stackEnv returns the variables that reach the stack (the process's own,
// dev.json's env): the table and cursor secret, DynamoDB Local, MinIO with
// its credentials (set after DynamoDB Local's, which accepts any, while
// MinIO checks them), the clip bucket, and the public base URL capture
// links start with.
func stackEnv(dynamoEndpoint string, s3srv *s3local.Server, base string) map[string]string {
	env := map[string]string{
		settings.Table: table.DefaultName, settings.EventsTable: table.EventsName(table.DefaultName),
		settings.CursorSecret: randomHex(32),
		settings.ClipBucket:   clipBucket, settings.PublicBaseURL: base,
		settings.WebhookSealingKey: randomHex(32),
		settings.CaptureLinkKey:    randomHex(32),
		// Local only: test-mode webhooks may reach listeners on this
		// machine (scripts/webhook-listen). Never set when deployed.
		settings.WebhookAllowLoopback: "1",
	}
	for _, kv := range append(dynamolocal.Env(dynamoEndpoint), s3local.Env(s3srv)...) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// DevWebhookSecret is the local Stripe webhook endpoints' signing secret
// (both modes): opctl deposit simulate signs with it, reading it from
// dev.json's env, as Stripe signs with the deployed endpoint's.
const DevWebhookSecret = "whsec_local_dev"

// DevStripeAccount is the demo partner's connected account: stripe-mock
// takes any.
const DevStripeAccount = "acct_1LocalDemoMovers"

// stripeEnv returns the variables that point the deposit functions at
// stripe-mock: its URL, its test key (it refuses live keys, so live-mode
// deposits are not available locally) and the webhook secrets.
func stripeEnv(srv *stripelocal.Server) map[string]string {
	env := map[string]string{
		settings.StripeAPIKeys:        `{"test":"` + stripelocal.SecretKey + `","live":""}`,
		settings.StripeWebhookSecrets: `{"test":"` + DevWebhookSecret + `","live":"` + DevWebhookSecret + `"}`,
	}
	for _, kv := range stripelocal.Env(srv) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// gateway returns the local API Gateway over the handlers of every route,
// built by package catalog from the environment run set (awsenv.Load: the
// table, DynamoDB Local, CURSOR_SECRET; the clip bucket, MinIO and the
// public base URL through the AWS configuration and settings), with the
// stack (for its clip processor, whose frames go to detector) and log.
func gateway(ctx context.Context, log *slog.Logger, detector inventory.Detector, queues map[string]*queuelocal.Queue) (*localgw.Gateway, *catalog.Stack, *slog.Logger, error) {
	env, err := awsenv.Load()
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	deps := catalog.Deps{Store: env.Store, Secret: env.Secret, AWS: cfg, Log: log, Detector: detector}
	if q, ok := queues[manifest.QueueWebhookAttempts]; ok {
		deps.WebhookQueue = q
	}
	stack := catalog.New(deps)
	gw := localgw.New(func(op manifest.Operation) any { return stack.Route(op) }, log)
	return gw, stack, log, nil
}

// seed creates the table, a demo partner with a fresh test-mode key, and
// the fixtures of the sample events.
func seed(ctx context.Context) (key, partnerID, invite string, err error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return "", "", "", err
	}
	client := dynamodb.NewFromConfig(cfg)
	if err := dynamo.CreateTablesWithStream(ctx, client, table.DefaultName); err != nil {
		return "", "", "", err
	}
	store := dynamo.New(client, table.DefaultName)
	partnerID = "ptn_" + randomHex(8)
	now := time.Now()
	if err := store.CreatePartner(ctx, partner.Partner{
		ID: partnerID, Name: "Demo Movers", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now,
	}); err != nil {
		return "", "", "", err
	}
	// The demo partner has the deposits beta and what createDeposit
	// needs, so the README's walkthrough runs as is (a real partner gets
	// them from the operator: opctl partner beta, opctl partner deposits).
	if _, err := store.SetBeta(ctx, partnerID, []partner.Feature{partner.Deposits}, nil); err != nil {
		return "", "", "", err
	}
	if _, err := store.SetDepositSettings(ctx, partnerID, partner.DepositSettings{
		CarrierLegalName: "Demo Moving Services LLC", USDOTNumber: "1234567", StripeAccount: DevStripeAccount,
	}); err != nil {
		return "", "", "", err
	}
	key, keyID, err := auth.NewKey(auth.Test)
	if err != nil {
		return "", "", "", err
	}
	err = store.CreateKey(ctx, auth.Key{
		KeyID: keyID, Digest: auth.Digest(key), PartnerID: partnerID, Mode: auth.Test,
		Scopes: auth.AllScopes, CreatedAt: now,
	})
	if err != nil {
		return "", "", "", err
	}
	if invite, err = demoInvite(ctx, store, partnerID, now); err != nil {
		return "", "", "", err
	}
	return key, partnerID, invite, sample.Seed(ctx, store)
}

// demoInvite invites the demo partner's admin to the dashboard and
// returns the invitation's token (the banner prints its link).
func demoInvite(ctx context.Context, store *dynamo.Store, partnerID string, now time.Time) (string, error) {
	token, inv, err := dashboard.NewInvitation(partnerID, "admin@demo-movers.example", dashboard.Admin, dashboard.OperatorActor, now)
	if err != nil {
		return "", err
	}
	return token, store.CreateInvitation(ctx, inv, dashboard.InvitedEntry(inv, audit.ByOperator()))
}

// samEnvFiles maps each SAM env-vars file to the host through which the
// functions' containers reach DynamoDB Local and MinIO. Both listen on
// 127.0.0.1 only, so:
//   - sam-env.json (samconfig.toml's default) uses host.docker.internal,
//     which Docker Desktop (macOS, Windows) forwards to the host's
//     loopback; on Linux's Docker Engine it is the bridge gateway, where
//     nothing listens;
//   - sam-env.host-network.json uses 127.0.0.1, for Linux with
//     `--docker-network host`, where the container shares the host's
//     loopback.
var samEnvFiles = map[string]string{
	"sam-env.json":              "host.docker.internal",
	"sam-env.host-network.json": "127.0.0.1",
}

// writeSAMEnv writes an --env-vars file of `sam local` (samconfig.toml) in
// SAM's format, {"Parameters": {NAME: value}}, whose values apply to every
// function that declares NAME in template.yaml, with the endpoints of
// DynamoDB Local, MinIO and stripe-mock rewritten to host (see
// samEnvFiles).
// PUBLIC_BASE_URL stays make dev's own origin: a browser on this machine
// opens the capture links. The upload URLs the capture calls presign name
// MinIO's endpoint as the function sees it, so a browser on the host
// reaches them with the host-network file (127.0.0.1) and, with the
// other, only where host.docker.internal resolves on the host too.
func writeSAMEnv(path string, env map[string]string, host string) error {
	params := map[string]string{
		settings.Table:         env[settings.Table],
		settings.EventsTable:   env[settings.EventsTable],
		settings.ClipBucket:    env[settings.ClipBucket],
		settings.PublicBaseURL: env[settings.PublicBaseURL],
	}
	// Each secret by value, as the template's functions read it locally
	// (the cursor and sealing keys, stripe-mock's key, the webhook
	// secrets).
	for _, sec := range manifest.Secrets {
		params[settings.SecretVar(sec)] = env[settings.SecretVar(sec)]
	}
	// DynamoDB Local, MinIO and stripe-mock all listen on loopback.
	for _, name := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3", settings.StripeAPIURL} {
		u, err := url.Parse(env[name])
		if err != nil || u.Port() == "" {
			return fmt.Errorf("%s %q: want http://127.0.0.1:PORT", name, env[name])
		}
		u.Host = net.JoinHostPort(host, u.Port())
		params[name] = u.String()
	}
	b, _ := json.MarshalIndent(map[string]any{"Parameters": params}, "", "  ")
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// lock takes an exclusive lock so that a second `make dev` says plainly
// that one is already running instead of failing on a busy port.
func lock(path, devPath string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		msg := "another `make dev` is already running"
		if d, err := devfile.Read(devPath); err == nil {
			msg += fmt.Sprintf(" (pid %d, serving %s)", d.PID, d.BaseURL)
		}
		return nil, errors.New(msg + "; use it, or stop it with Ctrl-C first")
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
