package s3store

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/moveleads/partnerapi/shared/testkit/faultproxy"
)

// offline is a configuration for signing only: nothing is sent with it.
var offline = aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "not-a-secret", "")}

// TestAddressing checks where requests go: virtual-hosted addresses on
// Amazon S3, path-style ones for a dotted bucket and for an endpoint.
func TestAddressing(t *testing.T) {
	tests := []struct {
		bucket, endpoint string
		wantOrigin       string
		wantPath         string
	}{
		{"moveleads-clips", "", "https://moveleads-clips.s3.eu-west-1.amazonaws.com", "/clips/a%20b%2Bc.mp4"},
		{"moveleads.clips", "", "https://s3.eu-west-1.amazonaws.com", "/moveleads.clips/clips/a%20b%2Bc.mp4"},
		{"moveleads-clips", "http://127.0.0.1:9000", "http://127.0.0.1:9000", "/moveleads-clips/clips/a%20b%2Bc.mp4"},
		{"moveleads-clips", "http://127.0.0.1:9000/s3/", "http://127.0.0.1:9000", "/s3/moveleads-clips/clips/a%20b%2Bc.mp4"},
	}
	for _, tt := range tests {
		t.Run(tt.bucket+" "+tt.endpoint, func(t *testing.T) {
			s, err := New(offline, tt.bucket, Options{Endpoint: tt.endpoint})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Origin(); got != tt.wantOrigin {
				t.Errorf("Origin() = %q; want %q", got, tt.wantOrigin)
			}
			raw, err := s.PresignGet(context.Background(), "clips/a b+c.mp4", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if got := u.Scheme + "://" + u.Host; got != tt.wantOrigin {
				t.Errorf("presigned URL %s goes to %s; want %s", raw, got, tt.wantOrigin)
			}
			if got := u.EscapedPath(); got != tt.wantPath {
				t.Errorf("presigned URL's path = %q; want %q", got, tt.wantPath)
			}
			q := u.Query()
			for _, k := range []string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature"} {
				if q.Get(k) == "" {
					t.Errorf("presigned URL lacks %s: %s", k, raw)
				}
			}
			if !strings.HasPrefix(q.Get("X-Amz-Credential"), "AKID/") || !strings.Contains(q.Get("X-Amz-Credential"), "/eu-west-1/s3/aws4_request") {
				t.Errorf("X-Amz-Credential = %q; want AKID's scope in eu-west-1 for s3", q.Get("X-Amz-Credential"))
			}
		})
	}
}

func TestNewRefuses(t *testing.T) {
	noRegion := offline
	noRegion.Region = ""
	noCreds := offline
	noCreds.Credentials = nil
	tests := []struct {
		name     string
		cfg      aws.Config
		bucket   string
		endpoint string
	}{
		{"no region", noRegion, "clips", ""},
		{"no credentials", noCreds, "clips", ""},
		{"short bucket", offline, "ab", ""},
		{"upper-case bucket", offline, "Clips", ""},
		{"bucket ends with a hyphen", offline, "clips-", ""},
		{"bucket with a slash", offline, "clips/x", ""},
		{"endpoint without scheme", offline, "clips", "127.0.0.1:9000"},
		{"endpoint of another scheme", offline, "clips", "ftp://127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s, err := New(tt.cfg, tt.bucket, Options{Endpoint: tt.endpoint}); err == nil {
				t.Errorf("New = %+v, nil; want an error", s)
			}
		})
	}
}

// TestKeysWithAnyCharacter stores objects whose keys need escaping and
// reads them back by Head, ranged GET and presigned GET: the escaping
// signed is the escaping sent, and S3 finds the object by it.
func TestKeysWithAnyCharacter(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, key := range []string{
		"clips/a b+c.mp4", "clips/ünï/cödé.webm", "clips/(1)&[2]=~!$'*,;:@.mp4", "clips/percent%20kept", "clips/x?y#z",
	} {
		t.Run(key, func(t *testing.T) {
			data := []byte("data of " + key)
			put(t, s, key, "video/mp4", data)
			obj, err := s.Head(ctx, key)
			if err != nil || obj.Size != int64(len(data)) {
				t.Fatalf("Head = %+v, %v; want size %d", obj, err, len(data))
			}
			got := make([]byte, len(data))
			if _, err := s.ReaderAt(ctx, key, obj.Size).ReadAt(got, 0); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("ReadAt = %q, %v; want %q", got, err, data)
			}
			raw, err := s.PresignGet(ctx, key, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodGet, raw, nil)
			if status, body := do(t, req); status != http.StatusOK || body != string(data) {
				t.Fatalf("GET presigned = %d %q; want 200 %q", status, body, data)
			}
		})
	}
}

// slowDown is S3's answer when asked to slow down, as Amazon S3 sends it.
var slowDown = faultproxy.Fault{
	Status: http.StatusServiceUnavailable,
	Header: http.Header{"Content-Type": {"application/xml"}, "X-Amz-Request-Id": {"r-1"}},
	Body:   `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>r-1</RequestId></Error>`,
}

// zeroBackoff returns cfg with the SDK's standard retryer (three attempts,
// the same errors retried) waiting nothing between attempts.
func zeroBackoff(cfg aws.Config) aws.Config {
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})
	}
	return cfg
}

// TestRetries sends Head, ranged GETs and PUTs to MinIO through a proxy
// that fails the first requests: throttling, 5xx answers, connection
// resets and requests left unanswered are retried by the SDK's standard
// retryer (three attempts in all); 4xx answers are not.
func TestRetries(t *testing.T) {
	s := newStore(t)
	put(t, s, "k", "video/mp4", []byte("0123456789"))
	tests := []struct {
		name       string
		fail       int
		fault      faultproxy.Fault
		wantErr    bool
		wantSent   int
		wantStatus int
	}{
		{"one 503 SlowDown then success", 1, slowDown, false, 2, 0},
		{"two 500s then success", 2, faultproxy.Fault{Status: http.StatusInternalServerError}, false, 3, 0},
		{"three 503s: gives up", 3, slowDown, true, 3, 503},
		{"403 is final", 1, faultproxy.Fault{Status: http.StatusForbidden}, true, 1, 403},
		{"connection reset then success", 1, faultproxy.Fault{Reset: true}, false, 2, 0},
		{"no answer then success", 1, faultproxy.Fault{Stall: true}, false, 2, 0},
	}
	for _, tt := range tests {
		for _, op := range []string{"head", "get", "put"} {
			t.Run(tt.name+" "+op, func(t *testing.T) {
				p, endpoint := faultproxy.Start(t, os.Getenv("AWS_ENDPOINT_URL_S3"), faultproxy.FirstN(tt.fail, tt.fault))
				cfg := zeroBackoff(loadConfig(t))
				if tt.fault.Stall {
					// The attempt's timeout; generous, as the retry that
					// follows reaches MinIO on a loaded machine.
					cfg.HTTPClient = awshttp.NewBuildableClient().WithTimeout(2 * time.Second)
				}
				via, err := New(cfg, s.bucket, Options{Endpoint: endpoint})
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				switch op {
				case "head":
					_, err = via.Head(ctx, "k")
				case "get":
					_, err = via.ReaderAt(ctx, "k", 10).ReadAt(make([]byte, 4), 2)
				case "put":
					err = via.Put(ctx, "put/"+tt.name, "text/plain", []byte("body sent again"))
				}
				if (err != nil) != tt.wantErr {
					t.Fatalf("%s = %v; want error %v", op, err, tt.wantErr)
				}
				if got := p.Requests(); got != tt.wantSent {
					t.Errorf("requests sent = %d; want %d", got, tt.wantSent)
				}
				if op == "put" && !tt.wantErr {
					if got := readAll(t, s, "put/"+tt.name); got != "body sent again" {
						t.Errorf("object put = %q; want the whole body", got)
					}
				}
				if !tt.wantErr {
					return
				}
				var re *awshttp.ResponseError
				if !errors.As(err, &re) || re.HTTPStatusCode() != tt.wantStatus {
					t.Errorf("error = %v; want the SDK's ResponseError with status %d", err, tt.wantStatus)
				}
				var api smithy.APIError
				if op != "head" && tt.fault.Body != "" && (!errors.As(err, &api) || api.ErrorCode() != "SlowDown" || api.ErrorMessage() == "") {
					t.Errorf("error = %v; want S3's code SlowDown and its message", err)
				}
				if errors.Is(err, ErrNotFound) {
					t.Errorf("error = %v; want it not to be ErrNotFound", err)
				}
			})
		}
	}
}

// readAll reads the object at key through the store.
func readAll(t *testing.T, s *Store, key string) string {
	t.Helper()
	obj, err := s.Head(context.Background(), key)
	if err != nil {
		t.Fatalf("Head(%q): %v", key, err)
	}
	b := make([]byte, obj.Size)
	if _, err := s.ReaderAt(context.Background(), key, obj.Size).ReadAt(b, 0); err != nil {
		t.Fatalf("ReadAt(%q): %v", key, err)
	}
	return string(b)
}

// TestErrorCodes reads S3's own error answers through the SDK's typed
// errors: NoSuchKey with its message and request id for a ranged GET of a
// missing key, which is also ErrNotFound.
func TestErrorCodes(t *testing.T) {
	s := newStore(t)
	_, err := s.ReaderAt(context.Background(), "missing", 10).ReadAt(make([]byte, 4), 0)
	var nsk *types.NoSuchKey
	var re *awshttp.ResponseError
	if !errors.As(err, &nsk) || nsk.ErrorMessage() == "" || !errors.As(err, &re) || re.HTTPStatusCode() != 404 || re.ServiceRequestID() == "" {
		t.Fatalf("ReadAt of a missing key = %v; want a 404 NoSuchKey with a message and request id", err)
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadAt of a missing key = %v; want ErrNotFound", err)
	}
}
