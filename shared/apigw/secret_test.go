package apigw

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/errcode"
)

func TestLazySignerLoadsOnceAndRetriesFailures(t *testing.T) {
	calls := 0
	fail := true
	l := &lazySigner{load: func(context.Context) ([]byte, error) {
		calls++
		if fail {
			return nil, errors.New("secrets manager unreachable")
		}
		return secretBytes(strings.Repeat("ab", 32)), nil
	}}
	_, err := l.get(context.Background())
	if e := errcode.As(err); e == nil || e.Code != errcode.UpstreamFailed {
		t.Fatalf("failed load: %v; want upstream_failed", err)
	}
	fail = false
	for i := 0; i < 3; i++ {
		if s, err := l.get(context.Background()); err != nil || s == nil {
			t.Fatalf("get %d: %v", i, err)
		}
	}
	if calls != 2 {
		t.Errorf("secret loaded %d times; want 2 (one failure, then once)", calls)
	}
}

func TestSecretBytes(t *testing.T) {
	if got := secretBytes("00ff"); string(got) != "\x00\xff" {
		t.Errorf("hex secret decoded to %q", got)
	}
	if got := secretBytes("not hex!"); string(got) != "not hex!" {
		t.Errorf("raw secret became %q", got)
	}
}
