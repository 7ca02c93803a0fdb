package lazy_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/lazy"
)

// TestMapBuildsOncePerKeyAndRetriesFailures: a key's value is built by
// the first successful call only, even under concurrent first calls; a
// failure is returned and the next call builds again.
func TestMapBuildsOncePerKeyAndRetriesFailures(t *testing.T) {
	var mu sync.Mutex
	builds := map[string]int{}
	fail := true
	m := lazy.NewMap(func(_ context.Context, k string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		builds[k]++
		if k == "b" && fail {
			fail = false
			return "", errors.New("secret unavailable")
		}
		return k + "-value", nil
	})
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := m.Get(ctx, "a"); err != nil || v != "a-value" {
				t.Errorf("Get(a) = %q, %v; want a-value, nil", v, err)
			}
		}()
	}
	wg.Wait()
	if _, err := m.Get(ctx, "b"); err == nil {
		t.Error("Get(b) on a failing build: err = nil; want the build's error")
	}
	if v, err := m.Get(ctx, "b"); err != nil || v != "b-value" {
		t.Errorf("Get(b) after a failure = %q, %v; want b-value, nil", v, err)
	}
	if _, err := m.Get(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if builds["a"] != 1 || builds["b"] != 2 {
		t.Errorf("builds = %v; want a:1 (once, under 8 concurrent calls), b:2 (the failure, then once)", builds)
	}
}

// TestValueKeepsTheFirstSuccess: a Value is built once and kept.
func TestValueKeepsTheFirstSuccess(t *testing.T) {
	n := 0
	v := lazy.NewValue(func(context.Context) (int, error) { n++; return n, nil })
	for range 3 {
		if got, err := v.Get(context.Background()); err != nil || got != 1 {
			t.Fatalf("Get = %d, %v; want 1, nil (the first build's value)", got, err)
		}
	}
}
