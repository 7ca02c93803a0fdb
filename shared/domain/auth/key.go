// Package auth holds the partner API's credentials model: API key format,
// generation and digests, modes (test and live), tenants and principals.
//
// A key is "mk_test_" or "mk_live_" followed by 64 lowercase hex digits
// (256 bits from crypto/rand). Only the SHA-256 digest of the whole key is
// ever stored; keys are looked up by digest. Because a key carries 256 bits
// of entropy, an unsalted digest cannot be reversed by guessing.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Mode separates test data from live data, like Stripe's modes: a test key
// never sees live data and a live key never sees test data.
type Mode string

// The two modes.
const (
	Test Mode = "test"
	Live Mode = "live"
)

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Test, Live:
		return Mode(s), nil
	}
	return "", fmt.Errorf("mode must be test or live, got %q", s)
}

const (
	keyPrefix  = "mk_"
	secretLen  = 32 // bytes: 256 bits
	keyIDBytes = 8
)

// Prefix returns the key prefix of mode m, e.g. "mk_test_".
func (m Mode) Prefix() string { return keyPrefix + string(m) + "_" }

// NewKey returns a fresh API key for mode m and its key id. The key is
// shown once to its owner; the id names it in listings and revocation.
func NewKey(m Mode) (key, keyID string, err error) {
	secret := make([]byte, secretLen)
	if _, err := rand.Read(secret); err != nil {
		return "", "", fmt.Errorf("generate key: %w", err)
	}
	id := make([]byte, keyIDBytes)
	if _, err := rand.Read(id); err != nil {
		return "", "", fmt.Errorf("generate key id: %w", err)
	}
	return m.Prefix() + hex.EncodeToString(secret), "key_" + hex.EncodeToString(id), nil
}

// ParseKey checks that key has the form of an API key and returns its mode
// and SHA-256 digest (lowercase hex). It does not say whether the key exists.
func ParseKey(key string) (Mode, string, bool) {
	var mode Mode
	switch {
	case strings.HasPrefix(key, Test.Prefix()):
		mode = Test
	case strings.HasPrefix(key, Live.Prefix()):
		mode = Live
	default:
		return "", "", false
	}
	secret := key[len(mode.Prefix()):]
	if len(secret) != 2*secretLen {
		return "", "", false
	}
	for i := 0; i < len(secret); i++ {
		c := secret[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", "", false
		}
	}
	return mode, Digest(key), true
}

// Digest returns the lowercase hex SHA-256 of key: the only form in which
// keys are stored.
func Digest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// BearerKey extracts the key from an Authorization header value of the form
// "Bearer <key>" (scheme case-insensitive). It returns false when the header
// is empty or not of that form.
func BearerKey(header string) (string, bool) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	key = strings.TrimSpace(key)
	return key, key != ""
}

// InvalidKeyMessage is the one answer to a key that is missing from the
// store, revoked, or of the other mode: the same words for each, so that a
// leaked string does not reveal that it once was a key.
const InvalidKeyMessage = "The API key is not valid. Check that you sent a current key of the right mode."
