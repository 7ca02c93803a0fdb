package idempotency

import (
	"context"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// Keeper runs the claim / replay / wait protocol over a Store.
type Keeper struct {
	Store Store
	// Now is the clock; Wait bounds how long a duplicate waits for the
	// first request; Poll is the interval between its reads.
	Now  func() time.Time
	Wait time.Duration
	Poll time.Duration
	// NewID returns the id a new claim pins for the resource it creates.
	NewID func() string
}

// Replay is a stored response to send again.
type Replay struct {
	Status int
	Body   []byte
}

// Claim is a held key: the caller creates the resource with ResourceID and
// then stores its response with Finish (or with Completion in the same write
// as the resource), or gives the key back with Abandon on a 5xx.
type Claim struct {
	rec    Record
	keeper *Keeper
	done   bool
}

// ResourceID returns the id pinned to this key for the resource it creates.
func (c *Claim) ResourceID() string { return c.rec.ResourceID }

// Completion returns the completed record for status and body, for a store
// that writes it together with the resource, and marks the claim finished.
func (c *Claim) Completion(status int, body []byte) Record {
	c.done = true
	rec := c.rec
	rec.State, rec.Status, rec.Body = Completed, status, body
	return rec
}

// Finish stores the response unless Completion already handed it to a write.
func (c *Claim) Finish(ctx context.Context, status int, body []byte) error {
	if c.done {
		return nil
	}
	rec := c.Completion(status, body)
	if err := c.keeper.Store.Complete(ctx, rec); err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	return nil
}

// Abandon frees the key after a failure so that a retry proceeds at once.
// It keeps ctx's values (request id, trace) but not its cancellation: the
// request's context may already be cancelled.
func (c *Claim) Abandon(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return c.keeper.Store.Release(ctx, c.rec)
}

// Creation describes an operation that creates one resource and whose
// response is known before it writes (createLead). The response is stored
// with the claim, and the claim counts as completed as soon as the resource
// exists, so the operation makes no second write to complete the key.
type Creation struct {
	// Respond returns the response for the resource with this id.
	Respond func(resourceID string) (status int, body []byte)
	// Exists reports whether the resource with this id has been written.
	Exists func(ctx context.Context, resourceID string) (bool, error)
}

// Begin claims scope for a request whose body hashes to requestHash.
//
// It returns a Claim when the caller should run the operation, a Replay
// when the key already completed with the same body, or an *errcode.Error:
// idempotency_key_reused when the key was used with a different body
// (whatever the state of that use: completed, in flight, failed, expired),
// idempotency_key_in_use when a concurrent request still holds it after the
// wait. Storage failures are returned wrapped.
func (k *Keeper) Begin(ctx context.Context, scope Scope, requestHash string) (*Claim, *Replay, error) {
	return k.begin(ctx, scope, requestHash, nil)
}

// BeginCreate is Begin for a Creation: the Claim it returns is already
// complete once the caller writes the resource with the claim's ResourceID
// (and abandons the claim if that fails). Before it takes over a failed or
// expired claim it checks Creation.Exists for the pinned id: when the
// resource exists, the earlier attempt wrote it, and its stored response is
// replayed instead.
func (k *Keeper) BeginCreate(ctx context.Context, scope Scope, requestHash string, c Creation) (*Claim, *Replay, error) {
	return k.begin(ctx, scope, requestHash, &c)
}

func (k *Keeper) begin(ctx context.Context, scope Scope, requestHash string, create *Creation) (*Claim, *Replay, error) {
	deadline := k.Now().Add(k.Wait)
	for attempt := 0; attempt < 100; attempt++ {
		now := k.Now()
		rec := Record{
			Scope: scope, State: InFlight, RequestHash: requestHash,
			ResourceID: k.NewID(), LockExpires: lockUntil(ctx, now),
			CreatedAt: now, Expires: now.Add(Retention),
		}
		if create != nil {
			rec.Status, rec.Body = create.Respond(rec.ResourceID)
		}
		held, err := k.Store.Create(ctx, rec, now)
		if err != nil {
			return nil, nil, fmt.Errorf("claim idempotency key: %w", err)
		}
		if held == nil {
			return &Claim{rec: rec, keeper: k, done: create != nil}, nil, nil
		}
		// A different body never takes the key over, not even a failed or
		// expired claim: its pinned id belongs to the first request, which
		// may have written it.
		if held.RequestHash != requestHash {
			return nil, nil, errcode.New(errcode.IdempotencyKeyReused,
				"This Idempotency-Key was already used with a different request body. Use a new key for a new request.")
		}
		if replay, err := k.completed(ctx, held, create); replay != nil || err != nil {
			return nil, replay, err
		}
		if held.State == Failed || !now.Before(held.LockExpires) {
			rec.ResourceID = held.ResourceID
			if create != nil {
				rec.Status, rec.Body = create.Respond(rec.ResourceID)
			}
			ok, err := k.Store.TakeOver(ctx, *held, rec)
			if err != nil {
				return nil, nil, fmt.Errorf("take over idempotency key: %w", err)
			}
			if ok {
				return &Claim{rec: rec, keeper: k, done: create != nil}, nil, nil
			}
			continue
		}
		replay, err := k.waitWhileInFlight(ctx, held, create, deadline)
		if replay != nil || err != nil {
			return nil, replay, err
		}
	}
	return nil, nil, errcode.New(errcode.IdempotencyKeyInUse, "Another request with this Idempotency-Key is in progress. Retry shortly.")
}

// completed returns the replay of held when its request finished: it is
// marked Completed, or (for a Creation) its resource is written, whatever
// its state says. A Failed or expired claim whose resource exists wrote it
// and lost its answer (a timeout after the write, a crash): taking it over
// would answer a second time with a new body, so its stored response is
// replayed instead.
func (k *Keeper) completed(ctx context.Context, held *Record, create *Creation) (*Replay, error) {
	switch {
	case held.State == Completed:
		return &Replay{Status: held.Status, Body: held.Body}, nil
	case create != nil:
		ok, err := create.Exists(ctx, held.ResourceID)
		if err != nil {
			return nil, fmt.Errorf("check idempotent resource: %w", err)
		}
		if ok {
			return &Replay{Status: held.Status, Body: held.Body}, nil
		}
	}
	return nil, nil
}

// waitWhileInFlight polls until held's request completes (then its replay),
// fails or its lock expires (then nil, nil: claim again), or deadline passes
// (then idempotency_key_in_use).
func (k *Keeper) waitWhileInFlight(ctx context.Context, held *Record, create *Creation, deadline time.Time) (*Replay, error) {
	for {
		if !k.Now().Before(deadline) {
			return nil, errcode.New(errcode.IdempotencyKeyInUse,
				"Another request with this Idempotency-Key is still in progress. Retry after it finishes.")
		}
		t := time.NewTimer(k.Poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("wait for idempotency key: %w", ctx.Err())
		case <-t.C:
		}
		rec, err := k.Store.Get(ctx, held.Scope)
		if err != nil {
			return nil, fmt.Errorf("read idempotency key: %w", err)
		}
		if rec == nil || rec.State == Failed || rec.ResourceID != held.ResourceID || !k.Now().Before(rec.LockExpires) {
			return nil, nil
		}
		if replay, err := k.completed(ctx, rec, create); replay != nil || err != nil {
			return replay, err
		}
	}
}

// lockUntil returns when an in-flight claim made now stops blocking its key:
// the request's deadline (a Lambda invocation's timeout), else DefaultLock.
func lockUntil(ctx context.Context, now time.Time) time.Time {
	if d, ok := ctx.Deadline(); ok && d.After(now) && d.Sub(now) <= 15*time.Minute {
		return d
	}
	return now.Add(DefaultLock)
}
