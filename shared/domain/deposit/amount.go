package deposit

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// Amount limits (the spec's limits table), in cents.
const (
	MinAmountCents = 100
	MaxAmountCents = 500000
)

// Checkout lifetime limits: Stripe refuses a Checkout Session whose
// expires_at is less than 30 minutes or more than 24 hours after its
// creation.
const (
	MinCheckoutTTL = 30 * time.Minute
	MaxCheckoutTTL = 24 * time.Hour
	// DefaultCheckoutTTL is the lifetime when the partner configured none:
	// Stripe's own default, so a customer who gets the link by message in
	// the evening can still pay the next day.
	DefaultCheckoutTTL = 24 * time.Hour
	// expiryMargin keeps expires_at this far inside Stripe's bounds, so a
	// few seconds between our clock, the request's arrival and Stripe's
	// clock never make Stripe refuse it.
	expiryMargin = time.Minute
)

// ErrNoAmount marks a request without amount_cents for a partner who has
// no configured deposit.
var ErrNoAmount = errors.New("no deposit amount")

// ValidAmount reports whether cents is a valid deposit amount: from
// MinAmountCents to MaxAmountCents. opctl checks a partner's configured
// deposit with it.
func ValidAmount(cents int64) error {
	if cents < MinAmountCents || cents > MaxAmountCents {
		return fmt.Errorf("deposit amount %d cents: want %d to %d", cents, MinAmountCents, MaxAmountCents)
	}
	return nil
}

// Amount returns a deposit's amount in cents: requested when the request
// has amount_cents (non-nil), else partnerDefault, the partner's configured
// deposit (0 when none). A requested amount out of range fails with
// validation_failed naming amount_cents (422). Without a requested amount
// and without a default it fails with validation_failed too, wrapping
// ErrNoAmount: the partner can send amount_cents. A configured default out
// of range (opctl refuses one) fails with an internal error.
func Amount(requested *int64, partnerDefault int64) (int64, error) {
	if requested != nil {
		if ValidAmount(*requested) != nil {
			fe := errcode.FieldErrors{}
			fe.Add("amount_cents", fmt.Sprintf("must be an integer from %d to %d (cents)", MinAmountCents, MaxAmountCents))
			return 0, fe.Err()
		}
		return *requested, nil
	}
	if partnerDefault == 0 {
		fe := errcode.FieldErrors{}
		fe.Add("amount_cents", "is required: no default deposit is configured for this partner")
		e := errcode.As(fe.Err())
		e.Cause = ErrNoAmount
		return 0, e
	}
	if err := ValidAmount(partnerDefault); err != nil {
		return 0, fmt.Errorf("partner's configured deposit: %w", err)
	}
	return partnerDefault, nil
}

// nonCentCurrencies are the currencies whose amounts Stripe does not count
// in hundredths: its zero-decimal and three-decimal currencies. amount_cents
// would not mean cents in them.
var nonCentCurrencies = map[string]bool{
	"bif": true, "clp": true, "djf": true, "gnf": true, "jpy": true, "kmf": true,
	"krw": true, "mga": true, "pyg": true, "rwf": true, "ugx": true, "vnd": true,
	"vuv": true, "xaf": true, "xof": true, "xpf": true,
	"bhd": true, "jod": true, "kwd": true, "omr": true, "tnd": true,
}

// NormalizeCurrency returns code as Stripe wants it, three lowercase ASCII
// letters ("USD" → "usd"). It fails for anything else and for currencies
// whose minor unit is not a hundredth. It checks the form, not that Stripe
// or the partner's account supports the currency (Stripe refuses those when
// the checkout is created).
func NormalizeCurrency(code string) (string, error) {
	c := strings.ToLower(strings.TrimSpace(code))
	if len(c) != 3 || strings.Trim(c, "abcdefghijklmnopqrstuvwxyz") != "" {
		return "", fmt.Errorf("currency %q: want a three-letter ISO 4217 code such as usd", code)
	}
	if nonCentCurrencies[c] {
		return "", fmt.Errorf("currency %q: deposits are in hundredths (amount_cents), and this currency's minor unit is not", code)
	}
	return c, nil
}

// ValidCheckoutTTL reports whether ttl is a checkout lifetime Stripe
// accepts: from MinCheckoutTTL to MaxCheckoutTTL. opctl checks a partner's
// configured lifetime with it.
func ValidCheckoutTTL(ttl time.Duration) error {
	if ttl < MinCheckoutTTL || ttl > MaxCheckoutTTL {
		return fmt.Errorf("checkout lifetime %v: want %v to %v", ttl, MinCheckoutTTL, MaxCheckoutTTL)
	}
	return nil
}

// CheckoutExpiresAt returns the expires_at of a Checkout Session created
// at now with lifetime ttl (0: DefaultCheckoutTTL), in whole seconds and a
// minute inside Stripe's bounds (so 24 hours gives 23h59m). It fails for
// a ttl that ValidCheckoutTTL refuses. Compute it once per deposit and keep
// it: a retry of the create must send the same expires_at, or Stripe
// refuses the reused idempotency key.
func CheckoutExpiresAt(now time.Time, ttl time.Duration) (time.Time, error) {
	if ttl == 0 {
		ttl = DefaultCheckoutTTL
	}
	if err := ValidCheckoutTTL(ttl); err != nil {
		return time.Time{}, err
	}
	lo := now.Add(MinCheckoutTTL + expiryMargin)
	hi := now.Add(MaxCheckoutTTL - expiryMargin)
	at := now.Add(ttl)
	switch {
	case at.Before(lo):
		at = lo
	case at.After(hi):
		at = hi
	}
	// Whole seconds: round up, which stays within hi because hi is a
	// minute short of Stripe's bound.
	if r := at.Truncate(time.Second); r.Before(at) {
		at = r.Add(time.Second)
	}
	return at.UTC(), nil
}
