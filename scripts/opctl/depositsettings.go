package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

// maxUSDOTDigits is the length of the longest USDOT number FMCSA issues.
const maxUSDOTDigits = 8

// stripeAccountPrefix starts a Stripe connected account id.
const stripeAccountPrefix = "acct_"

// maxStripeAccountLen bounds --stripe-account as the store does: "acct_"
// and at most 255 characters (Stripe's bound on object ids; its account
// ids have 16).
const maxStripeAccountLen = len(stripeAccountPrefix) + 255

// depositSettings is the output of partner deposits: the partner's deposit
// settings after the change. The texts and DefaultCents are null when
// unset; CheckoutTTL is the lifetime in effect (deposit.DefaultCheckoutTTL
// when none is set). Eligible says whether createDeposit can charge for
// the partner: Missing (partner.DepositSettings.Missing) is empty.
type depositSettings struct {
	PartnerID          string   `json:"partner_id"`
	CarrierLegalName   *string  `json:"carrier_legal_name"`
	USDOTNumber        *string  `json:"usdot_number"`
	StripeAccount      *string  `json:"stripe_account"`
	DefaultCents       *int64   `json:"default_deposit_cents"`
	CheckoutTTL        string   `json:"checkout_ttl"`
	CheckoutTTLSeconds int64    `json:"checkout_ttl_seconds"`
	Eligible           bool     `json:"eligible"`
	Missing            []string `json:"missing"`
}

// viewDepositSettings returns partnerID's settings d as partner deposits
// shows them.
func viewDepositSettings(partnerID string, d partner.DepositSettings) depositSettings {
	ttl := d.CheckoutTTL
	if ttl == 0 {
		ttl = deposit.DefaultCheckoutTTL
	}
	v := depositSettings{
		PartnerID: partnerID, CarrierLegalName: optString(d.CarrierLegalName), USDOTNumber: optString(d.USDOTNumber),
		StripeAccount: optString(d.StripeAccount), CheckoutTTL: ttl.String(), CheckoutTTLSeconds: int64(ttl / time.Second),
		Missing: d.Missing(),
	}
	if d.DefaultCents != 0 {
		v.DefaultCents = &d.DefaultCents
	}
	if v.Missing == nil {
		v.Missing = []string{}
	}
	v.Eligible = len(v.Missing) == 0
	return v
}

// optString returns &s, or nil for "".
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// depositFlags are the settings partner deposits was given, already
// checked; set names the flags given.
type depositFlags struct {
	legalName, usdot, account string
	defaultCents              int64
	ttl                       time.Duration
	set                       map[string]bool
}

// apply returns d with the settings whose flags were given replaced.
func (f depositFlags) apply(d partner.DepositSettings) partner.DepositSettings {
	if f.set["carrier-legal-name"] {
		d.CarrierLegalName = f.legalName
	}
	if f.set["usdot"] {
		d.USDOTNumber = f.usdot
	}
	if f.set["stripe-account"] {
		d.StripeAccount = f.account
	}
	if f.set["default-deposit-cents"] {
		d.DefaultCents = f.defaultCents
	}
	if f.set["checkout-ttl"] {
		d.CheckoutTTL = f.ttl
	}
	return d
}

func parsePartnerDeposits(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("partner", "", "partner id (required)")
	legalName := fs.String("carrier-legal-name", "", "the motor carrier's legal name (empty: remove it)")
	usdot := fs.String("usdot", "", "USDOT number, 1 to 8 digits (empty: remove it)")
	account := fs.String("stripe-account", "", "connected Stripe account, acct_… (empty: remove it)")
	defaultCents := fs.Int64("default-deposit-cents", 0, "deposit asked for when a request names none (0: none)")
	ttl := fs.String("checkout-ttl", "", "how long a checkout stays payable, a Go duration from 30m to 24h (0: the default)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	partnerID, err := requiredID(fs, "partner", *id)
	if err != nil {
		return nil, err
	}
	f := depositFlags{set: setFlags(fs), defaultCents: *defaultCents}
	delete(f.set, "partner")
	if f.legalName, err = carrierLegalName(*legalName); err != nil {
		return nil, usagef(fs, "--carrier-legal-name %v", err)
	}
	if f.usdot, err = usdotNumber(*usdot); err != nil {
		return nil, usagef(fs, "--usdot: %v", err)
	}
	if f.account, err = stripeAccount(*account); err != nil {
		return nil, usagef(fs, "--stripe-account: %v", err)
	}
	if f.defaultCents != 0 {
		if err := deposit.ValidAmount(f.defaultCents); err != nil {
			return nil, usagef(fs, "--default-deposit-cents: %v (or 0 for none)", err)
		}
	}
	if f.set["checkout-ttl"] {
		if f.ttl, err = checkoutTTL(*ttl); err != nil {
			return nil, usagef(fs, "--checkout-ttl: %v", err)
		}
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		p, err := s.GetPartner(ctx, partnerID)
		if err != nil {
			return nil, partnerErr(partnerID, err)
		}
		if len(f.set) == 0 {
			return viewDepositSettings(p.ID, p.Deposits), nil
		}
		p, err = s.SetDepositSettings(ctx, partnerID, f.apply(p.Deposits))
		if err != nil {
			return nil, depositSettingsErr(partnerID, err)
		}
		return viewDepositSettings(p.ID, p.Deposits), nil
	}, nil
}

// depositSettingsErr turns SetDepositSettings' errors about partner id
// into the operator's messages: not_found as partnerErr does, and the
// store's validation_failed (settings the flags' checks let through, or a
// stored setting kept unchanged) with each field's reason, sorted by
// field, instead of the API's pointer to details.fields.
func depositSettingsErr(id string, err error) error {
	e := errcode.As(err)
	if e == nil || e.Code != errcode.ValidationFailed {
		return partnerErr(id, err)
	}
	fields := e.Fields()
	reasons := make([]string, 0, len(fields))
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		reasons = append(reasons, name+" "+fields[name])
	}
	return fmt.Errorf("the deposit settings of partner %s would be invalid, nothing was changed: %s", id, strings.Join(reasons, "; "))
}

// carrierLegalName returns s trimmed ("" to remove the name), or why it is
// not an acceptable name (partnerName's rules).
func carrierLegalName(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	return partnerName(s)
}

// usdotNumber returns s trimmed ("" to remove the number), or why it is
// not a USDOT number: 1 to 8 ASCII digits.
func usdotNumber(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if len(s) > maxUSDOTDigits || strings.Trim(s, "0123456789") != "" {
		return "", fmt.Errorf("%q is not a USDOT number: want 1 to %d digits", s, maxUSDOTDigits)
	}
	return s, nil
}

// stripeAccount returns s trimmed ("" to remove the account), or why it is
// not a connected account id: "acct_" and letters or digits.
func stripeAccount(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	rest, ok := strings.CutPrefix(s, stripeAccountPrefix)
	if !ok || rest == "" || len(s) > maxStripeAccountLen || strings.ContainsFunc(rest, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		return "", fmt.Errorf("%q is not a Stripe account id: want %s and letters or digits, as in acct_1Nv0FGQ9RKHgCVdK", clipped(s), stripeAccountPrefix)
	}
	return s, nil
}

// checkoutTTL reads --checkout-ttl: a Go duration that
// deposit.ValidCheckoutTTL accepts, in whole seconds, or 0 for the
// default.
func checkoutTTL(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bounds := fmt.Sprintf("%v to %v", deposit.MinCheckoutTTL, deposit.MaxCheckoutTTL)
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration; give a Go duration (90m, 12h) from %s, or 0 for the default (%v)", clipped(s), bounds, deposit.DefaultCheckoutTTL)
	}
	if d == 0 {
		return 0, nil
	}
	if err := deposit.ValidCheckoutTTL(d); err != nil {
		return 0, fmt.Errorf("%v (or 0 for the default, %v)", err, deposit.DefaultCheckoutTTL)
	}
	if d%time.Second != 0 {
		return 0, errors.New(d.String() + " is not a whole number of seconds")
	}
	return d, nil
}

// clipped returns s cut to at most 80 characters, for quoting a bad value
// in a message.
func clipped(s string) string {
	const n = 80
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
