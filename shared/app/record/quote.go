package record

import (
	"errors"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// QuoteRef is what a lead item says about the lead's current quote (the
// latest made): enough for getLead's quote object and for the checks of
// acceptQuote and createDeposit, without reading the quote.
type QuoteRef struct {
	QuoteID     string
	ShareLinkID string
	// Stage is the stored stage: open, accepted or signed (expired is
	// computed from ExpiresAt; superseded quotes are never current).
	Stage      quote.Stage
	ExpiresAt  time.Time
	AcceptedAt *time.Time
	SignedAt   *time.Time
}

// Summary returns getLead's quote object at now.
func (r QuoteRef) Summary(now time.Time) quote.Summary {
	st := r.Stage
	if st == quote.StageOpen && !now.Before(r.ExpiresAt) {
		st = quote.StageExpired
	}
	return quote.Summary{QuoteID: r.QuoteID, Stage: st, AcceptedAt: r.AcceptedAt, SignedAt: r.SignedAt}
}

// DepositRef is what a lead item says about the lead's latest deposit.
type DepositRef struct {
	DepositID string
	Status    deposit.Status
}

// Lead is a lead with what its item says about its current quote and
// latest deposit (nil when it has none).
type Lead struct {
	lead.Lead
	Quote   *QuoteRef
	Deposit *DepositRef
}

// Quote is a stored quote with its acceptance (nil until accepted or
// signed; a quote has at most one).
type Quote struct {
	quote.Quote
	Acceptance *quote.Acceptance
}

// PageToken is a quote page token's lookup record: from the token's
// SHA-256 to the lead and quote it opens. The token itself is never
// stored.
type PageToken struct {
	Hash      string // lowercase hex SHA-256 of the token
	LeadID    string
	QuoteID   string
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// QuotePageGrant is what a quote page token resolves to.
type QuotePageGrant struct {
	Tenant    auth.Tenant
	LeadID    string
	QuoteID   string
	ExpiresAt time.Time
}

// NewQuote is createQuote's write, one transaction: the quote (never
// overwriting), its page token's record, the superseded quote's stage
// (when Superseded is set: conditioned on it still being open), and the
// lead: status LeadTo, the new quote's ref, the deposit ref removed,
// updated_at = At and the matching listing position, conditioned on the
// lead's status being LeadFrom and its quote id being PrevQuoteID ("":
// none) as the caller read them.
type NewQuote struct {
	LeadID      string
	Quote       quote.Quote
	Token       PageToken
	Superseded  string
	PrevQuoteID string
	LeadFrom    lead.Status
	LeadTo      lead.Status
	At          time.Time
}

// QuoteAccepted is an acceptance's write, one transaction: the quote gets
// Quote.Stage and the acceptance (conditioned on its stage being open),
// and the lead gets status LeadTo, its quote ref's stage, accepted_at and
// signed_at, updated_at = At and the listing position (conditioned on
// its status being LeadFrom and its quote id Quote.ID).
type QuoteAccepted struct {
	Quote      quote.Quote
	Acceptance quote.Acceptance
	LeadFrom   lead.Status
	LeadTo     lead.Status
	At         time.Time
}

// NewDeposit is createDeposit's write after Stripe answered, one
// transaction: the deposit (never overwriting), the return page token's
// record, and the lead: status LeadTo, the deposit ref (id, status),
// updated_at = At and the listing position, conditioned on its status
// being LeadFrom, its quote id QuoteID and its deposit id
// PrevDepositID ("": none) as read.
type NewDeposit struct {
	Deposit       deposit.Deposit
	QuoteID       string
	Token         PageToken
	PrevDepositID string
	LeadFrom      lead.Status
	LeadTo        lead.Status
	At            time.Time
}

// DepositChange is an event applied to a deposit (deposit.Deposit.Apply),
// from a Stripe webhook or a reconciliation, in one transaction:
//   - the deposit becomes After, conditioned on its status still being
//     Before.Status;
//   - when StripeEventID is set, the event's dedupe record (never
//     overwriting: a second delivery fails the transaction, and the store
//     reports ErrDuplicate);
//   - when After.PaymentIntentID is set and Before's was not, the
//     PaymentIntent's record (mode and PaymentIntent id → tenant and
//     deposit);
//   - when the status changed, the lead: its deposit ref's status, and
//     status booked when Transition.Books (from any status but lost or
//     completed), updated_at = At and the listing position, conditioned
//     on its deposit id being this deposit;
//   - each of Events, written only if new (the outbox).
//
// A change that moves nothing (Transition.Changed false) with a
// StripeEventID writes the dedupe record alone.
type DepositChange struct {
	Before, After deposit.Deposit
	Transition    deposit.Transition
	StripeEventID string
	Events        []webhook.Event
	At            time.Time
}

// ErrDuplicate is wrapped by the store's ApplyDeposit error when the
// Stripe event was applied before (its dedupe record exists): nothing was
// written.
var ErrDuplicate = errors.New("stripe event already applied")
