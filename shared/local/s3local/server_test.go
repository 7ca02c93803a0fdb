package s3local

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// startServer starts a server for one test and stops it at the end.
func startServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts MinIO")
	}
	s, took := childproctest.StartServer(t, forTestsTimeout, func(ctx context.Context) (*Server, error) { return Start(ctx, opts...) })
	t.Logf("MinIO ready at %s after %v", s.Endpoint, took)
	return s
}

// status sends an unsigned GET to url and returns the status code.
func status(t *testing.T, url string) int {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestStartServesS3AndStopCloses(t *testing.T) {
	s := startServer(t)
	if !strings.HasPrefix(s.Endpoint, "http://127.0.0.1:") {
		t.Errorf("Endpoint = %q; want http://127.0.0.1:PORT", s.Endpoint)
	}
	ctx := context.Background()

	t.Run("health check answers 200", func(t *testing.T) {
		if got := status(t, s.Endpoint+healthPath); got != http.StatusOK {
			t.Errorf("GET %s = %d; want 200", healthPath, got)
		}
	})
	t.Run("unsigned request is refused", func(t *testing.T) {
		if got := status(t, s.Endpoint+"/"); got != http.StatusForbidden {
			t.Errorf("unsigned ListBuckets = %d; want 403", got)
		}
	})
	t.Run("wrong secret is refused", func(t *testing.T) {
		c := s.Client(func(o *s3.Options) {
			o.Credentials = credentials.NewStaticCredentialsProvider(s.AccessKey, "not-the-secret", "")
		})
		if _, err := c.ListBuckets(ctx, &s3.ListBucketsInput{}); err == nil || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
			t.Errorf("ListBuckets with a wrong secret = %v; want SignatureDoesNotMatch", err)
		}
	})
	t.Run("signed requests create and list a bucket", func(t *testing.T) {
		c := s.Client()
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("first")}); err != nil {
			t.Fatalf("CreateBucket: %v", err)
		}
		out, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
		if err != nil {
			t.Fatalf("ListBuckets: %v", err)
		}
		if len(out.Buckets) != 1 || aws.ToString(out.Buckets[0].Name) != "first" {
			t.Errorf("ListBuckets = %d buckets; want just \"first\"", len(out.Buckets))
		}
	})

	childproctest.StopCloses(t, s.Stop, s.Endpoint, func() {
		if _, err := os.Stat(s.dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("data directory %s after Stop: %v; want it removed", s.dir, err)
		}
	})
}

func TestStopReportsServerThatDiedFirst(t *testing.T) {
	s := startServer(t)
	childproctest.StopReportsDeath(t, s.proc.Pid(), s.proc.Done(), s.Stop)
	if _, err := os.Stat(s.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data directory %s after Stop: %v; want it removed", s.dir, err)
	}
}

func TestStartHonoursCanceledContext(t *testing.T) {
	if testing.Short() {
		t.Skip("may install MinIO")
	}
	childproctest.StartHonoursCanceledContext(t, forTestsTimeout, installOnly, func(ctx context.Context) (*Server, error) { return Start(ctx) })
}

// TestStartRefusesInvalidOptions needs no MinIO: options are checked first.
func TestStartRefusesInvalidOptions(t *testing.T) {
	ok := Webhook{ID: "clips", Endpoint: "http://127.0.0.1:9/events"}
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"webhook without ID", []Option{WithWebhooks(Webhook{Endpoint: ok.Endpoint})}, "no ID"},
		{"webhook ID with a dash", []Option{WithWebhooks(Webhook{ID: "a-b", Endpoint: ok.Endpoint})}, "underscores"},
		{"webhook ID with a space", []Option{WithWebhooks(Webhook{ID: "a b", Endpoint: ok.Endpoint})}, "underscores"},
		{"relative endpoint", []Option{WithWebhooks(Webhook{ID: "x", Endpoint: "/events"})}, "absolute"},
		{"ftp endpoint", []Option{WithWebhooks(Webhook{ID: "x", Endpoint: "ftp://127.0.0.1/x"})}, "absolute"},
		{"unparsable endpoint", []Option{WithWebhooks(Webhook{ID: "x", Endpoint: "http://[::1"})}, "endpoint"},
		{"auth token of three words", []Option{WithWebhooks(Webhook{ID: "x", Endpoint: ok.Endpoint, AuthToken: "a b c"})}, "auth token"},
		{"auth token of blanks", []Option{WithWebhooks(Webhook{ID: "x", Endpoint: ok.Endpoint, AuthToken: " "})}, "auth token"},
		{"repeated ID", []Option{WithWebhooks(ok), WithWebhooks(ok)}, "twice"},
		{"empty origin", []Option{WithCORSOrigins("")}, "CORS origin"},
		{"origin list in one", []Option{WithCORSOrigins("http://a,http://b")}, "CORS origin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Start(context.Background(), tt.opts...)
			if err == nil {
				_ = s.Stop()
				t.Fatalf("Start = nil error; want one mentioning %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start = %v; want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestForTestsPrefersRunningServer(t *testing.T) {
	tests := []struct {
		name              string
		key, secret       string // AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
		s3key, s3secret   string // EnvAccessKey, EnvSecretKey
		wantKey, wantSecr string
	}{
		{"credentials from the environment", "dev-key", "dev-secret", "", "", "dev-key", "dev-secret"},
		{"default credentials", "", "", "", "", rootUser, rootPassword},
		// make test's shared MinIO, after dynamolocal.SetEnv's dummies.
		{"the server's own variables first", "local", "local", "s3-key", "s3-secret", "s3-key", "s3-secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const endpoint = "http://127.0.0.1:1"
			t.Setenv("AWS_ENDPOINT_URL_S3", endpoint)
			t.Setenv("AWS_ACCESS_KEY_ID", tt.key)
			t.Setenv("AWS_SECRET_ACCESS_KEY", tt.secret)
			t.Setenv(EnvAccessKey, tt.s3key)
			t.Setenv(EnvSecretKey, tt.s3secret)
			srv, stop, err := ForTests()
			if err != nil {
				t.Fatalf("ForTests: %v", err)
			}
			defer stop()
			if srv.Endpoint != endpoint || srv.AccessKey != tt.wantKey || srv.SecretKey != tt.wantSecr {
				t.Errorf("ForTests() = {%q %q %q}; want {%q %q %q}", srv.Endpoint, srv.AccessKey, srv.SecretKey, endpoint, tt.wantKey, tt.wantSecr)
			}
			if err := srv.Stop(); err != nil {
				t.Errorf("Stop of a running server = %v; want nil", err)
			}
		})
	}
}

func TestForTestsSharesOneServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO")
	}
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	childproctest.SharesOneServer(t, ForTests, func(s *Server) string { return s.Endpoint }, func(t *testing.T, s *Server) {
		if got := status(t, s.Endpoint+healthPath); got != http.StatusOK {
			t.Errorf("GET %s = %d; want 200", healthPath, got)
		}
	})
}

// TestStartRetriesWhenPortIsTaken gives the first attempt an API port that
// another listener holds: MinIO cannot bind it, and the listener must not
// pass for the server.
func TestStartRetriesWhenPortIsTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO")
	}
	endpoint := childproctest.RetriesPastTakenPort(t, &pickPorts, func() string { return startServer(t).Endpoint })
	if got := status(t, endpoint+healthPath); got != http.StatusOK {
		t.Errorf("GET %s = %d; want 200", healthPath, got)
	}
}

// installOnly installs the server (for StartHonoursCanceledContext).
func installOnly(ctx context.Context) error {
	_, err := Install(ctx)
	return err
}
