// Package quotes is the beta quotes' service (issue 12): createQuote (a
// partner makes a quote for a lead and gets the hosted quote page's link),
// acceptQuote (the partner records the customer's acceptance, or
// electronic signature), and the hosted quote page the customer opens
// (shared/app/quotes/quotepage), with its own accept call and its call that starts
// the deposit's checkout (shared/app/deposits does that). The rules are
// shared/domain/quote's; storage is the Store interface (shared/adapter/dynamo),
// signature images the Signatures interface (shared/adapter/s3store, adapted in
// shared/wire/wiring). docs/QUOTES.md describes it for partners.
package quotes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Store is the storage the service needs (shared/adapter/dynamo's Store). Its
// errors carry errcodes; see each method's documentation there.
type Store interface {
	GetQuoteLead(ctx context.Context, t auth.Tenant, leadID string) (record.Lead, error)
	GetLeadDetail(ctx context.Context, t auth.Tenant, leadID string) (lead.Lead, record.LeadSurvey, error)
	GetQuote(ctx context.Context, t auth.Tenant, leadID, quoteID string) (record.Quote, error)
	PutQuote(ctx context.Context, t auth.Tenant, q record.NewQuote) error
	AddQuoteToken(ctx context.Context, t auth.Tenant, tok record.PageToken) error
	AdmitQuoteToken(ctx context.Context, tokenHash string, now time.Time, limit int) (record.QuotePageGrant, auth.Usage, error)
	AcceptQuote(ctx context.Context, t auth.Tenant, a record.QuoteAccepted) error
	GetDeposit(ctx context.Context, t auth.Tenant, id string) (deposit.Deposit, error)
}

// Signatures stores signature images (the clip bucket's signatures/
// prefix). Put replaces an object with the same key, which only ever
// holds the same bytes: the key ends in the image's SHA-256. Get returns
// the image at key when it is at most max bytes long, and fails otherwise
// (missing, larger, unreachable).
type Signatures interface {
	PutSignature(ctx context.Context, key string, png []byte) error
	GetSignature(ctx context.Context, key string, max int64) ([]byte, error)
}

// SignatureReadLimit bounds the signature image the quote page reads back
// for the signed copy: acceptQuote stores at most 40 KiB
// (quote.CheckSignaturePNG), so a larger object is not one it stored.
const SignatureReadLimit = 512 << 10

// Deps is what a Service needs. createQuote leaves Signatures nil (it
// stores none).
type Deps struct {
	Store      Store
	Signatures Signatures
	// BaseURL is the API's public origin (settings.PublicBaseURL), from
	// which quote page URLs are made.
	BaseURL string
	Log     *slog.Logger
}

// Service runs the quote operations.
type Service struct {
	store   Store
	sigs    Signatures
	baseURL string
	log     *slog.Logger
}

// New returns the service over d.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: d.Store, sigs: d.Signatures, baseURL: strings.TrimRight(d.BaseURL, "/"), log: d.Log}
}

// retries bounds how often an operation reads again after a concurrent
// write changed the lead or the quote between its read and its write.
const retries = 3

func changed(err error) bool { return errors.Is(err, record.ErrChanged) }

// QuoteView is createQuote's answer.
type QuoteView struct {
	QuoteID          string `json:"quote_id"`
	QuoteShareLinkID string `json:"quote_share_link_id"`
	// QuoteURL is the hosted quote page to send the customer. Each call
	// answers a fresh link (only link hashes are stored); earlier links
	// keep working.
	QuoteURL     string `json:"quote_url"`
	LeadID       string `json:"lead_id"`
	EstimateType string `json:"estimate_type"`
	PriceCents   int64  `json:"price_cents"`
	DepositCents int64  `json:"deposit_cents"`
	Currency     string `json:"currency"`
	ExpiresAt    string `json:"expires_at"`
	Stage        string `json:"stage"`
	LeadStatus   string `json:"lead_status"`
}

// CreateQuote is the createQuote endpoint (beta): a new quote for the
// lead, which supersedes an open one and moves the lead to quoted (see
// quote.LeadStatusAfterQuote for the 409s). Under an Idempotency-Key the
// stored answer holds no link: a replay answers the same quote with a
// fresh link.
func (s *Service) CreateQuote() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.CreateQuote, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		leadID := c.ID
		in, err := quote.ParseCreate(c.Body)
		if err != nil {
			return pipeline.Work{}, err
		}
		partner, err := c.Partner(ctx)
		if err != nil {
			return pipeline.Work{}, err
		}
		cur, err := deposit.NormalizeCurrency(partner.RateCard.Currency)
		if err != nil {
			return pipeline.Work{}, fmt.Errorf("partner %s: rate card currency: %w", partner.ID, err)
		}
		iss := quote.Issuer{CompanyName: partner.Name, Currency: cur}
		t, now := c.Tenant(), c.Now
		return pipeline.Work{
			Run: func(ctx context.Context, id string) (any, error) {
				return s.Create(ctx, t, leadID, id, in, iss, now)
			},
			Secret: &pipeline.SecretResponse{
				Strip: func(view any) any { v := view.(QuoteView); v.QuoteURL = ""; return v },
				Restore: func(ctx context.Context, stored []byte) (any, error) {
					var v QuoteView
					if err := json.Unmarshal(stored, &v); err != nil {
						return nil, fmt.Errorf("read stored quote: %w", err)
					}
					return s.relink(ctx, t, v, now)
				},
			},
		}, nil
	}}
}

// Create makes quote id for tenant t's lead leadID from in, for the move
// the lead and its survey's inventory describe now (quote.MoveOf).
func (s *Service) Create(ctx context.Context, t auth.Tenant, leadID, id string, in quote.CreateInput, iss quote.Issuer, now time.Time) (QuoteView, error) {
	for attempt := 1; ; attempt++ {
		l, ls, err := s.store.GetLeadDetail(ctx, t, leadID)
		if err != nil {
			return QuoteView{}, err
		}
		ql := record.Lead{Lead: l, Quote: ls.Quote, Deposit: ls.Deposit}
		if ql.Quote != nil && ql.Quote.QuoteID == id {
			// An earlier attempt under the same Idempotency-Key wrote it
			// and its answer was lost: answer it, with a fresh link.
			qr, err := s.store.GetQuote(ctx, t, leadID, id)
			if err != nil {
				return QuoteView{}, err
			}
			return s.relink(ctx, t, viewOf(qr.Quote, ql.Status, ""), now)
		}
		to, err := quote.LeadStatusAfterQuote(ql.Status)
		if err != nil {
			return QuoteView{}, err
		}
		q := quote.Build(id, leadID, uuid.NewString(), in, quote.MoveOf(l.Details, ls.Inventory, in), iss, now)
		token, tok, err := NewPageToken(leadID, id, now, q.ExpiresAt.Add(TokenAfterExpiry))
		if err != nil {
			return QuoteView{}, err
		}
		nq := record.NewQuote{LeadID: leadID, Quote: q, Token: tok, LeadFrom: ql.Status, LeadTo: to, At: now}
		if ql.Quote != nil {
			nq.PrevQuoteID = ql.Quote.QuoteID
			if ql.Quote.Stage == quote.StageOpen {
				nq.Superseded = ql.Quote.QuoteID
			}
		}
		err = s.store.PutQuote(ctx, t, nq)
		if changed(err) && attempt < retries {
			continue
		}
		if err != nil {
			return QuoteView{}, err
		}
		return viewOf(q, to, PageURL(s.baseURL, token)), nil
	}
}

func viewOf(q quote.Quote, leadStatus lead.Status, url string) QuoteView {
	return QuoteView{
		QuoteID: q.ID, QuoteShareLinkID: q.ShareLinkID, QuoteURL: url, LeadID: q.LeadID,
		EstimateType: string(q.EstimateType), PriceCents: q.PriceCents, DepositCents: q.DepositCents,
		Currency: q.Currency, ExpiresAt: lead.FormatTime(q.ExpiresAt), Stage: string(q.Stage), LeadStatus: string(leadStatus),
	}
}

// relink answers a replayed createQuote: the stored quote, with a fresh
// link to its page.
func (s *Service) relink(ctx context.Context, t auth.Tenant, v QuoteView, now time.Time) (QuoteView, error) {
	exp, err := time.Parse(time.RFC3339Nano, v.ExpiresAt)
	if err != nil {
		return QuoteView{}, fmt.Errorf("stored quote %s: expires_at: %w", v.QuoteID, err)
	}
	token, tok, err := NewPageToken(v.LeadID, v.QuoteID, now, exp.Add(TokenAfterExpiry))
	if err != nil {
		return QuoteView{}, err
	}
	if err := s.store.AddQuoteToken(ctx, t, tok); err != nil {
		return QuoteView{}, err
	}
	v.QuoteURL = PageURL(s.baseURL, token)
	return v, nil
}

// AcceptView is acceptQuote's answer (the spec's Accept response).
type AcceptView struct {
	Status          string `json:"status"`
	DepositRequired bool   `json:"deposit_required"`
}

// AcceptQuote is the acceptQuote endpoint (beta). The evidence records the
// caller's address and user agent: the partner's server, when it calls;
// the customer's browser, when the quote page does (docs/QUOTES.md).
func (s *Service) AcceptQuote() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.AcceptQuote, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		leadID := c.ID
		req, err := quote.ParseAccept(c.Body, quote.CheckSignaturePNG)
		if err != nil {
			return pipeline.Work{}, err
		}
		t, now, from := c.Tenant(), c.Now, Caller{IP: c.SourceIP, UserAgent: c.UserAgent}
		return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
			return s.Accept(ctx, t, leadID, "", req, from, now)
		}}, nil
	}}
}

// Caller is where an acceptance came from, as the edge saw it.
type Caller struct{ IP, UserAgent string }

// SignatureKeyPrefix is where tenant t's quote quoteID keeps signature
// images: signatures/<partner>/<mode>/<quote_id>/.
func SignatureKeyPrefix(t auth.Tenant, quoteID string) string {
	return manifest.SignaturePrefix + t.PartnerID + "/" + string(t.Mode) + "/" + quoteID + "/"
}

// Accept records req as the acceptance of tenant t's lead leadID's
// current quote (quote.Decide's rules) at now. quoteID, when set, is the
// quote the customer is looking at (the quote page's): another current
// quote answers 409 quote_expired, since the page's quote was replaced.
func (s *Service) Accept(ctx context.Context, t auth.Tenant, leadID, quoteID string, req quote.AcceptRequest, from Caller, now time.Time) (AcceptView, error) {
	for attempt := 1; ; attempt++ {
		ql, err := s.store.GetQuoteLead(ctx, t, leadID)
		if err != nil {
			return AcceptView{}, err
		}
		var q *quote.Quote
		var prior *quote.Acceptance
		in := quote.EvidenceInput{IP: from.IP, UserAgent: from.UserAgent}
		if ql.Quote != nil {
			if quoteID != "" && ql.Quote.QuoteID != quoteID {
				return AcceptView{}, errcode.New(errcode.QuoteExpired,
					"A newer quote replaced this one; ask the mover for the new link.").WithDetail("stage", string(quote.StageSuperseded))
			}
			qr, err := s.store.GetQuote(ctx, t, leadID, ql.Quote.QuoteID)
			if err != nil {
				return AcceptView{}, err
			}
			q, prior = &qr.Quote, qr.Acceptance
			in.SignatureKeyPrefix = SignatureKeyPrefix(t, qr.ID)
		}
		dec, err := quote.Decide(q, prior, req, ql.Status, now, in)
		if err != nil {
			return AcceptView{}, err
		}
		view := AcceptView{Status: string(dec.Acceptance.Mode), DepositRequired: dec.Quote.DepositRequired()}
		if !dec.Changed {
			return view, nil
		}
		if dec.Signature != nil {
			if s.sigs == nil {
				return AcceptView{}, errors.New("quotes: a binding acceptance with no signature store")
			}
			if err := s.sigs.PutSignature(ctx, dec.Acceptance.Evidence.SignatureKey, dec.Signature); err != nil {
				return AcceptView{}, errcode.Upstream("store the signature image", err)
			}
		}
		err = s.store.AcceptQuote(ctx, t, record.QuoteAccepted{
			Quote: dec.Quote, Acceptance: dec.Acceptance, LeadFrom: ql.Status, LeadTo: dec.LeadStatus, At: now,
		})
		if changed(err) && attempt < retries {
			continue
		}
		if err != nil {
			return AcceptView{}, err
		}
		return view, nil
	}
}
