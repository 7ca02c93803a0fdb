package s3store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/local/s3local"
)

// TestMain runs the package's tests against MinIO: the developer's running
// one when AWS_ENDPOINT_URL_S3 is set, else one started for this test
// binary. Clients are built from the environment, as in production.
func TestMain(m *testing.M) { s3local.RunTests(m) }

// browser is the plain HTTP client that plays the browser and the viewer.
var browser = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}

// loadConfig returns the AWS configuration built from the environment
// that s3local.SetEnv prepared, as the functions build theirs.
func loadConfig(t testing.TB) aws.Config {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatalf("load AWS config: %v", err)
	}
	return cfg
}

// newClient returns an SDK S3 client built from the environment: the
// tests' independent view of the bucket (they write objects with it).
func newClient(t testing.TB) *s3.Client {
	t.Helper()
	return s3.NewFromConfig(loadConfig(t), func(o *s3.Options) { o.UsePathStyle = true })
}

// mustNew returns a Store over bucket from cfg, at the local server.
func mustNew(t testing.TB, cfg aws.Config, bucket string) *Store {
	t.Helper()
	s, err := New(cfg, bucket, Options{Endpoint: os.Getenv("AWS_ENDPOINT_URL_S3")})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// newStore returns a Store over a new, empty bucket.
func newStore(t testing.TB) *Store {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "s3store-" + hex.EncodeToString(b)
	if err := s3local.CreateBucket(context.Background(), newClient(t), s3local.Bucket{Name: name}); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	return mustNew(t, loadConfig(t), name)
}

// put stores data at key with contentType through the SDK's client and
// returns the quoted ETag S3 gave it.
func put(t testing.TB, s *Store, key, contentType string, data []byte) string {
	t.Helper()
	out, err := newClient(t).PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: &s.bucket, Key: &key, Body: bytes.NewReader(data), ContentType: aws.String(contentType),
	})
	if err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	return aws.ToString(out.ETag)
}

// do sends req as a browser would and returns the status and body.
func do(t testing.TB, req *http.Request) (int, string) {
	t.Helper()
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response of %s %s: %v", req.Method, req.URL, err)
	}
	return resp.StatusCode, string(body)
}

// expiredSoon waits until URLs signed for a second have expired (S3
// counts whole seconds from X-Amz-Date): the SDK's presigner signs at its
// own clock, so a test gets an expired URL by waiting one out.
func expiredSoon() { time.Sleep(2100 * time.Millisecond) }
