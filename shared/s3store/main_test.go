package s3store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/s3local"
)

// TestMain runs the package's tests against MinIO: the developer's running
// one when AWS_ENDPOINT_URL_S3 is set, else one started for this test
// binary. Clients are built from the environment, as in production.
func TestMain(m *testing.M) { s3local.RunTests(m) }

// browser is the plain HTTP client that plays the browser and the viewer.
var browser = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}

// newClient returns an S3 client built from the environment that
// s3local.SetEnv prepared.
func newClient(t testing.TB) *s3.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatalf("load AWS config: %v", err)
	}
	return s3.NewFromConfig(cfg)
}

// newStore returns a Store over a new, empty bucket.
func newStore(t testing.TB) *Store {
	t.Helper()
	c := newClient(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "s3store-" + hex.EncodeToString(b)
	if err := s3local.CreateBucket(context.Background(), c, s3local.Bucket{Name: name}); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	return New(c, name)
}

// put stores data at key with contentType and returns the quoted ETag S3
// gave it.
func put(t testing.TB, s *Store, key, contentType string, data []byte) string {
	t.Helper()
	out, err := s.client.PutObject(context.Background(), &s3.PutObjectInput{
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

// signedAgo returns a copy of s whose presigned URLs are signed as if at
// now-ago, so tests see expired URLs without waiting for them.
func signedAgo(s *Store, ago time.Duration) *Store {
	c := *s
	c.presign = s3.NewPresignClient(s.client, func(o *s3.PresignOptions) {
		o.Presigner = shiftedPresigner{
			// As the S3 client's own signer: keys are escaped once.
			inner: v4.NewSigner(func(so *v4.SignerOptions) { so.DisableURIPathEscaping = true }),
			shift: -ago,
		}
	})
	return &c
}

// shiftedPresigner signs at the time it is given plus shift.
type shiftedPresigner struct {
	inner *v4.Signer
	shift time.Duration
}

func (p shiftedPresigner) PresignHTTP(ctx context.Context, creds aws.Credentials, r *http.Request, payloadHash, service, region string, at time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	return p.inner.PresignHTTP(ctx, creds, r, payloadHash, service, region, at.Add(p.shift), optFns...)
}
