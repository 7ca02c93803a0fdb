package s3store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestPresignUpload uploads through a presigned PUT as the capture page
// will, after trying every way of breaking its terms.
func TestPresignUpload(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	// Spaces, a dash outside ASCII and slashes: the key must be escaped
	// once, the same way when signed and when sent.
	const key = "surveys/s1/clips/room 1 – living.webm"
	const ttl = 15 * time.Minute
	body := bytes.Repeat([]byte("v"), 1000)
	before := time.Now().Truncate(time.Second)
	up, err := s.PresignUpload(ctx, key, "video/webm;codecs=vp8,opus", int64(len(body)), ttl)
	if err != nil {
		t.Fatalf("PresignUpload: %v", err)
	}
	after := time.Now()
	if up.Method != http.MethodPut {
		t.Errorf("Method = %q; want PUT", up.Method)
	}
	if len(up.Headers) != 2 || up.Headers["Content-Type"] != "video/webm;codecs=vp8,opus" || up.Headers["If-None-Match"] != "*" {
		t.Errorf("Headers = %v; want only Content-Type: video/webm;codecs=vp8,opus and If-None-Match: *", up.Headers)
	}
	if up.ExpiresAt.Before(before.Add(ttl)) || up.ExpiresAt.After(after.Add(ttl)) {
		t.Errorf("ExpiresAt = %s; want between %s and %s", up.ExpiresAt, before.Add(ttl), after.Add(ttl))
	}

	tests := []struct {
		name    string
		body    []byte
		headers map[string]string
		want    int
	}{
		{"shorter", body[:999], up.Headers, http.StatusForbidden},
		{"longer", append(body, 'v'), up.Headers, http.StatusForbidden},
		{"other type", body, map[string]string{"Content-Type": "video/mp4", "If-None-Match": "*"}, http.StatusForbidden},
		// The condition is signed: a PUT without it is refused (as "no
		// type" below: 403 on Amazon S3, 400 on MinIO).
		{"no If-None-Match", body, map[string]string{"Content-Type": "video/webm;codecs=vp8,opus"}, http.StatusBadRequest},
		{"type without parameters", body, map[string]string{"Content-Type": "video/webm", "If-None-Match": "*"}, http.StatusForbidden},
		// Amazon S3 answers 403 SignatureDoesNotMatch; MinIO 400
		// AccessDenied ("headers present in the request which were not
		// signed").
		{"no type", body, nil, http.StatusBadRequest},
		{"as signed", body, up.Headers, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(up.Method, up.URL, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			if code, resp := do(t, req); code != tt.want {
				t.Errorf("PUT %d bytes, headers %v: got %d %s; want %d", len(tt.body), tt.headers, code, resp, tt.want)
			}
			if _, err := s.Head(ctx, key); tt.want != http.StatusOK && !errors.Is(err, ErrNotFound) {
				t.Errorf("Head after a refused PUT = %v; want ErrNotFound", err)
			}
		})
	}
	obj, err := s.Head(ctx, key)
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	if obj.Size != int64(len(body)) || obj.ContentType != "video/webm;codecs=vp8,opus" {
		t.Errorf("stored object %+v; want size %d, type video/webm;codecs=vp8,opus", obj, len(body))
	}
}

// TestPresignUploadExpiry: a URL signed for a second has expired after
// it; one signed for MaxUploadTTL still works.
func TestPresignUploadExpiry(t *testing.T) {
	s := newStore(t)
	body := []byte("clip")
	tests := []struct {
		name string
		ttl  time.Duration
		want int
	}{
		{"expired", time.Second, http.StatusForbidden},
		{"valid", MaxUploadTTL, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up, err := s.PresignUpload(context.Background(), "clip", "video/mp4", int64(len(body)), tt.ttl)
			if err != nil {
				t.Fatalf("PresignUpload: %v", err)
			}
			if want := time.Now().Add(tt.ttl); up.ExpiresAt.Before(want.Add(-2*time.Second)) || up.ExpiresAt.After(want) {
				t.Errorf("ExpiresAt %s; want within 2 s before now + %s", up.ExpiresAt, tt.ttl)
			}
			if tt.want == http.StatusForbidden {
				expiredSoon()
			}
			if expired := up.ExpiresAt.Before(time.Now()); expired != (tt.want == http.StatusForbidden) {
				t.Errorf("ExpiresAt %s in the past = %v; want %v", up.ExpiresAt, expired, !expired)
			}
			req, err := http.NewRequest(up.Method, up.URL, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range up.Headers {
				req.Header.Set(k, v)
			}
			code, resp := do(t, req)
			if code != tt.want {
				t.Fatalf("PUT: got %d %s; want %d", code, resp, tt.want)
			}
			if code == http.StatusForbidden && !strings.Contains(strings.ToLower(resp), "expired") {
				t.Errorf("403 body %s; want it to say the request expired", resp)
			}
		})
	}
}

// TestPresignUploadBounds checks every bound, on both sides.
func TestPresignUploadBounds(t *testing.T) {
	s := newStore(t)
	tests := []struct {
		name        string
		key         string
		contentType string
		size        int64
		ttl         time.Duration
		wantErr     bool
	}{
		{"smallest", "k", "video/mp4", 1, time.Second, false},
		{"largest", strings.Repeat("k", 1024), "video/webm;codecs=\"vp9, opus\"", MaxUploadSize, MaxUploadTTL, false},
		{"empty", "k", "video/mp4", 0, time.Minute, true},
		{"negative size", "k", "video/mp4", -1, time.Minute, true},
		{"over 500 MiB", "k", "video/mp4", MaxUploadSize + 1, time.Minute, true},
		{"no ttl", "k", "video/mp4", 10, 0, true},
		{"under a second", "k", "video/mp4", 10, 999 * time.Millisecond, true},
		{"over an hour", "k", "video/mp4", 10, MaxUploadTTL + time.Second, true},
		{"no key", "", "video/mp4", 10, time.Minute, true},
		{"key over 1024 bytes", strings.Repeat("k", 1025), "video/mp4", 10, time.Minute, true},
		{"key not UTF-8", "room\xff", "video/mp4", 10, time.Minute, true},
		{"no type", "k", "", 10, time.Minute, true},
		{"not a media type", "k", "webm", 10, time.Minute, true},
		{"newline in type", "k", "video/mp4\r\nX-Evil: 1", 10, time.Minute, true},
		{"leading space", "k", " video/mp4", 10, time.Minute, true},
		{"not ASCII", "k", "vidéo/mp4", 10, time.Minute, true},
		{"type over 255 bytes", "k", "video/" + strings.Repeat("x", 250), 10, time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.PresignUpload(context.Background(), tt.key, tt.contentType, tt.size, tt.ttl)
			if tt.wantErr && !errors.Is(err, ErrInvalid) {
				t.Errorf("PresignUpload(%.20q, %.20q, %d, %s) = %v; want ErrInvalid", tt.key, tt.contentType, tt.size, tt.ttl, err)
			}
			if !tt.wantErr && err != nil {
				t.Errorf("PresignUpload(%.20q, %.20q, %d, %s) = %v; want nil", tt.key, tt.contentType, tt.size, tt.ttl, err)
			}
		})
	}
}

// TestPresignGet plays a clip through its presigned address, whole and by
// a range, as a video element does when it seeks.
func TestPresignGet(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	data := numbered(1000)
	put(t, s, "clips/a.webm", "video/webm", data)
	url, err := s.PresignGet(ctx, "clips/a.webm", MaxGetTTL)
	if err != nil {
		t.Fatalf("PresignGet: %v", err)
	}
	missing, err := s.PresignGet(ctx, "clips/missing.webm", time.Minute)
	if err != nil {
		t.Fatalf("PresignGet of a missing key: %v; want a URL (nothing is sent)", err)
	}
	expired, err := s.PresignGet(ctx, "clips/a.webm", time.Second)
	if err != nil {
		t.Fatalf("PresignGet for a second: %v", err)
	}
	expiredSoon()

	tests := []struct {
		name      string
		url       string
		rng       string
		want      int
		wantBody  string
		wantRange string // Content-Range
	}{
		{"whole", url, "", http.StatusOK, string(data), ""},
		{"range", url, "bytes=100-199", http.StatusPartialContent, string(data[100:200]), "bytes 100-199/1000"},
		{"open range", url, "bytes=990-", http.StatusPartialContent, string(data[990:]), "bytes 990-999/1000"},
		{"missing object", missing, "", http.StatusNotFound, "", ""},
		{"expired", expired, "", http.StatusForbidden, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.rng != "" {
				req.Header.Set("Range", tt.rng)
			}
			resp, err := browser.Do(req)
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			defer resp.Body.Close()
			var body bytes.Buffer
			_, _ = body.ReadFrom(resp.Body)
			if resp.StatusCode != tt.want {
				t.Fatalf("GET Range %q: got %d %s; want %d", tt.rng, resp.StatusCode, body.String(), tt.want)
			}
			if tt.wantBody != "" && body.String() != tt.wantBody {
				t.Errorf("body = %q; want %q", body.String(), tt.wantBody)
			}
			if got := resp.Header.Get("Content-Range"); got != tt.wantRange {
				t.Errorf("Content-Range = %q; want %q", got, tt.wantRange)
			}
		})
	}
}

func TestPresignGetBounds(t *testing.T) {
	s := newStore(t)
	tests := []struct {
		name    string
		key     string
		ttl     time.Duration
		wantErr bool
	}{
		{"shortest", "k", time.Second, false},
		{"longest", "k", MaxGetTTL, false},
		{"over 10 minutes", "k", MaxGetTTL + time.Second, true},
		{"no ttl", "k", 0, true},
		{"negative ttl", "k", -time.Minute, true},
		{"no key", "", time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, err := s.PresignGet(context.Background(), tt.key, tt.ttl)
			if tt.wantErr && (!errors.Is(err, ErrInvalid) || url != "") {
				t.Errorf("PresignGet(%q, %s) = %q, %v; want \"\", ErrInvalid", tt.key, tt.ttl, url, err)
			}
			if !tt.wantErr && (err != nil || url == "") {
				t.Errorf("PresignGet(%q, %s) = %q, %v; want a URL", tt.key, tt.ttl, url, err)
			}
		})
	}
}

// TestPresignUploadCreatesOnce: an upload URL creates its object once. A
// first attempt cut off mid-body leaves no object, so the retry through
// the same URL succeeds; once the object exists, another PUT through the
// URL (other bytes of the same size) is refused with 412 and the object
// keeps its bytes and ETag.
func TestPresignUploadCreatesOnce(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	const key = "clips/p/test/s/c"
	first, second := numbered(4096), bytes.Repeat([]byte{0xee}, 4096)
	up, err := s.PresignUpload(ctx, key, "video/mp4", int64(len(first)), time.Minute)
	if err != nil {
		t.Fatalf("PresignUpload: %v", err)
	}
	send := func(body io.Reader) (int, error) {
		req, err := http.NewRequest(up.Method, up.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = int64(len(first))
		for k, v := range up.Headers {
			req.Header.Set(k, v)
		}
		resp, err := browser.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}

	// The connection drops after half the body: no object.
	cut := io.MultiReader(bytes.NewReader(first[:2048]), iotest.ErrReader(errors.New("connection dropped")))
	if code, err := send(cut); err == nil {
		t.Fatalf("PUT cut short: got %d; want a transport error", code)
	}
	if _, err := s.Head(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Head after a PUT cut short = %v; want ErrNotFound", err)
	}
	if code, err := send(bytes.NewReader(first)); err != nil || code != http.StatusOK {
		t.Fatalf("retried PUT: got %d, %v; want 200", code, err)
	}
	before, err := s.Head(ctx, key)
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	if code, err := send(bytes.NewReader(second)); err != nil || code != http.StatusPreconditionFailed {
		t.Fatalf("second PUT through the same URL: got %d, %v; want 412", code, err)
	}
	after, err := s.Head(ctx, key)
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	if after != before {
		t.Errorf("object after a refused PUT = %+v; want it unchanged, %+v", after, before)
	}
	got := make([]byte, len(first))
	if _, err := s.ReaderAt(ctx, key, int64(len(first))).ReadAt(got, 0); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("read object: %v", err)
	}
	if !bytes.Equal(got, first) {
		t.Errorf("object bytes changed by a refused PUT")
	}
}
