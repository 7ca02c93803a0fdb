// Package idempotency implements Idempotency-Key semantics shared by every
// operation that declares the header (createLead now; getSurveyLink,
// acceptQuote, createDeposit and getDeposit later).
//
// A key is scoped to (partner, mode, operation, key) and remembered for 24
// hours. The first request with a key claims it (an in-flight lock that
// expires with the function's deadline) and pins the id of the resource it
// will create, so a retry after a crash or an upstream failure re-creates the
// same resource instead of a second one. The response (status and body, byte
// for byte) is replayed to every later request with the same key and the
// same canonical body. A request with a different body gets
// idempotency_key_reused; a concurrent duplicate waits for the first to
// finish, bounded, then gets idempotency_key_in_use.
//
// Two ways to complete a key: Begin stores the response after the operation
// (Claim.Finish); BeginCreate, for an operation that creates one resource
// and knows its response beforehand, stores the response with the claim and
// counts the key as completed once the resource exists, which saves a write.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// MaxKeyLen is the longest Idempotency-Key accepted, in bytes.
const MaxKeyLen = 255

// Retention is how long a completed key is remembered.
const Retention = 24 * time.Hour

// DefaultLock is how long an in-flight claim blocks its key when the caller
// has no deadline of its own (a Lambda invocation's deadline is its timeout).
const DefaultLock = 30 * time.Second

// DefaultWait bounds how long a concurrent duplicate waits for the first.
const DefaultWait = 10 * time.Second

// State is the state of a stored key.
type State string

// The states of a key.
const (
	InFlight  State = "in_flight"
	Completed State = "completed"
	// Failed marks a claim whose request failed with a 5xx: the key is free
	// again but keeps its pinned resource id.
	Failed State = "failed"
)

// Scope identifies one key: the tenant, the operation and the client's key.
type Scope struct {
	PartnerID string
	Mode      string
	Operation string
	Key       string
}

// KeyHash returns a fixed-length digest of the client's key, used in storage
// keys so that any 255-byte key fits.
func (s Scope) KeyHash() string {
	sum := sha256.Sum256([]byte(s.Key))
	return hex.EncodeToString(sum[:])
}

// Record is a stored key.
type Record struct {
	Scope       Scope
	State       State
	RequestHash string
	// ResourceID is pinned at the first claim and reused by every retry.
	ResourceID  string
	LockExpires time.Time
	Status      int
	Body        []byte
	CreatedAt   time.Time
	Expires     time.Time
}

// ValidateKey checks a client's Idempotency-Key header value.
func ValidateKey(key string) error {
	fe := errcode.FieldErrors{}
	switch {
	case key == "":
		fe.Add("Idempotency-Key", "must not be empty when present")
	case len(key) > MaxKeyLen:
		fe.Add("Idempotency-Key", "must be at most 255 characters")
	}
	return fe.Err()
}

// RequestHash returns the digest of body's canonical JSON, so that key order
// and white space do not matter. A body that is not JSON hashes as its bytes.
func RequestHash(body []byte) string {
	canon := body
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil {
		if _, err := dec.Token(); err == io.EOF {
			if b, err := json.Marshal(v); err == nil {
				canon = b
			}
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// Store is the storage a Keeper needs. Implementations make each method a
// single conditional write or read.
type Store interface {
	// Create stores rec when no record holds its scope, or the one there is
	// past its retention. Otherwise it stores nothing and returns the
	// record that holds the scope.
	Create(ctx context.Context, rec Record, now time.Time) (held *Record, err error)
	// TakeOver replaces old with rec, keeping old's ResourceID, only if the
	// stored record is still exactly old (same state, lock and hash). It
	// reports false when the record changed meanwhile.
	TakeOver(ctx context.Context, old, rec Record) (bool, error)
	// Get returns the record of scope (strongly consistent), or nil.
	Get(ctx context.Context, scope Scope) (*Record, error)
	// Complete stores rec (state Completed) over the claim.
	Complete(ctx context.Context, rec Record) error
	// Release marks the claim rec Failed, freeing the key but keeping its
	// pinned ResourceID.
	Release(ctx context.Context, rec Record) error
}
