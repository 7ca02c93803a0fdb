// Package deposits is the beta deposits' service (issue 12): createDeposit
// (a Stripe Checkout Session on the partner's connected account for a
// lead's accepted quote), getDeposit (its status, reconciled against
// Stripe at most once a minute while pending), the quote page's own start
// of the checkout, and the receiver of Stripe's Connect webhooks. The
// rules are shared/domain/deposit's; Stripe is the Stripe and Webhooks ports
// (shared/adapter/stripepay satisfies them, shared/wire/wiring connects it);
// storage is the Store interface (shared/adapter/dynamo). docs/DEPOSITS.md
// describes it.
package deposits

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
	"github.com/moveleads/partnerapi/shared/app/quotes"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Store is the storage the service needs (shared/adapter/dynamo's Store).
type Store interface {
	GetPartner(ctx context.Context, id string) (partner.Partner, error)
	GetQuoteLead(ctx context.Context, t auth.Tenant, leadID string) (record.Lead, error)
	GetQuote(ctx context.Context, t auth.Tenant, leadID, quoteID string) (record.Quote, error)
	GetDeposit(ctx context.Context, t auth.Tenant, id string) (deposit.Deposit, error)
	PutDeposit(ctx context.Context, t auth.Tenant, d record.NewDeposit) error
	MarkReconciled(ctx context.Context, t auth.Tenant, d deposit.Deposit, now time.Time) (bool, error)
	ApplyDeposit(ctx context.Context, t auth.Tenant, ch record.DepositChange) error
	DepositByPaymentIntent(ctx context.Context, mode auth.Mode, pi string) (auth.Tenant, string, bool, error)
}

// Stripe is the Stripe API on connected accounts (stripepay.Client). Its
// refusals are deposit.ErrProviderRefused or deposit.ErrProviderNotFound,
// with a deposit.Refusal to tell why.
type Stripe interface {
	CreateCheckout(ctx context.Context, r deposit.CheckoutRequest) (deposit.Checkout, error)
	GetCheckout(ctx context.Context, account, sessionID string) (deposit.Checkout, error)
}

// Webhooks verifies Stripe's webhooks (stripepay.Webhooks); a signature
// that does not verify is deposit.ErrSignature.
type Webhooks interface {
	// CheckSignatureShape refuses, without the secret, a header that no
	// secret would verify.
	CheckSignatureShape(header string, now time.Time) error
	Parse(payload []byte, sigHeader, secret string, now time.Time) (deposit.StripeEvent, error)
}

// Deps is what a Service needs.
type Deps struct {
	Store Store
	// Stripe returns the client of mode's platform key (test or live);
	// nil for the receiver, which calls no Stripe API.
	Stripe func(ctx context.Context, mode auth.Mode) (Stripe, error)
	// Webhooks and WebhookSecret (the signing secret of mode's Connect
	// webhook endpoint) serve the receiver; nil for the API functions.
	Webhooks      Webhooks
	WebhookSecret func(ctx context.Context, mode auth.Mode) (string, error)
	// BaseURL is the API's public origin: Stripe sends the customer back
	// to the quote page under it.
	BaseURL string
	Log     *slog.Logger
	// Now is the receiver's clock (signature tolerance); time.Now if nil.
	Now func() time.Time
}

// Service runs the deposit operations.
type Service struct {
	d Deps
}

// New returns the service over d.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	d.BaseURL = strings.TrimRight(d.BaseURL, "/")
	return &Service{d: d}
}

// ProductName is the checkout's line item, as the customer reads it on
// Stripe's page and receipt.
const ProductName = "Moving date deposit"

// ReturnTokenLifetime is how long the quote page link Stripe sends the
// customer back to keeps opening.
const ReturnTokenLifetime = 30 * 24 * time.Hour

// retries bounds the re-reads after a concurrent change.
const retries = 3

// CreateView is createDeposit's answer (the spec's Deposit create
// response).
type CreateView struct {
	DepositID   string `json:"deposit_id"`
	CheckoutURL string `json:"checkout_url"`
	AmountCents int64  `json:"amount_cents"`
	Status      string `json:"status"`
}

// StatusView is getDeposit's answer (the spec's Deposit status response).
type StatusView struct {
	DepositID   string  `json:"deposit_id"`
	Status      string  `json:"status"`
	AmountCents *int64  `json:"amount_cents"`
	Currency    string  `json:"currency"`
	CheckoutURL *string `json:"checkout_url"`
	PaidAt      *string `json:"paid_at"`
	LeadID      *string `json:"lead_id"`
	CreatedAt   *string `json:"created_at"`
}

// createRequest is the spec's Deposit create request.
type createRequest struct {
	LeadID           string `json:"lead_id"`
	QuoteShareLinkID string `json:"quote_share_link_id"`
	AmountCents      *int64 `json:"amount_cents"`
}

// parseCreate reads createDeposit's body: lead_id and quote_share_link_id
// (UUIDs, required), amount_cents (optional, deposit.Amount's range), no
// other property. Every failing field is named at once.
func parseCreate(body []byte) (createRequest, error) {
	fields, err := lead.DecodeObject(body)
	if err != nil {
		return createRequest{}, err
	}
	var r createRequest
	fe := errcode.FieldErrors{}
	uuidField := func(name string, dst *string) {
		raw, ok := fields[name]
		if !ok || string(raw) == "null" {
			fe.Add(name, "is required")
			return
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			fe.Add(name, "must be a string (a UUID)")
			return
		}
		u, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			fe.Add(name, "must be a UUID")
			return
		}
		*dst = u.String()
	}
	for name, raw := range fields {
		switch name {
		case "lead_id", "quote_share_link_id":
		case "amount_cents":
			if string(raw) == "null" {
				continue
			}
			var n int64
			if err := json.Unmarshal(raw, &n); err != nil || strings.ContainsAny(string(raw), ".eE") {
				fe.Add(name, "must be an integer number of cents")
				continue
			}
			if err := deposit.ValidAmount(n); err != nil {
				fe.Add(name, fmt.Sprintf("must be from %d to %d", deposit.MinAmountCents, deposit.MaxAmountCents))
				continue
			}
			r.AmountCents = &n
		default:
			fe.Add(name, "is not a field of this request")
		}
	}
	uuidField("lead_id", &r.LeadID)
	uuidField("quote_share_link_id", &r.QuoteShareLinkID)
	return r, fe.Err()
}

// CreateDeposit is the createDeposit endpoint (beta).
func (s *Service) CreateDeposit() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.CreateDeposit, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		req, err := parseCreate(c.Body)
		if err != nil {
			return pipeline.Work{}, err
		}
		ptn, err := c.Partner(ctx)
		if err != nil {
			return pipeline.Work{}, err
		}
		t, now := c.Tenant(), c.Now
		return pipeline.Work{Run: func(ctx context.Context, id string) (any, error) {
			return s.Start(ctx, t, ptn, Target{LeadID: req.LeadID, ShareLinkID: req.QuoteShareLinkID, AmountCents: req.AmountCents}, id, now)
		}}, nil
	}}
}

// Target is the deposit a Start asks for: the lead and its quote (by the
// share link id the partner has, or by the quote id the quote page has),
// and the amount (nil: the quote's deposit, else the partner's default).
type Target struct {
	LeadID      string
	ShareLinkID string
	QuoteID     string
	AmountCents *int64
}

// Start creates deposit id for tenant t's target at now, or returns the
// lead's open deposit when it has one for the same amount (a second call
// never makes a second checkout). See docs/DEPOSITS.md for the refusals.
func (s *Service) Start(ctx context.Context, t auth.Tenant, ptn partner.Partner, tg Target, id string, now time.Time) (CreateView, error) {
	if missing := ptn.Deposits.Missing(); len(missing) > 0 {
		return CreateView{}, errcode.New(errcode.PartnerNotEligible,
			"Your account cannot take deposits yet: the operator must set %s.", strings.Join(missing, ", ")).
			WithDetail("missing", missing)
	}
	for attempt := 1; ; attempt++ {
		view, err := s.start(ctx, t, ptn, tg, id, now)
		if errors.Is(err, record.ErrChanged) && attempt < retries {
			continue
		}
		return view, err
	}
}

func (s *Service) start(ctx context.Context, t auth.Tenant, ptn partner.Partner, tg Target, id string, now time.Time) (CreateView, error) {
	ql, err := s.acceptedQuote(ctx, t, tg, now)
	if err != nil {
		return CreateView{}, err
	}
	q := ql.Quote
	qr, err := s.d.Store.GetQuote(ctx, t, tg.LeadID, q.QuoteID)
	if err != nil {
		return CreateView{}, err
	}
	def := qr.DepositCents
	if def == 0 {
		def = ptn.Deposits.DefaultCents
	}
	amount, err := deposit.Amount(tg.AmountCents, def)
	if err != nil {
		return CreateView{}, err
	}
	prev := ""
	if ql.Deposit != nil {
		prev = ql.Deposit.DepositID
		if view, ok, err := s.reuseDeposit(ctx, t, ql, id, amount, now); ok || err != nil {
			return view, err
		}
	}
	d, tok, err := s.openCheckout(ctx, t, ptn, tg, q, qr, id, amount, now)
	if err != nil {
		return CreateView{}, err
	}
	err = s.d.Store.PutDeposit(ctx, t, record.NewDeposit{
		Deposit: d, QuoteID: q.QuoteID, Token: tok, PrevDepositID: prev,
		LeadFrom: ql.Status, LeadTo: lead.DepositPending, At: now,
	})
	if err != nil {
		return CreateView{}, err
	}
	return createView(d), nil
}

// acceptedQuote loads tg's lead with its current quote, refusing a target
// that names another quote (NotFound), a closed lead and a quote not yet
// accepted.
func (s *Service) acceptedQuote(ctx context.Context, t auth.Tenant, tg Target, now time.Time) (record.Lead, error) {
	ql, err := s.d.Store.GetQuoteLead(ctx, t, tg.LeadID)
	if err != nil {
		return record.Lead{}, err
	}
	q := ql.Quote
	if q == nil || (tg.ShareLinkID != "" && q.ShareLinkID != tg.ShareLinkID) || (tg.QuoteID != "" && q.QuoteID != tg.QuoteID) {
		return record.Lead{}, errcode.New(errcode.NotFound, "No current quote with that quote_share_link_id exists on this lead.")
	}
	switch ql.Status {
	case lead.Lost, lead.Booked, lead.Completed:
		return record.Lead{}, errcode.New(errcode.LeadClosed, "The lead is %s; it takes no deposit.", ql.Status).
			WithDetail("lead_status", string(ql.Status))
	}
	if q.Stage != quote.StageAccepted && q.Stage != quote.StageSigned {
		return record.Lead{}, errcode.New(errcode.QuoteNotAccepted,
			"The quote is %s; the customer accepts it (acceptQuote or the quote page) before a deposit.", q.Summary(now).Stage).
			WithDetail("stage", string(q.Summary(now).Stage))
	}
	return ql, nil
}

// reuseDeposit decides on the lead's previous deposit: ok with its view
// when it answers this Start (an earlier attempt of the same
// Idempotency-Key, or an open checkout for the same amount), an error
// when it blocks a new one (in progress, or paid), neither when it failed
// and a new deposit may replace it.
func (s *Service) reuseDeposit(ctx context.Context, t auth.Tenant, ql record.Lead, id string, amount int64, now time.Time) (view CreateView, ok bool, err error) {
	d, err := s.d.Store.GetDeposit(ctx, t, ql.Deposit.DepositID)
	if err != nil {
		return CreateView{}, false, err
	}
	if d.ID == id {
		return createView(d), true, nil // an earlier attempt of this Idempotency-Key
	}
	if d.Status == deposit.CheckoutOpen && !d.Payable(now) {
		// Its checkout has expired but Stripe's event has not come
		// yet: ask Stripe now, so the new deposit starts from the truth.
		if d, err = s.reconcile(ctx, t, d, now, true); err != nil {
			return CreateView{}, false, err
		}
	}
	switch {
	case d.Status == deposit.CheckoutOpen && d.Payable(now) && d.AmountCents == amount:
		return createView(d), true, nil
	case d.Status == deposit.CheckoutOpen || d.Status == deposit.Pending:
		return CreateView{}, false, errcode.New(errcode.DepositInProgress,
			"The lead's deposit %s is %s; a new one is made only once it has failed.", d.ID, d.Status.PublicStatus()).
			WithDetail("deposit_id", d.ID).WithDetail("status", string(d.Status.PublicStatus()))
	case d.Status != deposit.Failed:
		return CreateView{}, false, errcode.New(errcode.LeadClosed, "The lead's deposit is already %s.", d.Status.PublicStatus()).
			WithDetail("lead_status", string(ql.Status))
	}
	return CreateView{}, false, nil
}

// openCheckout creates deposit id's Stripe Checkout Session, whose return
// link is a new quote page token, and returns the deposit to store with
// that token's record.
func (s *Service) openCheckout(ctx context.Context, t auth.Tenant, ptn partner.Partner, tg Target, q *record.QuoteRef, qr record.Quote, id string, amount int64, now time.Time) (deposit.Deposit, record.PageToken, error) {
	client, err := s.d.Stripe(ctx, t.Mode)
	if err != nil {
		return deposit.Deposit{}, record.PageToken{}, err
	}
	expires, err := deposit.CheckoutExpiresAt(now, ptn.Deposits.CheckoutTTL)
	if err != nil {
		return deposit.Deposit{}, record.PageToken{}, fmt.Errorf("partner %s: checkout lifetime: %w", ptn.ID, err)
	}
	token, tok, err := quotes.NewPageToken(tg.LeadID, q.QuoteID, now, now.Add(ReturnTokenLifetime))
	if err != nil {
		return deposit.Deposit{}, record.PageToken{}, err
	}
	page := quotes.PageURL(s.d.BaseURL, token)
	co, err := client.CreateCheckout(ctx, deposit.CheckoutRequest{
		ConnectedAccount: ptn.Deposits.StripeAccount,
		DepositID:        id, LeadID: tg.LeadID, PartnerID: t.PartnerID,
		AmountCents: amount, Currency: qr.Currency,
		ProductName: ProductName, Description: qr.CompanyName + " holds your moving date with this deposit.",
		ExpiresAt:  expires,
		SuccessURL: page + "?checkout=done", CancelURL: page,
		// One key per deposit and return link: a retry inside the client
		// reuses it; a later attempt (new link) is a new session, and
		// the one before, which nobody holds the link to, expires.
		IdempotencyKey: "deposit-" + id + "-" + tok.Hash[:16],
	})
	if err != nil {
		return deposit.Deposit{}, record.PageToken{}, stripeErr(err)
	}
	return deposit.Deposit{
		ID: id, PartnerID: t.PartnerID, LeadID: tg.LeadID, QuoteShareLinkID: q.ShareLinkID,
		ConnectedAccount: ptn.Deposits.StripeAccount, Status: deposit.CheckoutOpen,
		AmountCents: amount, Currency: qr.Currency, SessionID: co.ID, CheckoutURL: co.URL,
		// The PaymentIntent is learnt from Stripe's checkout events (or a
		// reconciliation), whose write also indexes it for disputes;
		// Stripe creates it only when the customer pays.
		CheckoutExpiresAt: expires.UTC(), CreatedAt: now.UTC().Truncate(time.Microsecond),
	}, tok, nil
}

func createView(d deposit.Deposit) CreateView {
	return CreateView{DepositID: d.ID, CheckoutURL: d.CheckoutURL, AmountCents: d.AmountCents, Status: string(deposit.CheckoutOpen)}
}

// stripeErr translates a failed Checkout Session create: Stripe's
// refusal (an account not connected, a currency it does not take) is the
// partner's to fix, so it answers 409 with Stripe's message; anything
// else is upstream_failed.
func stripeErr(err error) error {
	var r deposit.Refusal
	if errors.Is(err, deposit.ErrProviderRefused) || errors.Is(err, deposit.ErrProviderNotFound) {
		e := errcode.New(errcode.PaymentRefused, "Stripe refused the checkout for your connected account; nothing was created.")
		if errors.As(err, &r) {
			e.Message = "Stripe refused the checkout for your connected account: " + r.RefusalMessage()
			e = e.WithDetail("stripe_code", r.RefusalCode())
		}
		e.Cause = err
		return e
	}
	return errcode.Upstream("create the Stripe checkout", err)
}

// GetDeposit is the getDeposit endpoint (beta). A partner whose beta was
// turned off still reads, and reconciles, the deposits it has: payments
// already made are kept; any other id answers 403 beta_not_enabled.
func (s *Service) GetDeposit() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.GetDeposit, BetaOff: s.existingDeposit, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		t, now, id := c.Tenant(), c.Now, c.ID
		return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
			d, err := s.Status(ctx, t, id, now)
			if err != nil {
				return nil, err
			}
			return statusView(d, now), nil
		}}, nil
	}}
}

// existingDeposit lets getDeposit run without the beta when the path
// names one of the caller's deposits.
func (s *Service) existingDeposit(ctx context.Context, c *pipeline.Call, _ partner.Partner) error {
	off := pipeline.BetaNotEnabled(c.Route.Beta)
	u, err := uuid.Parse(c.PathParam)
	if err != nil || len(c.PathParam) != 36 {
		return off
	}
	_, err = s.d.Store.GetDeposit(ctx, c.Tenant(), u.String())
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return off
	}
	return err
}

// Status returns tenant t's deposit id at now, reconciled against Stripe
// first when deposit.NeedsReconcile says so.
func (s *Service) Status(ctx context.Context, t auth.Tenant, id string, now time.Time) (deposit.Deposit, error) {
	d, err := s.d.Store.GetDeposit(ctx, t, id)
	if err != nil || !deposit.NeedsReconcile(d, now) {
		return d, err
	}
	return s.reconcile(ctx, t, d, now, false)
}

// reconcile asks Stripe for d's Checkout Session and applies what its
// state amounts to, once per deposit.ReconcileInterval across readers
// (force skips that bound, for createDeposit's expired checkout). A
// failure to reach Stripe leaves d as stored: a read must not fail
// because Stripe is slow, and the webhook or the next read catches up.
func (s *Service) reconcile(ctx context.Context, t auth.Tenant, d deposit.Deposit, now time.Time, force bool) (deposit.Deposit, error) {
	if !force {
		won, err := s.d.Store.MarkReconciled(ctx, t, d, now)
		if err != nil || !won {
			return d, err
		}
		d.ReconciledAt = now
	}
	client, err := s.d.Stripe(ctx, t.Mode)
	if err != nil {
		return deposit.Deposit{}, err
	}
	co, err := client.GetCheckout(ctx, d.ConnectedAccount, d.SessionID)
	if err != nil {
		s.d.Log.WarnContext(ctx, "deposit reconciliation: Stripe unavailable; answering the stored status",
			"deposit_id", d.ID, "error", err.Error())
		return d, nil
	}
	e := co.Settles
	if e == "" {
		return d, nil
	}
	after, err := s.apply(ctx, t, d, e, co.PaymentIntentID, "", now)
	if errors.Is(err, record.ErrChanged) {
		return s.d.Store.GetDeposit(ctx, t, d.ID) // a webhook moved it meanwhile
	}
	return after, err
}

// apply applies event e (learnt from Stripe at now; eventID is Stripe's
// event id, "" from a reconciliation) to d and writes the change with what
// it owes: the lead's booking and the partner's webhooks.
func (s *Service) apply(ctx context.Context, t auth.Tenant, d deposit.Deposit, e deposit.Event, pi, eventID string, now time.Time) (deposit.Deposit, error) {
	after := d
	if after.PaymentIntentID == "" && pi != "" {
		after.PaymentIntentID = pi
	}
	tr, err := after.Apply(e, now)
	if err != nil {
		return deposit.Deposit{}, err
	}
	leadStatus := ""
	if tr.Books() {
		leadStatus = string(lead.Booked)
	}
	events, err := webhook.DepositEvents(string(t.Mode), after, tr, leadStatus, now)
	if err != nil {
		return deposit.Deposit{}, err
	}
	if !tr.Changed() && after.PaymentIntentID == d.PaymentIntentID && eventID == "" {
		return d, nil
	}
	err = s.d.Store.ApplyDeposit(ctx, t, record.DepositChange{
		Before: d, After: after, Transition: tr, StripeEventID: eventID, Events: events, At: now,
	})
	if err != nil {
		return deposit.Deposit{}, err
	}
	return after, nil
}

func statusView(d deposit.Deposit, now time.Time) StatusView {
	v := StatusView{
		DepositID: d.ID, Status: string(d.Status.PublicStatus()), AmountCents: &d.AmountCents,
		Currency: d.Currency, LeadID: &d.LeadID,
	}
	created := lead.FormatTime(d.CreatedAt)
	v.CreatedAt = &created
	if d.Payable(now) {
		v.CheckoutURL = &d.CheckoutURL
	}
	if !d.PaidAt.IsZero() {
		p := lead.FormatTime(d.PaidAt)
		v.PaidAt = &p
	}
	return v
}

// StartForPage starts (or returns) the deposit the quote page's customer
// pays: the quote's own deposit_cents, which must be set. It answers the
// checkout URL (quotes.Checkout).
func (s *Service) StartForPage(ctx context.Context, t auth.Tenant, ptn partner.Partner, leadID, quoteID string, now time.Time) (string, error) {
	qr, err := s.d.Store.GetQuote(ctx, t, leadID, quoteID)
	if err != nil {
		return "", err
	}
	if qr.DepositCents == 0 {
		return "", errcode.New(errcode.NoDepositRequired, "This quote asks for no deposit.")
	}
	amount := qr.DepositCents
	v, err := s.Start(ctx, t, ptn, Target{LeadID: leadID, QuoteID: quoteID, AmountCents: &amount}, uuid.NewString(), now)
	if err != nil {
		return "", err
	}
	return v.CheckoutURL, nil
}
