package s3store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
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

// faultyProxy is a reverse proxy to the local S3 server that answers the
// first fail requests itself with status, and counts every request.
type faultyProxy struct {
	*httptest.Server
	requests atomic.Int64
}

func newFaultyProxy(t *testing.T, fail int64, status int) *faultyProxy {
	t.Helper()
	target, err := url.Parse(os.Getenv("AWS_ENDPOINT_URL_S3"))
	if err != nil || target.Host == "" {
		t.Fatalf("AWS_ENDPOINT_URL_S3 = %q: %v", os.Getenv("AWS_ENDPOINT_URL_S3"), err)
	}
	p := &faultyProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Director = func(r *http.Request) {
		// The signature covers Host: keep the one signed (the proxy's),
		// and let MinIO, which checks it, see the same host.
		r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.requests.Add(1) <= fail {
			w.WriteHeader(status)
			if r.Method != http.MethodHead {
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// TestRetries sends Head and ranged GETs through a proxy that fails the
// first requests: 5xx answers are retried (up to three attempts in all),
// 4xx answers are not.
func TestRetries(t *testing.T) {
	s := newStore(t)
	put(t, s, "k", "video/mp4", []byte("0123456789"))
	tests := []struct {
		name       string
		fail       int64
		status     int
		wantErr    bool
		wantSent   int64
		wantStatus int
	}{
		{"one 503 then success", 1, http.StatusServiceUnavailable, false, 2, 0},
		{"two 500s then success", 2, http.StatusInternalServerError, false, 3, 0},
		{"three 503s: gives up", 3, http.StatusServiceUnavailable, true, 3, 503},
		{"403 is final", 1, http.StatusForbidden, true, 1, 403},
	}
	for _, tt := range tests {
		for _, op := range []string{"head", "get"} {
			t.Run(tt.name+" "+op, func(t *testing.T) {
				p := newFaultyProxy(t, tt.fail, tt.status)
				via, err := New(loadConfig(t), s.bucket, Options{Endpoint: p.URL})
				if err != nil {
					t.Fatal(err)
				}
				if op == "head" {
					_, err = via.Head(context.Background(), "k")
				} else {
					_, err = via.ReaderAt(context.Background(), "k", 10).ReadAt(make([]byte, 4), 2)
				}
				if (err != nil) != tt.wantErr {
					t.Fatalf("%s = %v; want error %v", op, err, tt.wantErr)
				}
				if got := p.requests.Load(); got != tt.wantSent {
					t.Errorf("requests sent = %d; want %d", got, tt.wantSent)
				}
				var re *ResponseError
				if tt.wantErr && (!errors.As(err, &re) || re.Status != tt.wantStatus) {
					t.Errorf("error = %v; want a *ResponseError with status %d", err, tt.wantStatus)
				}
				if tt.wantErr && op == "get" && tt.status == http.StatusServiceUnavailable && re != nil && (re.Code != "SlowDown" || re.Message == "") {
					t.Errorf("error = %+v; want S3's code SlowDown and its message", re)
				}
				if errors.Is(err, ErrNotFound) {
					t.Errorf("error = %v; want it not to be ErrNotFound", err)
				}
			})
		}
	}
}

// TestErrorCodes reads S3's own error answers: the code and message of a
// GET's XML body, and ErrNotFound for a missing key.
func TestErrorCodes(t *testing.T) {
	s := newStore(t)
	_, err := s.ReaderAt(context.Background(), "missing", 10).ReadAt(make([]byte, 4), 0)
	var re *ResponseError
	if !errors.As(err, &re) || re.Status != 404 || re.Code != "NoSuchKey" || re.Message == "" || re.RequestID == "" {
		t.Fatalf("ReadAt of a missing key = %v (%+v); want 404 NoSuchKey with a message and request id", err, re)
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadAt of a missing key = %v; want ErrNotFound", err)
	}
}

// FuzzEscapeKey: an escaped key holds only unreserved characters, "/" and
// %XX, and unescapes to the key.
func FuzzEscapeKey(f *testing.F) {
	for _, k := range []string{"clips/a b+c.mp4", "ünï/cödé", "%20", "a?b#c", "~-._/", "\x00\xff"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		esc := escapeKey(key)
		for i := 0; i < len(esc); i++ {
			c := esc[i]
			ok := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/%", c) >= 0
			if !ok {
				t.Fatalf("escapeKey(%q) = %q holds %q", key, esc, c)
			}
		}
		back, err := url.PathUnescape(esc)
		if err != nil || back != key {
			t.Fatalf("escapeKey(%q) = %q unescapes to %q, %v", key, esc, back, err)
		}
	})
}
