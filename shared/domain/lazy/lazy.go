// Package lazy holds values built on first use from a secret: a signer, a
// sealer, a client per mode. A cold start pays nothing for the secret, a
// value is built once per instance, and a failed build is not kept, so the
// next call tries again.
//
//	signer := lazy.NewValue(func(ctx context.Context) (*cursor.Signer, error) { … })
//	s, err := signer.Get(ctx)
package lazy

import (
	"context"
	"sync"
)

// Map builds the value of a key on the first call for that key that
// succeeds, and returns it from then on. Calls are serialised under one
// mutex, so concurrent first calls build once.
type Map[K comparable, V any] struct {
	build func(context.Context, K) (V, error)
	mu    sync.Mutex
	vals  map[K]V
}

// NewMap returns a Map whose values build makes.
func NewMap[K comparable, V any](build func(context.Context, K) (V, error)) *Map[K, V] {
	return &Map[K, V]{build: build, vals: map[K]V{}}
}

// Get returns k's value, building it if no call has yet. On failure it
// returns build's error and keeps nothing.
func (m *Map[K, V]) Get(ctx context.Context, k K) (V, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.vals[k]; ok {
		return v, nil
	}
	v, err := m.build(ctx, k)
	if err != nil {
		var zero V
		return zero, err
	}
	m.vals[k] = v
	return v, nil
}

// Value is a Map of one value.
type Value[V any] struct{ m *Map[struct{}, V] }

// NewValue returns a Value that build makes.
func NewValue[V any](build func(context.Context) (V, error)) *Value[V] {
	return &Value[V]{m: NewMap(func(ctx context.Context, _ struct{}) (V, error) { return build(ctx) })}
}

// Get returns the value, building it if no call has yet. On failure it
// returns build's error and keeps nothing.
func (v *Value[V]) Get(ctx context.Context) (V, error) {
	return v.m.Get(ctx, struct{}{})
}
