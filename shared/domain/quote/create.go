package quote

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// Bounds of a quote, in minor units of its currency (cents) and days.
const (
	// MinPriceCents and MaxPriceCents bound price_cents: a price is at least
	// one cent and at most 1,000,000.00, far above any household move, so a
	// slip of a few digits is caught rather than shown to a customer.
	MinPriceCents = 1
	MaxPriceCents = 100_000_000
	// MinDepositCents and MaxDepositCents bound a required deposit_cents:
	// the spec's deposit amount bounds (createDeposit's amount_cents).
	MinDepositCents = 100
	MaxDepositCents = 500_000
	// DefaultExpiryDays is how long a quote stays open when the body has no
	// expires_in_days; MaxExpiryDays is the longest it may be asked to.
	MinExpiryDays     = 1
	DefaultExpiryDays = 30
	MaxExpiryDays     = 90
	// MaxServices and MaxServiceLen bound services: a line each on the
	// quote page.
	MaxServices   = 30
	MaxServiceLen = 200
)

// CreateInput is a validated quote create request.
type CreateInput struct {
	EstimateType  EstimateType
	PriceCents    int64
	DepositCents  int64 // 0: no deposit required
	ExpiresInDays int
	Services      []string // included in the price, as the page lists them; nil for none
	// FullValueCents is full value protection's cost on top of the price:
	// 0 when included, nil when not stated.
	FullValueCents *int64
}

// createFields lists every property of the create body.
var createFields = []string{"estimate_type", "price_cents", "deposit_cents", "expires_in_days", "services", "full_value_protection_cents"}

// ParseCreate validates a quote create body:
//
//	{"estimate_type": "binding",   // required: non_binding | binding | binding_not_to_exceed
//	 "price_cents": 245000,        // required: integer, MinPriceCents..MaxPriceCents
//	 "deposit_cents": 25000,       // optional: 0, absent or null for none; else MinDepositCents..MaxDepositCents and ≤ price_cents
//	 "expires_in_days": 14,        // optional: MinExpiryDays..MaxExpiryDays, default DefaultExpiryDays
//	 "services": ["Packing"],      // optional: at most MaxServices one-line strings of at most MaxServiceLen characters
//	 "full_value_protection_cents": 45000} // optional: 0..MaxPriceCents; 0 when included in the price
//
// The quote page lists the services as included in the price, and shows
// full value protection's cost beside its option (released value is
// free); without full_value_protection_cents it tells the customer to ask.
//
// The expiry is a number of days from when the quote is made rather than a
// date-time, so a client's clock and time zone cannot put it in the past,
// and a replay of the same body means the same thing. The currency and
// the company name are not in the body: they are the partner's (Issuer).
//
// Amounts are JSON integers: 2450.00 or 2.45e5 are refused, not rounded,
// since a price is not something to guess at. A property that is null
// counts as absent.
//
// On failure it returns an *errcode.Error: invalid_json when body is not
// one JSON object (lead.DecodeObject's rules), validation_failed with
// details.fields naming every failing field (unknown properties included)
// otherwise.
func ParseCreate(body []byte) (CreateInput, error) {
	raw, err := lead.DecodeObject(body)
	if err != nil {
		return CreateInput{}, err
	}
	fields := errcode.FieldErrors{}
	unknownProperties(raw, createFields, fields)

	var in CreateInput
	switch t, reason := estimateType(raw["estimate_type"]); {
	case reason != "":
		fields.Add("estimate_type", reason)
	default:
		in.EstimateType = t
	}

	price, present, reason := integer(raw["price_cents"], MinPriceCents, MaxPriceCents)
	switch {
	case reason != "":
		fields.Add("price_cents", reason)
	case !present:
		fields.Add("price_cents", "is required: the price in cents (an integer)")
	default:
		in.PriceCents = price
	}

	deposit, _, reason := integer(raw["deposit_cents"], 0, MaxDepositCents)
	switch {
	case reason != "":
		fields.Add("deposit_cents", reason)
	case deposit > 0 && deposit < MinDepositCents:
		fields.Add("deposit_cents", fmt.Sprintf("must be 0 (no deposit) or from %d to %d cents (got %d)", MinDepositCents, MaxDepositCents, deposit))
	case deposit > 0 && in.PriceCents > 0 && deposit > in.PriceCents:
		fields.Add("deposit_cents", fmt.Sprintf("must be at most price_cents (%d; got %d)", in.PriceCents, deposit))
	default:
		in.DepositCents = deposit
	}

	days, present, reason := integer(raw["expires_in_days"], MinExpiryDays, MaxExpiryDays)
	switch {
	case reason != "":
		fields.Add("expires_in_days", reason)
	case !present:
		in.ExpiresInDays = DefaultExpiryDays
	default:
		in.ExpiresInDays = int(days)
	}

	if services, reason := lead.TextList(raw["services"], MaxServices, MaxServiceLen); reason != "" {
		fields.Add("services", reason)
	} else {
		in.Services = services
	}

	if fv, present, reason := integer(raw["full_value_protection_cents"], 0, MaxPriceCents); reason != "" {
		fields.Add("full_value_protection_cents", reason)
	} else if present {
		in.FullValueCents = &fv
	}

	if err := fields.Err(); err != nil {
		return CreateInput{}, err
	}
	return in, nil
}

// unknownProperties adds every property of raw not in allowed to fields.
func unknownProperties(raw map[string]json.RawMessage, allowed []string, fields errcode.FieldErrors) {
	for name := range raw {
		if !slices.Contains(allowed, name) {
			fields.Add(name, "unknown property")
		}
	}
}

// estimateType decodes the required estimate_type property.
func estimateType(raw json.RawMessage) (EstimateType, string) {
	names := make([]string, len(EstimateTypes))
	for i, t := range EstimateTypes {
		names[i] = string(t)
	}
	want := "one of " + strings.Join(names, ", ")
	s, reason := lead.TextValue(raw, 64, false)
	switch {
	case reason != "":
		return "", reason
	case s == "":
		return "", "is required: " + want
	case !slices.Contains(EstimateTypes, EstimateType(s)):
		return "", fmt.Sprintf("must be %s (got %q)", want, s)
	}
	return EstimateType(s), ""
}

// integer decodes an optional integer property within [lo, hi]. present is
// false when it is absent or null. The JSON must be an integer literal: a
// fraction or an exponent is refused even when its value is whole.
func integer(raw json.RawMessage, lo, hi int64) (v int64, present bool, reason string) {
	if raw == nil || string(raw) == "null" {
		return 0, false, ""
	}
	s := string(raw)
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		if s[0] == '-' || (s[0] >= '0' && s[0] <= '9') {
			return 0, true, "must be a whole number (an integer, without a fraction or exponent)"
		}
		return 0, true, "must be an integer"
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, true, fmt.Sprintf("must be from %d to %d (got %s)", lo, hi, clip(s, 24))
	}
	return n, true, ""
}

// clip shortens s to at most n bytes for a message, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
