package childproc

import (
	"context"
	"errors"
	"testing"
	"time"
)

type fakeServer struct{ stops int }

func (f *fakeServer) Stop() error { f.stops++; return nil }

func TestSharedStartsOnce(t *testing.T) {
	var s Shared[*fakeServer]
	starts := 0
	start := func(ctx context.Context) (*fakeServer, error) {
		starts++
		if _, ok := ctx.Deadline(); !ok {
			t.Error("start's context has no deadline")
		}
		return &fakeServer{}, nil
	}
	first, stop, err := s.Get(time.Minute, start)
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := s.Get(time.Minute, start)
	if err != nil || second != first || starts != 1 {
		t.Errorf("second Get = %p, %v after %d starts; want %p, nil after 1", second, err, starts, first)
	}
	stop()
	if first.stops != 1 {
		t.Errorf("stop stopped the server %d times; want 1", first.stops)
	}
}

func TestSharedKeepsTheStartError(t *testing.T) {
	var s Shared[*fakeServer]
	boom := errors.New("boom")
	starts := 0
	start := func(context.Context) (*fakeServer, error) { starts++; return nil, boom }
	for range 2 {
		srv, stop, err := s.Get(time.Minute, start)
		if srv != nil || !errors.Is(err, boom) {
			t.Errorf("Get = %v, %v; want nil, boom", srv, err)
		}
		stop() // does nothing
	}
	if starts != 1 {
		t.Errorf("start ran %d times; want 1", starts)
	}
}
