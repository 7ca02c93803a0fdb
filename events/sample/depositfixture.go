package sample

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// The fixtures of the deposit beta's events (docs/QUOTES.md,
// docs/DEPOSITS.md): the fixture partner has the deposits beta and its
// deposit settings, and these leads have quotes and deposits in the states
// the events need. Like the others they are local only and not secret; the
// quote tokens open only the fixture partner's test-mode quotes.
const (
	// CarrierLegalName, USDOTNumber and StripeAccount are the fixture
	// partner's deposit settings (opctl partner deposits sets them on a
	// real partner). The account is stripe-mock's business: it checks no
	// account.
	CarrierLegalName = "Sample Movers LLC (local fixture)"
	USDOTNumber      = "1234567"
	StripeAccount    = "acct_1SampleLocalOnly00"

	// QuoteLeadID is a new lead: the createQuote events quote it (each
	// new quote supersedes the last; under an Idempotency-Key a replay).
	QuoteLeadID = "00000000-0000-4000-8000-000000000007"

	// AcceptLeadID is a quoted lead whose open non-binding quote
	// AcceptQuoteID (with a deposit) the acceptQuote events and the quote
	// page's accept event accept with fixtureEmail: the first accepts, the
	// others repeat the same terms and answer the same.
	AcceptLeadID      = "00000000-0000-4000-8000-000000000008"
	AcceptQuoteID     = "00000000-0000-4000-8000-000000000508"
	AcceptShareLinkID = "00000000-0000-4000-8000-000000000608"
	// QuoteToken is the quote page token of AcceptQuoteID (the page and
	// accept events). A quote page token has a capture token's form; only
	// its SHA-256 is stored.
	QuoteToken = "sample_quote_token_accept_local_only_000000"

	// DepositLeadID is a lead whose non-binding quote DepositQuoteID (with
	// a deposit) is accepted: the createDeposit events and the quote
	// page's deposit event start its deposit's checkout (on stripe-mock);
	// once one exists, the others answer that open checkout.
	DepositLeadID      = "00000000-0000-4000-8000-000000000009"
	DepositQuoteID     = "00000000-0000-4000-8000-000000000509"
	DepositShareLinkID = "00000000-0000-4000-8000-000000000609"
	// DepositQuoteToken is the quote page token of DepositQuoteID.
	DepositQuoteToken = "sample_quote_token_deposit_local_only_00000"

	// OpenLeadID is a lead whose quote OpenQuoteID is open and stays so
	// (no event accepts it): a deposit for it is 409 quote_not_accepted.
	OpenLeadID      = "00000000-0000-4000-8000-000000000010"
	OpenQuoteID     = "00000000-0000-4000-8000-000000000510"
	OpenShareLinkID = "00000000-0000-4000-8000-000000000610"

	// PaidLeadID is a booked lead whose deposit PaidDepositID is paid: the
	// getDeposit events read it (a paid deposit is never reconciled, so
	// they call no Stripe).
	PaidLeadID      = "00000000-0000-4000-8000-000000000011"
	PaidQuoteID     = "00000000-0000-4000-8000-000000000511"
	PaidShareLinkID = "00000000-0000-4000-8000-000000000611"
	PaidDepositID   = "00000000-0000-4000-8000-000000000411"

	// UnknownDepositID is a UUID no deposit has: it answers 404.
	UnknownDepositID = "00000000-0000-4000-8000-000000000499"
	// UnknownQuoteToken has the form of a quote page token but was never
	// issued: it answers 404.
	UnknownQuoteToken = "sample_quote_token_unknown_local_only_00000"

	// fixtureEmail is who accepts the non-binding fixture quotes.
	fixtureEmail = "grace@example.com"
	// fixtureDepositCents is every fixture quote's deposit.
	fixtureDepositCents = 25000
)

// depositSettings is the fixture partner's deposit configuration: all
// that createDeposit requires (partner.DepositSettings.Missing is empty).
var depositSettings = partner.DepositSettings{
	CarrierLegalName: CarrierLegalName, USDOTNumber: USDOTNumber, StripeAccount: StripeAccount,
}

// FixtureMove is what every fixture quote is for: the fixture lead's move
// with a counted inventory, a special item, two services and full value
// protection's cost, so the quote page make dev serves shows all of it.
var FixtureMove = quote.Move{
	FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108", MoveDate: "2027-01-15",
	Inventory: []quote.Line{
		{Room: "Living room", Name: "Sofa, 3 seats", Count: 1},
		{Room: "Living room", Name: "Armchair", Count: 2},
		{Room: "Living room", Name: "TV, large flat screen", Count: 1},
		{Room: "Bedroom", Name: "Bed, queen", Count: 1},
		{Room: "Bedroom", Name: "Dresser", Count: 1},
		{Room: "Bedroom", Name: "Nightstand", Count: 2},
		{Room: "Kitchen", Name: "Dining table, medium", Count: 1},
		{Room: "Kitchen", Name: "Dining chair", Count: 4},
		{Room: "Kitchen", Name: "Box, medium (3.0 cu ft)", Count: 12},
	},
	SpecialItems:   []string{"Piano (upright)"},
	Services:       []string{"Packing of fragile items", "Disassembly and reassembly of beds"},
	FullValueCents: &fixtureFullValueCents,
}

// fixtureFullValueCents is full value protection's cost in FixtureMove.
var fixtureFullValueCents int64 = 45000

// seedDeposits seeds the deposit beta's fixtures for tenant t of the
// partner named company, through the same store calls createQuote,
// acceptQuote and createDeposit make: QuoteLeadID new; AcceptLeadID quoted
// (open quote, page token QuoteToken); DepositLeadID accepted (page token
// DepositQuoteToken); OpenLeadID quoted; PaidLeadID booked with its paid
// deposit. Quotes expire 30 days from now, their page links 30 days after
// that (quotes.TokenAfterExpiry).
func seedDeposits(ctx context.Context, store *dynamo.Store, t auth.Tenant, company string, rc estimate.RateCard, now time.Time) error {
	for _, id := range []string{QuoteLeadID, AcceptLeadID, DepositLeadID, OpenLeadID, PaidLeadID} {
		if err := putFixtureLead(ctx, store, t, id, rc); err != nil {
			return err
		}
	}
	iss := quote.Issuer{CompanyName: company, Currency: "usd"}
	type fixtureQuote struct {
		leadID, quoteID, shareLinkID, token string
		accept                              bool
	}
	for _, fq := range []fixtureQuote{
		{AcceptLeadID, AcceptQuoteID, AcceptShareLinkID, QuoteToken, false},
		{DepositLeadID, DepositQuoteID, DepositShareLinkID, DepositQuoteToken, true},
		{OpenLeadID, OpenQuoteID, OpenShareLinkID, "", false},
		{PaidLeadID, PaidQuoteID, PaidShareLinkID, "", true},
	} {
		q, err := seedQuote(ctx, store, t, fq.leadID, fq.quoteID, fq.shareLinkID, fq.token, iss, now)
		if err != nil {
			return err
		}
		if !fq.accept {
			continue
		}
		if err := acceptQuote(ctx, store, t, q, now); err != nil {
			return err
		}
		if fq.leadID == PaidLeadID {
			if err := seedPaidDeposit(ctx, store, t, q, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// putFixtureLead stores a new lead id of t, estimated with rc.
func putFixtureLead(ctx context.Context, store *dynamo.Store, t auth.Tenant, id string, rc estimate.RateCard) error {
	l := lead.Build(id, lead.CreateInput{
		CustomerName: "Grace Hopper", Email: fixtureEmail, Phone: "+15555550100",
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108",
		HomeSize: "2 bedroom", MoveDate: "2027-01-15", Source: "sample-fixture",
	}, rc, SeededAt)
	if err := store.PutLead(ctx, t, l, false); err != nil {
		return fmt.Errorf("seed lead %s: %w", id, err)
	}
	return nil
}

// seedQuote makes quote quoteID of lead leadID (new → quoted), a
// non-binding quote with a deposit for FixtureMove, with the page token token (random
// when ""), as createQuote writes one.
func seedQuote(ctx context.Context, store *dynamo.Store, t auth.Tenant, leadID, quoteID, shareLinkID, token string, iss quote.Issuer, now time.Time) (quote.Quote, error) {
	q := quote.Build(quoteID, leadID, shareLinkID, quote.CreateInput{
		EstimateType: quote.NonBinding, PriceCents: 245000, DepositCents: fixtureDepositCents, ExpiresInDays: 30,
	}, FixtureMove, iss, now)
	if token == "" {
		var err error
		if token, err = linktoken.New(); err != nil {
			return quote.Quote{}, fmt.Errorf("seed quote %s: %w", quoteID, err)
		}
	}
	hash, err := linktoken.Parse(token)
	if err != nil {
		return quote.Quote{}, fmt.Errorf("seed quote %s: token %q: %w", quoteID, token, err)
	}
	tok := record.PageToken{Hash: hash, LeadID: leadID, QuoteID: quoteID, IssuedAt: q.CreatedAt, ExpiresAt: q.ExpiresAt.Add(30 * 24 * time.Hour)}
	err = store.PutQuote(ctx, t, record.NewQuote{
		LeadID: leadID, Quote: q, Token: tok, LeadFrom: lead.New, LeadTo: lead.Quoted, At: q.CreatedAt,
	})
	if err != nil {
		return quote.Quote{}, fmt.Errorf("seed quote %s: %w", quoteID, err)
	}
	return q, nil
}

// acceptQuote records the non-binding acceptance of q by fixtureEmail
// (quoted → accepted), as acceptQuote writes one.
func acceptQuote(ctx context.Context, store *dynamo.Store, t auth.Tenant, q quote.Quote, now time.Time) error {
	at := now.UTC().Truncate(time.Microsecond)
	q.Stage = quote.StageAccepted
	err := store.AcceptQuote(ctx, t, record.QuoteAccepted{
		Quote:      q,
		Acceptance: quote.Acceptance{QuoteID: q.ID, Mode: quote.ModeAccepted, At: at, IP: "127.0.0.1", Email: fixtureEmail},
		LeadFrom:   lead.Quoted, LeadTo: lead.Accepted, At: at,
	})
	if err != nil {
		return fmt.Errorf("seed acceptance of quote %s: %w", q.ID, err)
	}
	return nil
}

// seedPaidDeposit stores PaidDepositID for q's lead as createDeposit and
// the Stripe receiver leave a paid one (accepted → booked).
func seedPaidDeposit(ctx context.Context, store *dynamo.Store, t auth.Tenant, q quote.Quote, now time.Time) error {
	at := now.UTC().Truncate(time.Microsecond)
	d := deposit.Deposit{
		ID: PaidDepositID, PartnerID: t.PartnerID, LeadID: q.LeadID, QuoteShareLinkID: q.ShareLinkID,
		ConnectedAccount: StripeAccount, Status: deposit.Paid, AmountCents: q.DepositCents, Currency: q.Currency,
		SessionID: "cs_test_sample_paid_local_only", CheckoutExpiresAt: at.Add(24 * time.Hour).Truncate(time.Second),
		PaymentIntentID: "pi_sample_paid_local_only", CreatedAt: at, PaidAt: at,
	}
	token, err := linktoken.New()
	if err != nil {
		return fmt.Errorf("seed deposit %s: %w", d.ID, err)
	}
	err = store.PutDeposit(ctx, t, record.NewDeposit{
		Deposit: d, QuoteID: q.ID,
		Token:    record.PageToken{Hash: linktoken.Hash(token), LeadID: q.LeadID, QuoteID: q.ID, IssuedAt: at, ExpiresAt: q.ExpiresAt},
		LeadFrom: lead.Accepted, LeadTo: lead.Booked, At: at,
	})
	if err != nil {
		return fmt.Errorf("seed deposit %s: %w", d.ID, err)
	}
	return seedPaidEvent(ctx, store, t, d, at)
}

// PaidEventID is the deposit.paid event of PaidDepositID, the getEvent
// and listEvents samples' event.
const PaidEventID = "evt_" + PaidDepositID + "_" + string(webhook.DepositPaid)

// UnknownEventID has an event id's form; no event has it: it answers 404.
const UnknownEventID = "evt_" + UnknownSurveyID + "_" + string(webhook.SurveyCompleted)

// seedPaidEvent writes the deposit.paid event d owes (PaidEventID), as
// the Stripe receiver does, at at: within the events API's 30 days.
func seedPaidEvent(ctx context.Context, store *dynamo.Store, t auth.Tenant, d deposit.Deposit, at time.Time) error {
	data, err := json.Marshal(webhook.DepositData{
		LeadID: d.LeadID, DepositID: d.ID, QuoteShareLinkID: d.QuoteShareLinkID, Mode: string(t.Mode), Status: "paid",
		AmountCents: d.AmountCents, Currency: d.Currency, LeadStatus: string(lead.Booked),
	})
	if err != nil {
		return fmt.Errorf("seed event %s: %w", PaidEventID, err)
	}
	e := webhook.Event{ID: PaidEventID, Type: webhook.DepositPaid, Mode: string(t.Mode), At: at, Data: data, LeadID: d.LeadID}
	if _, err := store.PutEvent(ctx, t, e); err != nil {
		return fmt.Errorf("seed event %s: %w", PaidEventID, err)
	}
	return nil
}
