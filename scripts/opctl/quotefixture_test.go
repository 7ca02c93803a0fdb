package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/quote"
)

// quotedLead is a lead of a fresh partner with a quote, written through
// the store as createQuote, acceptQuote and createDeposit write them.
type quotedLead struct {
	s      *dynamo.Store
	tenant auth.Tenant
	leadID string
	quote  quote.Quote
}

// newQuotedLead creates a partner, a lead of it in mode and an open quote
// of type et for the lead, made at made (so a quote made long enough ago
// has expired).
func newQuotedLead(t *testing.T, s *dynamo.Store, mode auth.Mode, et quote.EstimateType, made time.Time) quotedLead {
	t.Helper()
	ctx := context.Background()
	made = made.UTC().Truncate(time.Microsecond)
	partnerID := "ptn_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	if err := s.CreatePartner(ctx, partner.Partner{ID: partnerID, Name: "Acme Movers", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: made}); err != nil {
		t.Fatalf("CreatePartner: %v", err)
	}
	tn := auth.Tenant{PartnerID: partnerID, Mode: mode}
	l := newLead(t, s, tn, made)
	q := quote.Build(uuid.NewString(), l.ID, uuid.NewString(),
		quote.CreateInput{EstimateType: et, PriceCents: 245000, DepositCents: 25000, ExpiresInDays: 14},
		quote.Move{}, quote.Issuer{CompanyName: "Acme Movers", Currency: "usd"}, made)
	err := s.PutQuote(ctx, tn, record.NewQuote{
		LeadID: l.ID, Quote: q, Token: pageToken(l.ID, q.ID, made, q.ExpiresAt),
		LeadFrom: lead.New, LeadTo: lead.Quoted, At: made,
	})
	if err != nil {
		t.Fatalf("PutQuote: %v", err)
	}
	return quotedLead{s: s, tenant: tn, leadID: l.ID, quote: q}
}

// newLead stores a new lead of tenant tn, created at at.
func newLead(t *testing.T, s *dynamo.Store, tn auth.Tenant, at time.Time) lead.Lead {
	t.Helper()
	l := lead.Build(uuid.NewString(), lead.Details{CustomerName: "Grace Hopper", Email: "grace@example.com"}, estimate.DefaultRateCard("usd"), at)
	if err := s.PutLead(context.Background(), tn, l, false); err != nil {
		t.Fatalf("PutLead: %v", err)
	}
	return l
}

// pageToken returns a page token record for a fresh random token.
func pageToken(leadID, quoteID string, issued, expires time.Time) record.PageToken {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	sum := sha256.Sum256(b)
	return record.PageToken{Hash: hex.EncodeToString(sum[:]), LeadID: leadID, QuoteID: quoteID, IssuedAt: issued, ExpiresAt: expires}
}

// acceptWithEmail records a non-binding acceptance of q's quote at at.
func (q *quotedLead) acceptWithEmail(t *testing.T, at time.Time) quote.Acceptance {
	t.Helper()
	a := quote.Acceptance{QuoteID: q.quote.ID, Mode: quote.ModeAccepted, At: at.UTC().Truncate(time.Microsecond), IP: "198.51.100.23", Email: "grace@example.com"}
	q.accept(t, a)
	return a
}

// sign records a binding signature of q's quote at at, with its evidence
// and the evidence hash hash ("": the evidence's own hash, as Decide
// records it).
func (q *quotedLead) sign(t *testing.T, at time.Time, hash string) quote.Acceptance {
	t.Helper()
	at = at.UTC().Truncate(time.Microsecond)
	sig := sha256.Sum256([]byte("a drawn signature"))
	sigHex := hex.EncodeToString(sig[:])
	e := quote.Evidence{
		QuoteID: q.quote.ID, ShownHash: q.quote.ShownHash(), SignerName: "Grace Brewster Hopper", SignerEmail: "grace@example.com",
		SignatureSHA256:   sigHex,
		SignatureKey:      "signatures/" + q.tenant.PartnerID + "/" + string(q.tenant.Mode) + "/" + q.quote.ID + "/" + sigHex + ".png",
		LiabilityElection: quote.FullValueProtection, ConsentVersion: quote.ESignDisclosureVersion, ConsentChecked: true,
		At: at, IP: "203.0.113.7", UserAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)",
	}
	if hash == "" {
		hash = e.Hash()
	}
	a := quote.Acceptance{QuoteID: q.quote.ID, Mode: quote.ModeSigned, At: at, IP: e.IP, Email: e.SignerEmail, Evidence: &e, EvidenceHash: hash}
	q.accept(t, a)
	return a
}

// accept writes acceptance a of q's quote, moving the lead from quoted to
// accepted.
func (q *quotedLead) accept(t *testing.T, a quote.Acceptance) {
	t.Helper()
	q.quote.Stage = quote.StageAccepted
	if a.Mode == quote.ModeSigned {
		q.quote.Stage = quote.StageSigned
	}
	err := q.s.AcceptQuote(context.Background(), q.tenant, record.QuoteAccepted{
		Quote: q.quote, Acceptance: a, LeadFrom: lead.Quoted, LeadTo: lead.Accepted, At: a.At,
	})
	if err != nil {
		t.Fatalf("AcceptQuote: %v", err)
	}
}

// testAccount is the connected account of the fixtures' deposits.
const testAccount = "acct_1SimOpctlTest01"

// newDeposit stores a checkout_open deposit for q's accepted quote, as
// createDeposit does after Stripe answered, with PaymentIntent pi ("":
// not known yet), and returns it.
func (q *quotedLead) newDeposit(t *testing.T, pi string) deposit.Deposit {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	d := deposit.Deposit{
		ID: uuid.NewString(), PartnerID: q.tenant.PartnerID, LeadID: q.leadID, QuoteShareLinkID: q.quote.ShareLinkID,
		ConnectedAccount: testAccount, Status: deposit.CheckoutOpen, AmountCents: q.quote.DepositCents, Currency: q.quote.Currency,
		SessionID: "cs_test_" + strings.ReplaceAll(uuid.NewString(), "-", ""), CheckoutURL: "https://checkout.stripe.com/c/pay/cs_test_x",
		CheckoutExpiresAt: now.Add(23 * time.Hour).Truncate(time.Second), PaymentIntentID: pi, CreatedAt: now,
	}
	err := q.s.PutDeposit(context.Background(), q.tenant, record.NewDeposit{
		Deposit: d, QuoteID: q.quote.ID, Token: pageToken(q.leadID, q.quote.ID, now, d.CheckoutExpiresAt),
		LeadFrom: lead.Accepted, LeadTo: lead.DepositPending, At: now,
	})
	if err != nil {
		t.Fatalf("PutDeposit: %v", err)
	}
	return d
}
