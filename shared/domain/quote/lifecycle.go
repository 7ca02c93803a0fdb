package quote

import (
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// LeadStatusAfterQuote returns the status a lead in status current moves to
// when a new quote is made for it, or the conflict that refuses the quote:
//
//	new, surveying, quoted      → quoted (a quoted lead's open quote is superseded)
//	accepted, deposit_pending   → 409 quote_already_accepted
//	lost, booked, completed     → 409 lead_closed
//
// A quote the customer accepted or signed is not replaced: a new quote
// would silently void terms the customer agreed to (and, once signed, the
// evidence of them), and a deposit may already be under way for it. A
// partner that must change an accepted price does so outside this beta
// (marking the lead lost and starting over), until a withdrawal flow with
// the customer's agreement exists.
//
// Any other status (unknown, or a value this version does not know) is an
// internal error: a stored lead is never in it.
func LeadStatusAfterQuote(current lead.Status) (lead.Status, error) {
	switch current {
	case lead.New, lead.Surveying, lead.Quoted:
		return lead.Quoted, nil
	case lead.Accepted, lead.DepositPending:
		return "", errcode.New(errcode.QuoteAlreadyAccepted,
			"The lead's quote was already accepted (lead status %s); a new quote cannot replace it.", current).
			WithDetail("lead_status", string(current))
	case lead.Lost, lead.Booked, lead.Completed:
		return "", leadClosed(current)
	}
	return "", unexpectedStatus(current)
}

// LeadStatusAfterAccept returns the status a lead in status current moves
// to when its quote is accepted, or the conflict that refuses it:
//
//	quoted                      → accepted
//	accepted, deposit_pending   → unchanged (only Decide's same-terms replay gets here;
//	                              different terms are refused before, with quote_already_accepted)
//	new, surveying              → 409 no_quote (a quote moves a lead to quoted)
//	lost, booked, completed     → 409 lead_closed
//
// Acceptance never books: only a paid deposit moves a lead to booked. Any
// other status is an internal error, as in LeadStatusAfterQuote.
func LeadStatusAfterAccept(current lead.Status) (lead.Status, error) {
	switch current {
	case lead.Quoted:
		return lead.Accepted, nil
	case lead.Accepted, lead.DepositPending:
		return current, nil
	case lead.New, lead.Surveying:
		return "", noQuote()
	case lead.Lost, lead.Booked, lead.Completed:
		return "", leadClosed(current)
	}
	return "", unexpectedStatus(current)
}

func noQuote() *errcode.Error {
	return errcode.New(errcode.NoQuote, "The lead has no quote to accept; create a quote for it first.")
}

func leadClosed(s lead.Status) *errcode.Error {
	return errcode.New(errcode.LeadClosed, "The lead is %s; its quote can no longer be created or accepted.", s).
		WithDetail("lead_status", string(s))
}

func quoteExpired(q Quote) *errcode.Error {
	if q.Stage == StageSuperseded {
		return errcode.New(errcode.QuoteExpired, "A newer quote replaced this one; it can no longer be accepted.").
			WithDetail("stage", string(StageSuperseded))
	}
	return errcode.New(errcode.QuoteExpired, "The quote expired at %s; it can no longer be accepted.", q.ExpiresAt.UTC().Format(time.RFC3339)).
		WithDetail("stage", string(StageExpired)).
		WithDetail("expires_at", q.ExpiresAt.UTC().Format(time.RFC3339))
}

func alreadyAccepted(prior Acceptance) *errcode.Error {
	stage := StageAccepted
	if prior.Mode == ModeSigned {
		stage = StageSigned
	}
	return errcode.New(errcode.QuoteAlreadyAccepted,
		"The quote was already %s with different terms; nothing was changed.", stage).
		WithDetail("stage", string(stage)).
		WithDetail("accepted_at", prior.At.UTC().Format(time.RFC3339))
}

func unexpectedStatus(s lead.Status) *errcode.Error {
	return internal("lead in unexpected status %q", s)
}
