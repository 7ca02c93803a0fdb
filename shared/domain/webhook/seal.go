package webhook

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/moveleads/partnerapi/shared/domain/lazy"
)

// Signing secrets must be readable to sign, so they cannot be stored as
// hashes like API keys. They are stored sealed: AES-256-GCM under a
// wrapping key that lives in Secrets Manager in AWS (manifest secret
// webhook-sealing-key, read by the functions that sign and by opctl), so a
// copy of the table alone reveals no secret. One wrapping key rather than
// a Secrets Manager secret per endpoint: no per-endpoint cost or API rate,
// and rotating the wrapping key is one re-seal pass.

// Sealer seals and opens signing secrets with one wrapping key.
type Sealer struct{ aead cipher.AEAD }

// sealVersion prefixes every sealed value, so that a later key or scheme
// can be told apart.
const sealVersion = "v1:"

// NewSealer returns a Sealer over a 32-byte key (AES-256). A key of
// another length fails.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("webhook: sealing key of %d bytes; want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts secret with a fresh random nonce, binding it to context
// (the endpoint id: a sealed secret copied to another endpoint does not
// open there). The result is printable.
func (s *Sealer) Seal(secret, context string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("webhook: seal: %w", err)
	}
	out := s.aead.Seal(nonce, nonce, []byte(secret), []byte(context))
	return sealVersion + base64.RawStdEncoding.EncodeToString(out), nil
}

// ErrSealed is Open's error for a value that does not open with this key
// and context.
var ErrSealed = errors.New("webhook: sealed secret does not open (another key, another endpoint, or altered)")

// Open decrypts a value Seal made for context.
func (s *Sealer) Open(sealed, context string) (string, error) {
	if len(sealed) < len(sealVersion) || sealed[:len(sealVersion)] != sealVersion {
		return "", ErrSealed
	}
	raw, err := base64.RawStdEncoding.Strict().DecodeString(sealed[len(sealVersion):])
	if err != nil || len(raw) < s.aead.NonceSize() {
		return "", ErrSealed
	}
	plain, err := s.aead.Open(nil, raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():], []byte(context))
	if err != nil {
		return "", ErrSealed
	}
	return string(plain), nil
}

// SealerFrom returns a function that builds the Sealer from the key that
// load returns, on its first success, and returns that Sealer from then on
// (load reads a secret; a failure is retried at the next call).
func SealerFrom(load func(context.Context) ([]byte, error)) func(context.Context) (*Sealer, error) {
	return lazy.NewValue(func(ctx context.Context) (*Sealer, error) {
		key, err := load(ctx)
		if err != nil {
			return nil, err
		}
		return NewSealer(key)
	}).Get
}
