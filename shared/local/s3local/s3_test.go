package s3local

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// httpClient is the plain client that plays the browser.
var httpClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}

// do sends req and returns the status and body.
func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := httpClient.Do(req)
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

// newBucket creates a bucket with CreateBucket and fails the test on error.
func newBucket(t *testing.T, s *Server, b Bucket) *s3.Client {
	t.Helper()
	c := s.Client()
	if err := CreateBucket(context.Background(), c, b); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	return c
}

// TestSDKFromEnvironment builds a client the way code under test does,
// from the variables SetEnv sets, and uses it.
func TestSDKFromEnvironment(t *testing.T) {
	s := startServer(t)
	for _, kv := range Env(s) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatalf("LoadDefaultConfig: %v", err)
	}
	c := s3.NewFromConfig(cfg)
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("from-env")}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("from-env"), Key: aws.String("k"), Body: strings.NewReader("v")}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	if _, err := s.Client().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("from-env"), Key: aws.String("k")}); err != nil {
		t.Errorf("HeadObject of the object put through the environment's client: %v", err)
	}
}

func TestCreateBucketKeepsAnOwnedBucket(t *testing.T) {
	t.Parallel() // a MinIO of its own
	s := startServer(t)
	ctx := context.Background()
	c := newBucket(t, s, Bucket{Name: "kept"})
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("kept"), Key: aws.String("k"), Body: strings.NewReader("v")}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	if err := CreateBucket(ctx, c, Bucket{Name: "kept"}); err != nil {
		t.Fatalf("second CreateBucket: %v; want nil for a bucket we own", err)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("kept"), Key: aws.String("k")}); err != nil {
		t.Errorf("HeadObject after the second CreateBucket: %v; want the object kept", err)
	}
	if err := CreateBucket(ctx, c, Bucket{Name: "Not_A_Bucket"}); err == nil || !strings.Contains(err.Error(), "create bucket Not_A_Bucket") {
		t.Errorf("CreateBucket of an invalid name = %v; want an error naming the bucket", err)
	}
}

// TestCORS sends a browser's preflight for a presigned PUT from an allowed
// origin and from others.
func TestCORS(t *testing.T) {
	t.Parallel() // a MinIO of its own
	const origin = "http://127.0.0.1:3000"
	preflight := func(t *testing.T, s *Server, from string) (int, http.Header) {
		t.Helper()
		req, err := http.NewRequest(http.MethodOptions, s.Endpoint+"/clips/a.webm", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", from)
		req.Header.Set("Access-Control-Request-Method", "PUT")
		req.Header.Set("Access-Control-Request-Headers", "content-type")
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatalf("OPTIONS: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	allowed := startServer(t, WithCORSOrigins(origin))
	newBucket(t, allowed, Bucket{Name: "clips"})
	plain := startServer(t)
	newBucket(t, plain, Bucket{Name: "clips"})

	tests := []struct {
		name      string
		srv       *Server
		origin    string
		wantAllow string // Access-Control-Allow-Origin; "" = none
	}{
		{"allowed origin", allowed, origin, origin},
		{"other port", allowed, "http://127.0.0.1:3001", ""},
		{"other host", allowed, "https://example.com", ""},
		{"no origins configured", plain, origin, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, h := preflight(t, tt.srv, tt.origin)
			if got := h.Get("Access-Control-Allow-Origin"); got != tt.wantAllow {
				t.Errorf("preflight from %s: %d, Access-Control-Allow-Origin %q; want %q", tt.origin, code, got, tt.wantAllow)
			}
			if tt.wantAllow == "" {
				return
			}
			if code/100 != 2 {
				t.Errorf("preflight status %d; want 2xx", code)
			}
			if got := h.Get("Access-Control-Allow-Methods"); !strings.Contains(got, "PUT") {
				t.Errorf("Access-Control-Allow-Methods = %q; want PUT", got)
			}
			if got := strings.ToLower(h.Get("Access-Control-Allow-Headers")); !strings.Contains(got, "content-type") {
				t.Errorf("Access-Control-Allow-Headers = %q; want content-type", got)
			}
		})
	}
}

// TestPresignedPut signs Content-Type and Content-Length into a PUT URL,
// as the capture page's upload will: the exact request succeeds, any other
// length or type is refused.
func TestPresignedPut(t *testing.T) {
	t.Parallel() // a MinIO of its own
	s := startServer(t)
	c := newBucket(t, s, Bucket{Name: "clips"})
	ctx := context.Background()
	body := bytes.Repeat([]byte("v"), 1000)
	signed, err := s3.NewPresignClient(c).PresignPutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String("clips"),
		Key:           aws.String("s1/room-1.webm"),
		ContentType:   aws.String("video/webm"),
		ContentLength: aws.Int64(int64(len(body))),
	}, s3.WithPresignExpires(15*time.Minute))
	if err != nil {
		t.Fatalf("PresignPutObject: %v", err)
	}
	for _, h := range []string{"content-length", "content-type"} {
		if got := signed.SignedHeader; !strings.Contains(strings.ToLower(signed.URL), h) || got.Get(h) == "" {
			t.Errorf("presigned URL %s / headers %v do not sign %s", signed.URL, got, h)
		}
	}

	tests := []struct {
		name        string
		body        []byte
		contentType string
		want        int
	}{
		{"other length", body[:999], "video/webm", http.StatusForbidden},
		{"other type", body, "video/mp4", http.StatusForbidden},
		{"as signed", body, "video/webm", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPut, signed.URL, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", tt.contentType)
			if code, resp := do(t, req); code != tt.want {
				t.Errorf("PUT %d bytes of %s = %d %s; want %d", len(tt.body), tt.contentType, code, resp, tt.want)
			}
		})
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("clips"), Key: aws.String("s1/room-1.webm")})
	if err != nil {
		t.Fatalf("HeadObject: %v", err)
	}
	if got := aws.ToInt64(head.ContentLength); got != int64(len(body)) {
		t.Errorf("stored length %d; want %d", got, len(body))
	}
	if got := aws.ToString(head.ContentType); got != "video/webm" {
		t.Errorf("stored type %q; want video/webm", got)
	}
}

// TestPresignedPost limits the size of a browser's form upload with a
// content-length-range condition.
func TestPresignedPost(t *testing.T) {
	t.Parallel() // a MinIO of its own
	s := startServer(t)
	c := newBucket(t, s, Bucket{Name: "clips"})
	const limit = 1024
	signed, err := s3.NewPresignClient(c).PresignPostObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String("clips"),
		Key:    aws.String("s1/room-2.webm"),
	}, func(o *s3.PresignPostOptions) {
		o.Expires = 15 * time.Minute
		o.Conditions = []interface{}{[]interface{}{"content-length-range", 1, limit}}
	})
	if err != nil {
		t.Fatalf("PresignPostObject: %v", err)
	}

	tests := []struct {
		name     string
		size     int
		want     int
		wantBody string
	}{
		{"over the limit", limit + 1, http.StatusBadRequest, "<Code>EntityTooLarge</Code>"},
		{"at the limit", limit, http.StatusNoContent, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var form bytes.Buffer
			w := multipart.NewWriter(&form)
			for k, v := range signed.Values {
				if err := w.WriteField(k, v); err != nil {
					t.Fatal(err)
				}
			}
			// The file must be the form's last field.
			part, err := w.CreateFormFile("file", "room-2.webm")
			if err != nil {
				t.Fatal(err)
			}
			part.Write(bytes.Repeat([]byte("v"), tt.size))
			w.Close()
			req, err := http.NewRequest(http.MethodPost, signed.URL, &form)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", w.FormDataContentType())
			code, body := do(t, req)
			if code != tt.want || !strings.Contains(body, tt.wantBody) {
				t.Errorf("POST %d bytes = %d %s; want %d %s", tt.size, code, body, tt.want, tt.wantBody)
			}
		})
	}
}

// TestRangedGet reads the first 100 bytes of an object, as a clip
// processor reads a container's header.
func TestRangedGet(t *testing.T) {
	t.Parallel() // a MinIO of its own
	s := startServer(t)
	c := newBucket(t, s, Bucket{Name: "clips"})
	ctx := context.Background()
	var content bytes.Buffer
	for i := 0; content.Len() < 1000; i++ {
		content.WriteString(strconv.Itoa(i))
	}
	data := content.Bytes()[:1000]
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("clips"), Key: aws.String("clip"), Body: bytes.NewReader(data)}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}

	t.Run("sdk", func(t *testing.T) {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("clips"), Key: aws.String("clip"), Range: aws.String("bytes=0-99")})
		if err != nil {
			t.Fatalf("GetObject: %v", err)
		}
		defer out.Body.Close()
		got, err := io.ReadAll(out.Body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data[:100]) {
			t.Errorf("body = %q; want the first 100 bytes %q", got, data[:100])
		}
		if cr := aws.ToString(out.ContentRange); cr != "bytes 0-99/1000" {
			t.Errorf("Content-Range = %q; want bytes 0-99/1000", cr)
		}
	})
	t.Run("presigned", func(t *testing.T) {
		signed, err := s3.NewPresignClient(c).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("clips"), Key: aws.String("clip")})
		if err != nil {
			t.Fatalf("PresignGetObject: %v", err)
		}
		req, err := http.NewRequest(http.MethodGet, signed.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Range", "bytes=900-")
		code, body := do(t, req)
		if code != http.StatusPartialContent || body != string(data[900:]) {
			t.Errorf("GET Range bytes=900- = %d %q; want 206 %q", code, body, data[900:])
		}
	})
}
