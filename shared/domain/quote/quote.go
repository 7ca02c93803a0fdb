package quote

import (
	"time"

	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// EstimateType is the kind of a quote: the three US interstate estimate
// types (49 CFR 375.401–375.405).
type EstimateType string

// The estimate types. A binding quote (Binding or BindingNotToExceed) is
// accepted with an electronic signature; a non-binding one with an email
// address.
const (
	NonBinding         EstimateType = "non_binding"
	Binding            EstimateType = "binding"
	BindingNotToExceed EstimateType = "binding_not_to_exceed"
)

// EstimateTypes lists every estimate type.
var EstimateTypes = []EstimateType{NonBinding, Binding, BindingNotToExceed}

// IsBinding reports whether t is one of the binding_* kinds, which need a
// signature to accept.
func (t EstimateType) IsBinding() bool { return t == Binding || t == BindingNotToExceed }

// Mode is how a quote was accepted, and what acceptQuote answers in status.
type Mode string

// The acceptance modes (the Accept response's status enum).
const (
	ModeAccepted Mode = "accepted" // a non-binding quote, accepted with an email address
	ModeSigned   Mode = "signed"   // a binding quote, signed electronically
)

// ModeFor returns the mode a quote of type t is accepted in.
func ModeFor(t EstimateType) Mode {
	if t.IsBinding() {
		return ModeSigned
	}
	return ModeAccepted
}

// Stage is where a quote stands (quote.stage in getLead).
type Stage string

// The stages. A quote is stored Open, Accepted, Signed or Superseded;
// Expired is never stored but reported by StageAt for an open quote past
// its expiry.
const (
	StageOpen       Stage = "open"       // sent, awaiting the customer
	StageAccepted   Stage = "accepted"   // a non-binding quote the customer accepted
	StageSigned     Stage = "signed"     // a binding quote the customer signed
	StageSuperseded Stage = "superseded" // a newer quote on the same lead replaced it before acceptance
	StageExpired    Stage = "expired"    // open, and past ExpiresAt
)

// Quote is a price offered to a lead's customer. Its terms never change
// after Build: a revised price is a new quote (LeadStatusAfterQuote says
// when one may be made), so what the customer saw is always what was
// stored. Only Stage moves.
type Quote struct {
	ID           string
	LeadID       string
	ShareLinkID  string // a uuid; createDeposit names the quote by it (quote_share_link_id)
	EstimateType EstimateType
	PriceCents   int64 // in minor units of Currency; MinPriceCents..MaxPriceCents
	// DepositCents is the date-holding deposit the customer is asked for,
	// in minor units of Currency: 0 when none is required, otherwise
	// MinDepositCents..MaxDepositCents and at most PriceCents.
	DepositCents int64
	Currency     string // lowercase ISO 4217, the partner's (its rate card's) currency
	CompanyName  string // the mover as the quote page names it, fixed when the quote is made
	// Move is the move the price is for; nil for a quote made before
	// quotes carried it (its ShownHash is then the v1 encoding's).
	Move      *Move
	ExpiresAt time.Time
	CreatedAt time.Time
	Stage     Stage
}

// Issuer is what the partner contributes to a quote it makes: the company
// name the page shows and the currency of its prices.
type Issuer struct {
	CompanyName string
	Currency    string
}

// Build returns the quote id of lead leadID with share link shareLinkID,
// made at now from the validated input in, for the move (MoveOf),
// in stage StageOpen. The issuer's
// name and currency are copied in, so a later change of the partner's
// settings does not change what an open quote shows (or its ShownHash).
// Times are kept in UTC to the microsecond, the precision they are stored
// in, so a quote read back is equal to the one built.
func Build(id, leadID, shareLinkID string, in CreateInput, move Move, iss Issuer, now time.Time) Quote {
	now = storedTime(now)
	return Quote{
		ID:           id,
		LeadID:       leadID,
		ShareLinkID:  shareLinkID,
		EstimateType: in.EstimateType,
		PriceCents:   in.PriceCents,
		DepositCents: in.DepositCents,
		Currency:     iss.Currency,
		CompanyName:  iss.CompanyName,
		Move:         &move,
		ExpiresAt:    now.Add(time.Duration(in.ExpiresInDays) * 24 * time.Hour),
		CreatedAt:    now,
		Stage:        StageOpen,
	}
}

// DepositRequired reports whether the customer is asked for a deposit
// (deposit_required in the Accept response).
func (q Quote) DepositRequired() bool { return q.DepositCents > 0 }

// Expired reports whether q can no longer be accepted at now for want of
// time: it is at or past ExpiresAt.
func (q Quote) Expired(now time.Time) bool { return !now.Before(q.ExpiresAt) }

// StageAt returns q's stage as reported at now: StageExpired for an open
// quote past its expiry, q.Stage otherwise. An accepted or signed quote
// stays so after its expiry: it was accepted in time.
func (q Quote) StageAt(now time.Time) Stage {
	if q.Stage == StageOpen && q.Expired(now) {
		return StageExpired
	}
	return q.Stage
}

// Summary is getLead's quote object.
type Summary struct {
	QuoteID    string
	Stage      Stage
	AcceptedAt *time.Time // set for an accepted or signed quote (a signed quote is accepted too)
	SignedAt   *time.Time // set for a signed quote only
}

// Summarize returns getLead's quote object for q and its acceptance a (nil
// when there is none) at now.
func Summarize(q Quote, a *Acceptance, now time.Time) Summary {
	s := Summary{QuoteID: q.ID, Stage: q.StageAt(now)}
	if a != nil {
		at := a.At
		s.AcceptedAt = &at
		if a.Mode == ModeSigned {
			s.SignedAt = &at
		}
	}
	return s
}

// storedTime is t as it is stored: UTC, truncated to the microsecond
// (lead.TimeLayout), so that a value read back compares and hashes equal.
func storedTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// formatTime renders t in lead.TimeLayout, as the canonical encodings do.
func formatTime(t time.Time) string { return lead.FormatTime(t) }
