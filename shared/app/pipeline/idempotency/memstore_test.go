package idempotency

import (
	"context"
	"sync"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// memStore is an in-memory Store holding one scope's record: a unit-test
// double of the narrow interface, not an imitation of DynamoDB.
type memStore struct {
	mu  sync.Mutex
	rec *Record

	// Hooks run, without the lock, at the start of the call they name.
	onGet      func(n int) // n counts Get calls from 1
	onTakeOver func(n int)

	err                      error // returned by every call when set
	creates, takeOvers, gets int
	takeOverWins             int
	completed, released      []Record
	releaseCtx               context.Context // of the last Release
	releaseCtxErr            error           // its Err() during that call
}

func (s *memStore) Create(_ context.Context, rec Record, now time.Time) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creates++
	if s.err != nil {
		return nil, s.err
	}
	if s.rec == nil || !now.Before(s.rec.Expires) {
		s.rec = &rec
		return nil, nil
	}
	held := *s.rec
	return &held, nil
}

func (s *memStore) TakeOver(_ context.Context, old, rec Record) (bool, error) {
	s.mu.Lock()
	s.takeOvers++
	n := s.takeOvers
	s.mu.Unlock()
	if s.onTakeOver != nil {
		s.onTakeOver(n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false, s.err
	}
	cur := s.rec
	if cur == nil || cur.State != old.State || !cur.LockExpires.Equal(old.LockExpires) || cur.RequestHash != old.RequestHash {
		return false, nil
	}
	rec.ResourceID = old.ResourceID
	s.rec = &rec
	s.takeOverWins++
	return true, nil
}

func (s *memStore) Get(_ context.Context, _ Scope) (*Record, error) {
	s.mu.Lock()
	s.gets++
	n := s.gets
	s.mu.Unlock()
	if s.onGet != nil {
		s.onGet(n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	if s.rec == nil {
		return nil, nil
	}
	r := *s.rec
	return &r, nil
}

func (s *memStore) Complete(_ context.Context, rec Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.completed = append(s.completed, rec)
	s.rec = &rec
	return nil
}

func (s *memStore) Release(ctx context.Context, rec Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseCtx, s.releaseCtxErr = ctx, ctx.Err()
	if s.err != nil {
		return s.err
	}
	s.released = append(s.released, rec)
	rec.State = Failed
	s.rec = &rec
	return nil
}

// set replaces the stored record (as another request would).
func (s *memStore) set(rec Record) {
	s.mu.Lock()
	s.rec = &rec
	s.mu.Unlock()
}

func (s *memStore) stored() Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil {
		return Record{}
	}
	return *s.rec
}
