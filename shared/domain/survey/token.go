package survey

import (
	"crypto/subtle"
	"fmt"
	"slices"
	"time"
)

// Token lifetimes. A capture link lives DefaultTokenLifetime unless the
// partner's settings say otherwise, within [MinTokenLifetime,
// MaxTokenLifetime]: an hour is the least a customer needs to walk a home,
// and 30 days bounds how long a forwarded link stays a way in.
const (
	DefaultTokenLifetime = 7 * 24 * time.Hour
	MinTokenLifetime     = time.Hour
	MaxTokenLifetime     = 30 * 24 * time.Hour
)

// MaxTokens is how many capture tokens a survey keeps; issuing one more
// drops the oldest. Each getSurveyLink call mints a token (see
// Survey.IssueToken), so this bounds the survey's stored size however often
// a partner calls it.
const MaxTokens = 10

// CheckTokenLifetime returns an error naming the bounds when d is not a
// lifetime a partner may configure (MinTokenLifetime to MaxTokenLifetime).
func CheckTokenLifetime(d time.Duration) error {
	if d < MinTokenLifetime || d > MaxTokenLifetime {
		return fmt.Errorf("capture link lifetime must be between %s and %s; got %s", MinTokenLifetime, MaxTokenLifetime, d)
	}
	return nil
}

// StoredToken is one capture token of a survey, as stored: its hash and
// when it was issued and expires.
type StoredToken struct {
	Hash      string    `json:"hash" dynamodbav:"hash"`
	IssuedAt  time.Time `json:"issued_at" dynamodbav:"issued_at"`
	ExpiresAt time.Time `json:"expires_at" dynamodbav:"expires_at"`
}

// findToken returns the stored token whose hash is hash, comparing in
// constant time.
func findToken(tokens []StoredToken, hash string) (StoredToken, bool) {
	for _, t := range tokens {
		if subtle.ConstantTimeCompare([]byte(t.Hash), []byte(hash)) == 1 {
			return t, true
		}
	}
	return StoredToken{}, false
}

// addToken returns tokens with t added, keeping the MaxTokens most recently
// issued. Expired tokens are kept until pushed out, so that their link
// answers "expired" (410) rather than "unknown" (404).
func addToken(tokens []StoredToken, t StoredToken) []StoredToken {
	out := append(slices.Clone(tokens), t)
	slices.SortStableFunc(out, func(a, b StoredToken) int { return a.IssuedAt.Compare(b.IssuedAt) })
	if len(out) > MaxTokens {
		out = out[len(out)-MaxTokens:]
	}
	return out
}
