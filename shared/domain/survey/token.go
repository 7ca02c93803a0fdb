package survey

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"
)

// A capture token is the secret in a capture URL (/v1-capture/{token}): 32
// bytes (256 bits) from crypto/rand (NewToken), or, for a call under an
// Idempotency-Key, an HMAC-SHA256 under the deployment's capture link key
// (DerivedToken), written in base64url without padding, so exactly
// TokenLen characters of [A-Za-z0-9_-]. Only TokenHash of it is stored,
// either way: a token carries far more entropy than can be guessed, so an
// unsalted SHA-256 cannot be reversed, a lookup by hash needs no secret,
// and a link is revoked by its stored hash, never by rotating the key.
const (
	tokenBytes = 32
	// TokenLen is the length of a capture token in characters.
	TokenLen = 43 // ceil(32 × 8 / 6)
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

// ErrMalformedToken is returned by ParseToken for a string that cannot be
// a capture token.
var ErrMalformedToken = errors.New("survey: malformed capture token")

// NewToken returns a fresh capture token. It fails only when the system's
// random source does.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate capture token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// MinLinkKey is the shortest capture link key DerivedToken takes (32
// bytes: the HMAC's output, so the key is never the weaker part).
const MinLinkKey = 32

// DerivedToken returns the capture token HMAC-SHA256(key, parts) in
// NewToken's form: the token a getSurveyLink call under an Idempotency-Key
// answers, which a replay of the call computes again (parts name the
// tenant, the lead and the key), so the replay answers the same link while
// only its hash is stored. Without key its 256 bits are unpredictable;
// each part is length-prefixed, so no two lists of parts collide. It fails
// only on a key shorter than MinLinkKey.
func DerivedToken(key []byte, parts ...string) (string, error) {
	if len(key) < MinLinkKey {
		return "", fmt.Errorf("capture link key: %d bytes; want at least %d", len(key), MinLinkKey)
	}
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		fmt.Fprintf(m, "%d:%s;", len(p), p)
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// TokenHash returns the lowercase hex SHA-256 of token: the only form in
// which capture tokens are stored and looked up.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ParseToken checks that s has the form of a capture token and returns its
// TokenHash. It reads at most TokenLen bytes of s and allocates nothing
// until s has passed, so a path segment of any size or content is refused
// cheaply before any lookup. It does not say whether the token exists.
//
// It fails with ErrMalformedToken unless s is exactly TokenLen base64url
// characters in canonical form: the last character's two unused low bits
// must be zero, so each token has exactly one spelling (a variant spelling
// would hash differently and be reported as unknown, rather than as
// malformed, which would be confusing to debug).
func ParseToken(s string) (string, error) {
	if len(s) != TokenLen {
		return "", ErrMalformedToken
	}
	for i := 0; i < len(s); i++ {
		if b64Value(s[i]) < 0 {
			return "", ErrMalformedToken
		}
	}
	if b64Value(s[TokenLen-1])&0b11 != 0 {
		return "", ErrMalformedToken
	}
	return TokenHash(s), nil
}

// b64Value returns the 6-bit value of a base64url character, or -1.
func b64Value(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '-':
		return 62
	case c == '_':
		return 63
	}
	return -1
}

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
