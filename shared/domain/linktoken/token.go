package linktoken

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
)

// A link token is 32 bytes (256 bits) from crypto/rand (New), or, for a
// call under an Idempotency-Key, an HMAC-SHA256 under a deployed link key
// (Derive), written in base64url without padding, so exactly Len
// characters of [A-Za-z0-9_-]. Only Hash of it is stored, either way: a
// token carries far more entropy than can be guessed, so an unsalted
// SHA-256 cannot be reversed, a lookup by hash needs no secret, and a link
// is revoked by its stored hash, never by rotating the key.
const (
	tokenBytes = 32
	// Len is the length of a link token in characters.
	Len = 43 // ceil(32 × 8 / 6)
)

// ErrMalformed is returned by Parse for a string that cannot be a link
// token.
var ErrMalformed = errors.New("linktoken: malformed link token")

// New returns a fresh link token. It fails only when the system's random
// source does.
func New() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate link token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// MinKey is the shortest link key Derive takes (32 bytes: the HMAC's
// output, so the key is never the weaker part).
const MinKey = 32

// Derive returns the link token HMAC-SHA256(key, parts) in New's form: the
// token a call under an Idempotency-Key answers, which a replay of the
// call computes again (parts name the tenant, the resource and the key),
// so the replay answers the same link while only its hash is stored.
// Without key its 256 bits are unpredictable; each part is
// length-prefixed, so no two lists of parts collide. It fails only on a
// key shorter than MinKey.
func Derive(key []byte, parts ...string) (string, error) {
	if len(key) < MinKey {
		return "", fmt.Errorf("link key: %d bytes; want at least %d", len(key), MinKey)
	}
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		fmt.Fprintf(m, "%d:%s;", len(p), p)
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// Hash returns the lowercase hex SHA-256 of token: the only form in which
// link tokens are stored and looked up.
func Hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Parse checks that s has the form of a link token and returns its Hash.
// It reads at most Len bytes of s and allocates nothing until s has
// passed, so a path segment of any size or content is refused cheaply
// before any lookup. It does not say whether the token exists.
//
// It fails with ErrMalformed unless s is exactly Len base64url characters
// in canonical form: the last character's two unused low bits must be
// zero, so each token has exactly one spelling (a variant spelling would
// hash differently and be reported as unknown, rather than as malformed,
// which would be confusing to debug).
func Parse(s string) (string, error) {
	if len(s) != Len {
		return "", ErrMalformed
	}
	for i := 0; i < len(s); i++ {
		if b64Value(s[i]) < 0 {
			return "", ErrMalformed
		}
	}
	if b64Value(s[Len-1])&0b11 != 0 {
		return "", ErrMalformed
	}
	return Hash(s), nil
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
