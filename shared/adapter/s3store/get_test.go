package s3store

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestGet: Get returns a small object's bytes, an empty object's none,
// and refuses one over its bound without returning any of it.
func TestGet(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	data := numbered(4096)
	put(t, s, "signatures/p/test/q/abc.png", "image/png", data)
	put(t, s, "signatures/p/test/q/empty.png", "image/png", nil)
	tests := []struct {
		name string
		key  string
		max  int64
		want []byte
	}{
		{"under the bound", "signatures/p/test/q/abc.png", 1 << 20, data},
		{"at the bound", "signatures/p/test/q/abc.png", 4096, data},
		{"empty", "signatures/p/test/q/empty.png", 10, []byte{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Get(ctx, tt.key, tt.max)
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Errorf("Get(%q, %d) = %d bytes, %v; want the %d bytes stored", tt.key, tt.max, len(got), err, len(tt.want))
			}
		})
	}
}

func TestGetErrors(t *testing.T) {
	s := newStore(t)
	put(t, s, "signatures/p/test/q/big.png", "image/png", numbered(4097))
	tests := []struct {
		name    string
		store   *Store
		key     string
		max     int64
		wantErr error // nil: an error that is neither sentinel
	}{
		{"over the bound", s, "signatures/p/test/q/big.png", 4096, ErrTooLarge},
		{"missing key", s, "signatures/p/test/q/missing.png", 4096, ErrNotFound},
		{"missing bucket", mustNew(t, loadConfig(t), s.bucket+"-gone"), "k", 4096, ErrNotFound},
		{"empty key", s, "", 4096, ErrInvalid},
		{"negative bound", s, "signatures/p/test/q/big.png", -1, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.store.Get(context.Background(), tt.key, tt.max)
			if err == nil || got != nil {
				t.Fatalf("Get(%q, %d) = %d bytes, %v; want no bytes and an error", tt.key, tt.max, len(got), err)
			}
			for _, sentinel := range []error{ErrTooLarge, ErrNotFound, ErrInvalid} {
				if errors.Is(err, sentinel) != (sentinel == tt.wantErr) {
					t.Errorf("Get(%q, %d) = %v; errors.Is %v = %v", tt.key, tt.max, err, sentinel, errors.Is(err, sentinel))
				}
			}
			if tt.key != "" && !strings.Contains(err.Error(), tt.key) {
				t.Errorf("Get(%q) = %v; want the key in the error", tt.key, err)
			}
		})
	}
}
