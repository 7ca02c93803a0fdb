package estimate

import (
	"errors"
	"fmt"
	"strings"
)

// RateCard is a partner's pricing. Amounts are in minor units of Currency
// (cents for usd).
type RateCard struct {
	Currency           string `json:"currency"`              // lowercase ISO 4217, e.g. "usd"
	HourlyCents        int64  `json:"hourly_cents"`          // per mover per hour
	Crew               int    `json:"crew"`                  // base crew size (movers) for the smallest homes
	TravelCentsPerMile int64  `json:"travel_cents_per_mile"` // charged on the road distance between the two ZIPs
	MinimumCents       int64  `json:"minimum_cents"`         // floor for min and max
}

// The defaults of DefaultRateCard: a two-mover crew at $65 per mover-hour,
// $2.50 per road mile and a $350 minimum, in line with typical US local-move
// pricing.
const (
	defaultHourlyCents        = 6500
	defaultCrew               = 2
	defaultTravelCentsPerMile = 250
	defaultMinimumCents       = 35000
)

// Upper bounds of Validate. They are far above any real price and exist to
// catch a misplaced decimal point (dollars typed as cents × 100) and to keep
// every product in Compute far from int64 overflow.
const (
	maxHourlyCents        = 100_000    // 1,000.00 per mover-hour
	maxCrew               = 10         // movers
	maxTravelCentsPerMile = 10_000     // 100.00 per mile
	maxMinimumCents       = 10_000_000 // 100,000.00
)

// DefaultRateCard returns the rate card a new partner starts with: 6500 minor
// units per mover-hour, a crew of 2, 250 per mile and a minimum of 35000, in
// currency lowercased. The figures are calibrated in US dollars; they are not
// converted for other currencies, so a partner pricing in another currency
// should set its own.
func DefaultRateCard(currency string) RateCard {
	return RateCard{
		Currency:           strings.ToLower(strings.TrimSpace(currency)),
		HourlyCents:        defaultHourlyCents,
		Crew:               defaultCrew,
		TravelCentsPerMile: defaultTravelCentsPerMile,
		MinimumCents:       defaultMinimumCents,
	}
}

// Validate reports every problem with rc, one per line, or nil when rc is
// usable. The messages name the JSON fields and are written for the operator
// who edits the rate card.
func (rc RateCard) Validate() error {
	var errs []error
	if !isCurrencyCode(rc.Currency) {
		errs = append(errs, fmt.Errorf("currency must be a three-letter lowercase ISO 4217 code such as \"usd\"; got %q", rc.Currency))
	}
	if rc.HourlyCents < 0 || rc.HourlyCents > maxHourlyCents {
		errs = append(errs, fmt.Errorf("hourly_cents must be between 0 and %d (minor units per mover per hour); got %d", maxHourlyCents, rc.HourlyCents))
	}
	if rc.Crew < 1 || rc.Crew > maxCrew {
		errs = append(errs, fmt.Errorf("crew must be between 1 and %d movers; got %d", maxCrew, rc.Crew))
	}
	if rc.TravelCentsPerMile < 0 || rc.TravelCentsPerMile > maxTravelCentsPerMile {
		errs = append(errs, fmt.Errorf("travel_cents_per_mile must be between 0 and %d (minor units per mile); got %d", maxTravelCentsPerMile, rc.TravelCentsPerMile))
	}
	if rc.MinimumCents < 0 || rc.MinimumCents > maxMinimumCents {
		errs = append(errs, fmt.Errorf("minimum_cents must be between 0 and %d (minor units); got %d", maxMinimumCents, rc.MinimumCents))
	}
	return errors.Join(errs...)
}

// isCurrencyCode reports whether s is three ASCII lowercase letters. Whether
// the code is assigned by ISO 4217 is not checked: the list changes, and an
// unknown code only affects how minor units are rounded (see minorPerMajor).
func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range len(s) {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// minorPerMajor returns how many minor units make one major unit of currency,
// from ISO 4217's exponents: most currencies have 2 decimals, but a yen has
// no cents and a dinar has 1000 fils, and dividing those by 100 would show a
// partner a price off by 100× or 10×. A switch rather than a map so that
// nothing is built at start-up.
func minorPerMajor(currency string) int64 {
	switch currency {
	case "bif", "clp", "djf", "gnf", "isk", "jpy", "kmf", "krw", "pyg",
		"rwf", "ugx", "uyi", "vnd", "vuv", "xaf", "xof", "xpf":
		return 1
	case "bhd", "iqd", "jod", "kwd", "lyd", "omr", "tnd":
		return 1000
	case "clf", "uyw":
		return 10000
	default:
		return 100
	}
}
