// Package partner holds a moving company's settings as the operator
// configures them: rate card, beta features, capture-link lifetime and
// deposit settings. Its API keys are auth's.
package partner

import (
	"slices"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// Partner is a moving company using the API.
type Partner struct {
	ID       string
	Name     string
	RateCard estimate.RateCard
	// Beta lists the beta features the operator enabled for the partner.
	Beta []Feature
	// CaptureLinkLifetime is how long a capture link (the video-survey
	// link the partner sends its customer) stays valid; 0 means
	// survey.DefaultTokenLifetime. The store only keeps values that
	// survey.CheckTokenLifetime accepts. Use CaptureLinkTTL to read it.
	CaptureLinkLifetime time.Duration
	// Deposits is what the beta deposits need of the partner (opctl
	// partner deposits sets it).
	Deposits  DepositSettings
	CreatedAt time.Time
}

// DepositSettings is a partner's configuration for deposits (issue 12):
// the carrier identity and the connected Stripe account createDeposit
// requires, and the defaults it applies.
type DepositSettings struct {
	// CarrierLegalName and USDOTNumber identify the partner as a motor
	// carrier (the quote page shows them beside the company name).
	CarrierLegalName string
	USDOTNumber      string
	// StripeAccount is the partner's connected Stripe account (acct_…):
	// deposits are direct charges on it.
	StripeAccount string
	// DefaultCents is the deposit createDeposit asks for when the request
	// has no amount_cents and the quote names none; 0: none configured.
	DefaultCents int64
	// CheckoutTTL is how long a checkout stays payable; 0 means
	// deposit.DefaultCheckoutTTL.
	CheckoutTTL time.Duration
}

// Missing names what d lacks for createDeposit, in the order the error
// lists them: carrier_legal_name, usdot_number, stripe_account. Empty when
// the partner is eligible.
func (d DepositSettings) Missing() []string {
	var out []string
	if d.CarrierLegalName == "" {
		out = append(out, "carrier_legal_name")
	}
	if d.USDOTNumber == "" {
		out = append(out, "usdot_number")
	}
	if d.StripeAccount == "" {
		out = append(out, "stripe_account")
	}
	return out
}

// BetaEnabled reports whether the operator enabled feature f for p.
func (p Partner) BetaEnabled(f Feature) bool { return slices.Contains(p.Beta, f) }

// CaptureLinkTTL returns how long a capture link of p is valid: its
// CaptureLinkLifetime, or survey.DefaultTokenLifetime when that is 0 (the
// operator never set one, or reset it).
func (p Partner) CaptureLinkTTL() time.Duration {
	if p.CaptureLinkLifetime == 0 {
		return survey.DefaultTokenLifetime
	}
	return p.CaptureLinkLifetime
}
