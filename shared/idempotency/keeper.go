package idempotency

import (
	"context"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/errcode"
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
// It uses a fresh context: the request's may already be cancelled.
func (c *Claim) Abandon() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(context.Background()), 5*time.Second)
	defer cancel()
	return c.keeper.Store.Release(ctx, c.rec)
}

// Begin claims scope for a request whose body hashes to requestHash.
//
// It returns a Claim when the caller should run the operation, a Replay
// when the key already completed with the same body, or an *errcode.Error:
// idempotency_key_reused when the key was used with a different body,
// idempotency_key_in_use when a concurrent request still holds it after the
// wait. Storage failures are returned wrapped.
func (k *Keeper) Begin(ctx context.Context, scope Scope, requestHash string) (*Claim, *Replay, error) {
	start := k.Now()
	deadline := start.Add(k.Wait)
	for attempt := 0; attempt < 100; attempt++ {
		now := k.Now()
		rec := Record{
			Scope: scope, State: InFlight, RequestHash: requestHash,
			ResourceID: k.NewID(), LockExpires: lockUntil(ctx, now),
			CreatedAt: now, Expires: now.Add(Retention),
		}
		held, err := k.Store.Create(ctx, rec, now)
		if err != nil {
			return nil, nil, fmt.Errorf("claim idempotency key: %w", err)
		}
		if held == nil {
			return &Claim{rec: rec, keeper: k}, nil, nil
		}
		switch {
		case held.State == Completed && held.RequestHash == requestHash:
			return nil, &Replay{Status: held.Status, Body: held.Body}, nil
		case held.RequestHash != requestHash && held.State != Failed:
			return nil, nil, errcode.New(errcode.IdempotencyKeyReused,
				"This Idempotency-Key was already used with a different request body. Use a new key for a new request.")
		case held.State == Failed || !now.Before(held.LockExpires):
			rec.ResourceID = held.ResourceID
			ok, err := k.Store.TakeOver(ctx, *held, rec)
			if err != nil {
				return nil, nil, fmt.Errorf("take over idempotency key: %w", err)
			}
			if ok {
				return &Claim{rec: rec, keeper: k}, nil, nil
			}
		default:
			if err := k.waitWhileInFlight(ctx, scope, deadline); err != nil {
				return nil, nil, err
			}
		}
	}
	return nil, nil, errcode.New(errcode.IdempotencyKeyInUse, "Another request with this Idempotency-Key is in progress. Retry shortly.")
}

// waitWhileInFlight polls until the record leaves the in-flight state, its
// lock expires, or deadline passes (then idempotency_key_in_use).
func (k *Keeper) waitWhileInFlight(ctx context.Context, scope Scope, deadline time.Time) error {
	for {
		if !k.Now().Before(deadline) {
			return errcode.New(errcode.IdempotencyKeyInUse,
				"Another request with this Idempotency-Key is still in progress. Retry after it finishes.")
		}
		t := time.NewTimer(k.Poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait for idempotency key: %w", ctx.Err())
		case <-t.C:
		}
		rec, err := k.Store.Get(ctx, scope)
		if err != nil {
			return fmt.Errorf("read idempotency key: %w", err)
		}
		if rec == nil || rec.State != InFlight || !k.Now().Before(rec.LockExpires) {
			return nil
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
