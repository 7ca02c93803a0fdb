package apitest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/edge/s3event"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// buckets maps each live Env's clip bucket to its stack's clip processor:
// the test binary's MinIO posts every bucket's events to one receiver.
var buckets sync.Map // bucket name → func(context.Context, events.S3Event) error

// webhook is the notification target of the test binary's MinIO.
var webhook s3local.Webhook

// MainS3 runs a test binary's tests against DynamoDB Local and a MinIO
// started for the binary, whose bucket notifications reach the clip
// processor of the Env owning the bucket (Options.S3), and whose CORS
// allows every loopback origin (each Env serves on its own port). Call it
// from TestMain.
func MainS3(m *testing.M) { os.Exit(RunS3(m)) }

// MainS3Stripe is MainS3 with stripe-mock too (STRIPE_API_URL), for the
// tests of the deposit features.
func MainS3Stripe(m *testing.M) { stripelocal.RunTests(runS3{m}) }

type runS3 struct{ m *testing.M }

func (r runS3) Run() int { return RunS3(r.m) }

// RunS3 is MainS3 that returns the tests' exit code instead of exiting,
// for a TestMain that wraps it in other servers (stripelocal.RunTests).
func RunS3(m interface{ Run() int }) int {
	endpoint, stopDB, err := dynamolocal.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dynamolocal.SetEnv(endpoint)
	token := "apitest-" + randomHex(16)
	recv := httptest.NewServer(s3local.Receiver(token, dispatch, slog.New(slog.NewTextHandler(os.Stderr, nil))))
	webhook = s3local.Webhook{ID: "apitest", Endpoint: recv.URL + "/events", AuthToken: token}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	srv, err := s3local.Start(ctx, s3local.WithWebhooks(webhook), s3local.WithCORSOrigins("http://127.0.0.1:*"))
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		stopDB()
		return 1
	}
	s3local.SetEnv(srv)
	code := browser.RunTests(m) // the end-to-end tests share one Chromium
	_ = srv.Stop()
	recv.Close()
	stopDB()
	return code
}

// dispatch hands an event to the processor of the Env owning its bucket.
func dispatch(ctx context.Context, ev events.S3Event) error {
	if len(ev.Records) == 0 {
		return nil
	}
	h, ok := buckets.Load(ev.Records[0].S3.Bucket.Name)
	if !ok {
		return nil // an Env that already ended
	}
	return h.(s3event.Handler)(ctx, ev)
}

// newBucket creates the Env's clip bucket with its notification.
func (e *Env) newBucket(t testing.TB, cfg aws.Config) string {
	t.Helper()
	if webhook.ID == "" {
		t.Fatal("apitest: Options.S3 needs TestMain to call apitest.MainS3")
	}
	name := fmt.Sprintf("clips-%d-%d", time.Now().UnixNano()%1e9, tableSeq.Add(1))
	e.S3 = s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle, o.DisableLogOutputChecksumValidationSkipped = true, true })
	err := s3local.CreateBucket(context.Background(), e.S3, s3local.Bucket{
		Name: name, Notify: []s3local.Notification{{Target: webhook, Prefix: manifest.ClipPrefix}},
	})
	if err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	return name
}

// partnerPath reports whether method and path are a partner API route,
// whose answers the OpenAPI document describes (the capture page and its
// calls are not partner API: docs/CAPTURE.md).
func partnerPath(method, path string) bool {
	p, _, _ := strings.Cut(path, "?")
	_, _, _, _, _, ok := manifest.Resolve(manifest.Routes(), method, p)
	if !ok {
		return true // unmatched: the $default route, which is documented
	}
	_, _, _, _, _, partner := manifest.Resolve(manifest.PartnerRoutes(), method, p)
	return partner
}
