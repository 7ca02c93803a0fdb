package coldstart

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	eventsample "github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// The deposit functions' fixture settings: the connected account of every
// beta partner (stripe-mock takes any), and the test-mode signing secret
// of the Stripe webhook endpoint, which the receiver gets in
// STRIPE_WEBHOOK_SECRETS and the receiver's events are signed with.
const (
	stripeAccount       = "acct_1ColdStartMovers"
	stripeWebhookSecret = "whsec_coldstart_test"
)

// depositSettings is what createDeposit requires of a partner.
var depositSettings = partner.DepositSettings{
	CarrierLegalName: "Cold Start Movers LLC", USDOTNumber: "1234567", StripeAccount: stripeAccount,
}

// quoteBody is the createQuote cold start's body: a non-binding quote with
// a deposit.
const quoteBody = `{"estimate_type":"non_binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`

// acceptBody accepts the non-binding fixture quotes.
const acceptBody = `{"accepter_email":"grace@example.com"}`

// depositFixture is the fixture of the functions no partner route of its
// own covers: the quote page's partner (deposits beta) and its open quote,
// on which each quote page cold start opens a page token of its own; and a
// paid deposit that every getDeposit cold start reads (paid: never
// reconciled, so the read is the table's alone).
type depositFixture struct {
	quotes    auth.Tenant
	pageQuote quote.Quote
	paid      string // the getDeposit partner's paid deposit
	stripeURL string // stripe-mock, STRIPE_API_URL of the functions that call Stripe
}

// seedDeposits creates the quote page's partner and quote, and the paid
// deposit of the getDeposit partner (already created, with the deposits
// beta, by newFixture).
func (f *fixture) seedDeposits(ctx context.Context, now time.Time) error {
	p := partner.Partner{
		ID: "ptn_coldstart_quotes", Name: "Cold start quotes", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now,
		Beta: []partner.Feature{partner.Deposits}, Deposits: depositSettings,
	}
	if err := f.store.CreatePartner(ctx, p); err != nil {
		return fmt.Errorf("quotes partner: %w", err)
	}
	f.quotes = auth.Tenant{PartnerID: p.ID, Mode: auth.Test}
	l, err := f.newLead(ctx, f.quotes, now)
	if err != nil {
		return err
	}
	if f.pageQuote, err = f.quoteLead(ctx, f.quotes, l, now); err != nil {
		return err
	}
	st := auth.Tenant{PartnerID: f.partners[manifest.GetDeposit], Mode: auth.Test}
	if f.paid, err = f.paidDeposit(ctx, st, now); err != nil {
		return err
	}
	return nil
}

// newLead stores a new lead of t.
func (f *fixture) newLead(ctx context.Context, t auth.Tenant, now time.Time) (string, error) {
	l := lead.Build(uuid.NewString(), lead.CreateInput{
		CustomerName: "Grace Hopper", Email: "grace@example.com",
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108",
		HomeSize: "2 bedroom", Source: "coldstart",
	}, estimate.DefaultRateCard("usd"), now)
	if err := f.store.PutLead(ctx, t, l, false); err != nil {
		return "", fmt.Errorf("deposit lead: %w", err)
	}
	return l.ID, nil
}

// quoteLead makes an open non-binding quote with a deposit for t's new
// lead leadID, as createQuote writes it (with a page token nobody holds).
func (f *fixture) quoteLead(ctx context.Context, t auth.Tenant, leadID string, now time.Time) (quote.Quote, error) {
	q := quote.Build(uuid.NewString(), leadID, uuid.NewString(), quote.CreateInput{
		EstimateType: quote.NonBinding, PriceCents: 245000, DepositCents: 25000, ExpiresInDays: 30,
	}, quote.Move{}, quote.Issuer{CompanyName: "Cold Start Movers", Currency: "usd"}, now)
	token, err := linktoken.New()
	if err != nil {
		return quote.Quote{}, err
	}
	err = f.store.PutQuote(ctx, t, record.NewQuote{
		LeadID: leadID, Quote: q, LeadFrom: lead.New, LeadTo: lead.Quoted, At: q.CreatedAt,
		Token: record.PageToken{Hash: linktoken.Hash(token), LeadID: leadID, QuoteID: q.ID, IssuedAt: q.CreatedAt, ExpiresAt: q.ExpiresAt},
	})
	if err != nil {
		return quote.Quote{}, fmt.Errorf("quote: %w", err)
	}
	return q, nil
}

// acceptedQuote makes a new lead of t with a quote its customer accepted
// (quoted → accepted), as acceptQuote writes it.
func (f *fixture) acceptedQuote(ctx context.Context, t auth.Tenant, now time.Time) (quote.Quote, error) {
	leadID, err := f.newLead(ctx, t, now)
	if err != nil {
		return quote.Quote{}, err
	}
	q, err := f.quoteLead(ctx, t, leadID, now)
	if err != nil {
		return quote.Quote{}, err
	}
	at := now.UTC().Truncate(time.Microsecond)
	q.Stage = quote.StageAccepted
	err = f.store.AcceptQuote(ctx, t, record.QuoteAccepted{
		Quote:      q,
		Acceptance: quote.Acceptance{QuoteID: q.ID, Mode: quote.ModeAccepted, At: at, IP: "127.0.0.1", Email: "grace@example.com"},
		LeadFrom:   lead.Quoted, LeadTo: lead.Accepted, At: at,
	})
	if err != nil {
		return quote.Quote{}, fmt.Errorf("accept quote: %w", err)
	}
	return q, nil
}

// paidDeposit stores a paid deposit of an accepted quote of t's new lead
// (accepted → booked) and returns its id.
func (f *fixture) paidDeposit(ctx context.Context, t auth.Tenant, now time.Time) (string, error) {
	q, err := f.acceptedQuote(ctx, t, now)
	if err != nil {
		return "", err
	}
	at := now.UTC().Truncate(time.Microsecond)
	d := deposit.Deposit{
		ID: uuid.NewString(), PartnerID: t.PartnerID, LeadID: q.LeadID, QuoteShareLinkID: q.ShareLinkID,
		ConnectedAccount: stripeAccount, Status: deposit.Paid, AmountCents: q.DepositCents, Currency: q.Currency,
		SessionID: "cs_test_coldstart_" + strings.ReplaceAll(uuid.NewString(), "-", ""), CheckoutExpiresAt: at.Add(24 * time.Hour).Truncate(time.Second),
		PaymentIntentID: "pi_coldstart_" + strings.ReplaceAll(uuid.NewString(), "-", ""), CreatedAt: at, PaidAt: at,
	}
	token, err := linktoken.New()
	if err != nil {
		return "", err
	}
	err = f.store.PutDeposit(ctx, t, record.NewDeposit{
		Deposit: d, QuoteID: q.ID, LeadFrom: lead.Accepted, LeadTo: lead.Booked, At: at,
		Token: record.PageToken{Hash: linktoken.Hash(token), LeadID: q.LeadID, QuoteID: q.ID, IssuedAt: at, ExpiresAt: q.ExpiresAt},
	})
	if err != nil {
		return "", fmt.Errorf("paid deposit: %w", err)
	}
	return d.ID, nil
}

// quotedLeadOf returns a param func that makes, per cold start, a new lead
// of the route's partner with an open quote, and returns the lead's id:
// each acceptQuote cold start accepts a quote of its own.
func (f *fixture) quotedLeadOf(op manifest.Operation) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		t, now := auth.Tenant{PartnerID: f.partners[op], Mode: auth.Test}, time.Now().UTC()
		leadID, err := f.newLead(ctx, t, now)
		if err != nil {
			return "", err
		}
		_, err = f.quoteLead(ctx, t, leadID, now)
		return leadID, err
	}
}

// depositBodyOf returns a body func that makes, per cold start, a lead of
// the route's partner with an accepted quote, and returns the
// createDeposit body for it: each cold start creates a checkout of its
// own on stripe-mock.
func (f *fixture) depositBodyOf(op manifest.Operation) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		q, err := f.acceptedQuote(ctx, auth.Tenant{PartnerID: f.partners[op], Mode: auth.Test}, time.Now().UTC())
		if err != nil {
			return "", err
		}
		return `{"lead_id":"` + q.LeadID + `","quote_share_link_id":"` + q.ShareLinkID + `"}`, nil
	}
}

// quotePageToken adds a page token of its own to the quote page's quote,
// as createQuote's later calls do, so that no token nears its rate limit
// whatever the number of cold starts.
func (f *fixture) quotePageToken(ctx context.Context) (string, error) {
	now := time.Now().UTC()
	token, err := linktoken.New()
	if err != nil {
		return "", err
	}
	err = f.store.AddQuoteToken(ctx, f.quotes, record.PageToken{
		Hash: linktoken.Hash(token), LeadID: f.pageQuote.LeadID, QuoteID: f.pageQuote.ID, IssuedAt: now, ExpiresAt: f.pageQuote.ExpiresAt,
	})
	if err != nil {
		return "", fmt.Errorf("quote page token: %w", err)
	}
	return token, nil
}

// ignoredStripeEvent is the receiver's cold-start event: a Connect event
// of a type it does not subscribe to, of API version 2023-10-16, which it
// verifies and acknowledges (200) without touching the table.
var ignoredStripeEvent = `{"id":"evt_coldstart","object":"event","api_version":"2023-10-16","account":"` + stripeAccount +
	`","created":1795262400,"data":{"object":{"id":"cus_coldstart","object":"customer"}},"livemode":false,` +
	`"pending_webhooks":1,"request":{"id":null,"idempotency_key":null},"type":"customer.created"}`

// stripeSignature is the Stripe-Signature of body signed now with the
// fixture's webhook secret: the receiver takes signatures up to five
// minutes old, so each cold start's event is signed when it is sent.
func stripeSignature(body string) string {
	return eventsample.StripeSignature(stripeWebhookSecret, time.Now(), []byte(body))
}

// stripeEnv returns the Stripe variables of fn, as deployed it gets its
// secrets (by value here): a function that lists the API keys gets
// stripe-mock's test key and STRIPE_API_URL, the receiver its webhook
// secrets.
func (f *fixture) stripeEnv(fn manifest.Function) []string {
	var env []string
	for _, s := range fn.Secrets {
		switch s {
		case manifest.SecretStripeKeys:
			env = append(env, settings.StripeAPIKeys+`={"test":"`+stripelocal.SecretKey+`","live":""}`,
				settings.StripeAPIURL+"="+f.stripeURL)
		case manifest.SecretStripeWebhook:
			env = append(env, settings.StripeWebhookSecrets+`={"test":"`+stripeWebhookSecret+`","live":""}`)
		}
	}
	return env
}
