package s3store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
)

func TestHead(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	data := numbered(1234)
	etag := put(t, s, "clips/a.mp4", "video/mp4", data)

	got, err := s.Head(ctx, "clips/a.mp4")
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	want := Object{Size: 1234, ContentType: "video/mp4", ETag: strings.Trim(etag, `"`)}
	if got != want || want.ETag == "" || strings.Contains(got.ETag, `"`) {
		t.Errorf("Head = %+v; want %+v (PutObject's ETag %s, unquoted)", got, want, etag)
	}
}

func TestHeadErrors(t *testing.T) {
	s := newStore(t)
	put(t, s, "k", "video/mp4", []byte("x"))
	// Credentials MinIO does not know: S3 answers 403, not 404.
	cfg := loadConfig(t)
	cfg.Credentials = credentials.NewStaticCredentialsProvider("stranger", "not-a-secret", "")
	stranger := mustNew(t, cfg, s.bucket)
	tests := []struct {
		name         string
		store        *Store
		key          string
		wantNotFound bool
		wantInvalid  bool
	}{
		{"missing key", s, "clips/missing.mp4", true, false},
		{"missing bucket", mustNew(t, loadConfig(t), s.bucket+"-gone"), "k", true, false},
		{"empty key", s, "", false, true},
		{"refused", stranger, "k", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := tt.store.Head(context.Background(), tt.key)
			if err == nil {
				t.Fatalf("Head(%q) = %+v, nil; want an error", tt.key, obj)
			}
			if got := errors.Is(err, ErrNotFound); got != tt.wantNotFound {
				t.Errorf("Head(%q) = %v; errors.Is ErrNotFound = %v, want %v", tt.key, err, got, tt.wantNotFound)
			}
			if got := errors.Is(err, ErrInvalid); got != tt.wantInvalid {
				t.Errorf("Head(%q) = %v; errors.Is ErrInvalid = %v, want %v", tt.key, err, got, tt.wantInvalid)
			}
			if tt.key != "" && !strings.Contains(err.Error(), tt.key) {
				t.Errorf("Head(%q) = %v; want the key in the error", tt.key, err)
			}
		})
	}
}

// TestTouch: Touch stores an empty object (replacing one that is there),
// which Head then finds; an invalid key is refused before any request.
func TestTouch(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	put(t, s, "clips/p/m/s/finished", "video/mp4", []byte("old"))
	for range 2 { // a retried finish touches the marker again
		if err := s.Touch(ctx, "clips/p/m/s/finished"); err != nil {
			t.Fatalf("Touch: %v", err)
		}
	}
	got, err := s.Head(ctx, "clips/p/m/s/finished")
	if err != nil || got.Size != 0 {
		t.Errorf("Head after Touch = %+v, %v; want an empty object", got, err)
	}
	if err := s.Touch(ctx, ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("Touch(\"\") = %v; want ErrInvalid", err)
	}
}

func TestPut(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	body := []byte("\x89PNG\r\n\x1a\nsignature")
	for range 2 { // the same image stored again replaces it with itself
		if err := s.Put(ctx, "signatures/p/test/q/abc.png", "image/png", body); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	got, err := s.Head(ctx, "signatures/p/test/q/abc.png")
	if err != nil || got.Size != int64(len(body)) {
		t.Fatalf("Head after Put = %+v, %v; want %d bytes", got, err, len(body))
	}
	buf := make([]byte, len(body))
	if n, err := s.ReaderAt(ctx, "signatures/p/test/q/abc.png", got.Size).ReadAt(buf, 0); n != len(body) || string(buf) != string(body) {
		t.Errorf("read back %q (%d, %v); want %q", buf[:n], n, err, body)
	}
	if err := s.Put(ctx, "", "image/png", body); !errors.Is(err, ErrInvalid) {
		t.Errorf("Put(\"\") = %v; want ErrInvalid", err)
	}
}
