package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
)

// quoteEvidence is the output of quote evidence: a lead's current quote
// (the latest made) as stored, and its acceptance (null until accepted or
// signed). Stage is the stage at the time of the run (an open quote past
// its expiry is expired); ShownHash is the hash of the terms the quote
// page shows (quote.Quote.ShownHash), which a signature's evidence
// records; DepositCents is 0 when no deposit is asked for.
type quoteEvidence struct {
	LeadID       string             `json:"lead_id"`
	QuoteID      string             `json:"quote_id"`
	EstimateType quote.EstimateType `json:"estimate_type"`
	PriceCents   int64              `json:"price_cents"`
	DepositCents int64              `json:"deposit_cents"`
	Currency     string             `json:"currency"`
	Stage        quote.Stage        `json:"stage"`
	ShownHash    string             `json:"shown_hash"`
	Acceptance   *acceptanceView    `json:"acceptance"`
}

// acceptanceView is a quote's acceptance as quote evidence shows it.
// Evidence and EvidenceHash are null for a non-binding quote's acceptance
// (accepted with an email address, no signature). EvidenceHashVerified
// says whether the evidence, hashed again (quote.Evidence.Hash), gives
// the hash recorded at signing: false when it does not, and when there is
// no evidence to hash.
type acceptanceView struct {
	Mode                 quote.Mode    `json:"mode"`
	At                   string        `json:"at"`
	IP                   string        `json:"ip"`
	Email                string        `json:"email"`
	Evidence             *evidenceView `json:"evidence"`
	EvidenceHash         *string       `json:"evidence_hash"`
	EvidenceHashVerified bool          `json:"evidence_hash_verified"`
}

// evidenceView is a binding quote's signature evidence (quote.Evidence):
// every field the evidence hash covers, in its order.
type evidenceView struct {
	QuoteID           string          `json:"quote_id"`
	ShownHash         string          `json:"shown_hash"`
	SignerName        string          `json:"signer_name"`
	SignerEmail       string          `json:"signer_email"`
	SignatureSHA256   string          `json:"signature_sha256"`
	SignatureKey      string          `json:"signature_key"`
	LiabilityElection quote.Liability `json:"liability_election"`
	ConsentVersion    string          `json:"consent_version"`
	ConsentChecked    bool            `json:"consent_checked"`
	At                string          `json:"at"`
	IP                string          `json:"ip"`
	UserAgent         string          `json:"user_agent"`
}

// viewAcceptance returns a as quote evidence shows it, nil for none.
func viewAcceptance(a *quote.Acceptance) *acceptanceView {
	if a == nil {
		return nil
	}
	v := &acceptanceView{Mode: a.Mode, At: lead.FormatTime(a.At), IP: a.IP, Email: a.Email, EvidenceHash: optString(a.EvidenceHash)}
	if e := a.Evidence; e != nil {
		v.Evidence = &evidenceView{
			QuoteID: e.QuoteID, ShownHash: e.ShownHash, SignerName: e.SignerName, SignerEmail: e.SignerEmail,
			SignatureSHA256: e.SignatureSHA256, SignatureKey: e.SignatureKey, LiabilityElection: e.LiabilityElection,
			ConsentVersion: e.ConsentVersion, ConsentChecked: e.ConsentChecked, At: lead.FormatTime(e.At), IP: e.IP, UserAgent: e.UserAgent,
		}
		v.EvidenceHashVerified = a.EvidenceHash != "" && e.Hash() == a.EvidenceHash
	}
	return v
}

// leadErr turns a not_found error about tenant t's lead id into the
// operator's message and returns any other error as it is.
func leadErr(t auth.Tenant, id string, err error) error {
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return fmt.Errorf("lead %s not found (partner %s, %s mode)", id, t.PartnerID, t.Mode)
	}
	return err
}

func parseQuoteEvidence(fs *flag.FlagSet, args []string) (action, error) {
	readTenant := tenantFlags(fs)
	leadFlag := fs.String("lead", "", "lead id (required)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	tenant, err := readTenant()
	if err != nil {
		return nil, err
	}
	leadID, err := plainID(fs, "lead", *leadFlag)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		l, err := s.GetQuoteLead(ctx, tenant, leadID)
		if err != nil {
			return nil, leadErr(tenant, leadID, err)
		}
		if l.Quote == nil {
			return nil, fmt.Errorf("lead %s has no quote (status %s): there is nothing to show", leadID, l.Status)
		}
		q, err := s.GetQuote(ctx, tenant, leadID, l.Quote.QuoteID)
		if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
			return nil, fmt.Errorf("quote %s of lead %s not found, though the lead names it as its current quote", l.Quote.QuoteID, leadID)
		}
		if err != nil {
			return nil, err
		}
		return quoteEvidence{
			LeadID: leadID, QuoteID: q.ID, EstimateType: q.EstimateType, PriceCents: q.PriceCents,
			DepositCents: q.DepositCents, Currency: q.Currency, Stage: q.StageAt(now), ShownHash: q.ShownHash(),
			Acceptance: viewAcceptance(q.Acceptance),
		}, nil
	}, nil
}
