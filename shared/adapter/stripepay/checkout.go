package stripepay

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	stripe "github.com/stripe/stripe-go/v76"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

// Metadata keys set on each Checkout Session and its PaymentIntent (whose
// metadata Stripe copies to the charge), so every event names the deposit.
const (
	MetaDepositID = "deposit_id"
	MetaLeadID    = "lead_id"
	MetaPartnerID = "partner_id"
)

// maxIdempotencyKey is the longest idempotency key Stripe takes.
const maxIdempotencyKey = 255

// CheckoutRequest is one deposit's Checkout Session.
type CheckoutRequest struct {
	// ConnectedAccount is the partner's Stripe account (acct_…): the
	// session is a direct charge on it, made through the Stripe-Account
	// header, with no application fee (the partner is the merchant of
	// record; the platform fee is 0%).
	ConnectedAccount string
	// DepositID, LeadID and PartnerID go into the metadata of the session
	// and its PaymentIntent; DepositID is also client_reference_id.
	DepositID, LeadID, PartnerID string
	// AmountCents and Currency price the one line item (see
	// deposit.Amount and deposit.NormalizeCurrency).
	AmountCents int64
	Currency    string
	// ProductName is the line item's name on the checkout page and the
	// receipt ("Moving deposit"); Description, optional, is shown under it.
	ProductName string
	Description string
	// ExpiresAt is when Stripe expires the session (see
	// deposit.CheckoutExpiresAt).
	ExpiresAt time.Time
	// SuccessURL (required) and CancelURL (optional) are where the
	// checkout page sends the customer.
	SuccessURL, CancelURL string
	// IdempotencyKey is Stripe's Idempotency-Key for the create: a retry
	// with the same key returns the first session, provided every other
	// field is the same (ExpiresAt included); with a different field
	// Stripe refuses it (ErrRefused).
	IdempotencyKey string
}

// validate reports the first field Stripe would refuse or that would make
// the session wrong.
func (r CheckoutRequest) validate() error {
	switch {
	case !strings.HasPrefix(r.ConnectedAccount, "acct_") || len(r.ConnectedAccount) == len("acct_"):
		return fmt.Errorf("connected account %q: want acct_…", r.ConnectedAccount)
	case r.DepositID == "" || r.LeadID == "" || r.PartnerID == "":
		return errors.New("deposit, lead and partner ids are required")
	case r.ProductName == "":
		return errors.New("product name is required")
	case r.ExpiresAt.IsZero():
		return errors.New("expiry is required")
	case r.IdempotencyKey == "" || len(r.IdempotencyKey) > maxIdempotencyKey:
		return fmt.Errorf("idempotency key: want 1 to %d characters", maxIdempotencyKey)
	}
	if err := deposit.ValidAmount(r.AmountCents); err != nil {
		return err
	}
	if c, err := deposit.NormalizeCurrency(r.Currency); err != nil || c != r.Currency {
		return fmt.Errorf("currency %q: want a lowercase code (deposit.NormalizeCurrency)", r.Currency)
	}
	if !absoluteURL(r.SuccessURL) {
		return fmt.Errorf("success URL %q: want an absolute http(s) URL", r.SuccessURL)
	}
	if r.CancelURL != "" && !absoluteURL(r.CancelURL) {
		return fmt.Errorf("cancel URL %q: want an absolute http(s) URL", r.CancelURL)
	}
	return nil
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// Checkout is a Checkout Session as Stripe reports it.
type Checkout struct {
	ID string
	// URL is the hosted checkout page ("" once the session is complete or
	// expired).
	URL       string
	ExpiresAt time.Time
	// Status is open, complete or expired.
	Status string
	// PaymentStatus is paid, unpaid or no_payment_required.
	PaymentStatus string
	// PaymentIntentID is the session's PaymentIntent (pi_…), "" until it
	// has one; PaymentIntentStatus is that PaymentIntent's status, filled
	// by GetCheckout only.
	PaymentIntentID     string
	PaymentIntentStatus string
	// DepositID is the session's deposit_id metadata.
	DepositID string
}

// Outcome returns the deposit event the session's state amounts to, for
// reconciliation (deposit.NeedsReconcile): expired → expired; complete and
// paid → paid; complete with its PaymentIntent back at
// requires_payment_method or canceled (an asynchronous payment that failed)
// → async_failed; otherwise complete → unpaid. An open session (or a state
// this package does not know) amounts to nothing: ok is false.
func (c Checkout) Outcome() (e deposit.Event, ok bool) {
	switch stripe.CheckoutSessionStatus(c.Status) {
	case stripe.CheckoutSessionStatusExpired:
		return deposit.EventExpired, true
	case stripe.CheckoutSessionStatusComplete:
		if stripe.CheckoutSessionPaymentStatus(c.PaymentStatus) == stripe.CheckoutSessionPaymentStatusPaid {
			return deposit.EventPaid, true
		}
		switch stripe.PaymentIntentStatus(c.PaymentIntentStatus) {
		case stripe.PaymentIntentStatusRequiresPaymentMethod, stripe.PaymentIntentStatusCanceled:
			return deposit.EventAsyncFailed, true
		}
		return deposit.EventUnpaid, true
	}
	return "", false
}

// checkoutOf returns the Checkout s describes; its PaymentIntent's
// status is there only when it was expanded.
func checkoutOf(s *stripe.CheckoutSession) Checkout {
	c := Checkout{
		ID:            s.ID,
		URL:           s.URL,
		Status:        string(s.Status),
		PaymentStatus: string(s.PaymentStatus),
		DepositID:     s.Metadata[MetaDepositID],
	}
	if s.PaymentIntent != nil {
		c.PaymentIntentID, c.PaymentIntentStatus = s.PaymentIntent.ID, string(s.PaymentIntent.Status)
	}
	if s.ExpiresAt != 0 {
		c.ExpiresAt = time.Unix(s.ExpiresAt, 0).UTC()
	}
	return c
}

// CreateCheckout creates r's Checkout Session on r.ConnectedAccount: mode
// payment, one line item of r.AmountCents in r.Currency, no application
// fee, the deposit's metadata on the session and its PaymentIntent, and
// r.ExpiresAt, with Stripe's idempotency key r.IdempotencyKey (the same on
// each of stripe-go's retries). It fails without calling Stripe for an
// invalid request; after calling, with ErrRefused or ErrNotFound for
// Stripe's refusals, or with the network's or Stripe's error (*APIError)
// once the retries are spent. ctx bounds each attempt; stripe-go's short
// waits between retries (0.5 s, then 1 s) do not watch it.
func (c *Client) CreateCheckout(ctx context.Context, r CheckoutRequest) (Checkout, error) {
	if err := r.validate(); err != nil {
		return Checkout{}, fmt.Errorf("create checkout for deposit %s: %w", r.DepositID, err)
	}
	meta := map[string]string{MetaDepositID: r.DepositID, MetaLeadID: r.LeadID, MetaPartnerID: r.PartnerID}
	product := &stripe.CheckoutSessionLineItemPriceDataProductDataParams{Name: stripe.String(r.ProductName)}
	if r.Description != "" {
		product.Description = stripe.String(r.Description)
	}
	params := &stripe.CheckoutSessionParams{
		Params:            stripe.Params{Context: ctx},
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		ClientReferenceID: stripe.String(r.DepositID),
		ExpiresAt:         stripe.Int64(r.ExpiresAt.Unix()),
		SuccessURL:        stripe.String(r.SuccessURL),
		LineItems: []*stripe.CheckoutSessionLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionLineItemPriceDataParams{
				Currency:    stripe.String(r.Currency),
				UnitAmount:  stripe.Int64(r.AmountCents),
				ProductData: product,
			},
		}},
		Metadata:          meta,
		PaymentIntentData: &stripe.CheckoutSessionPaymentIntentDataParams{Metadata: meta},
	}
	if r.CancelURL != "" {
		params.CancelURL = stripe.String(r.CancelURL)
	}
	params.SetStripeAccount(r.ConnectedAccount)
	params.SetIdempotencyKey(r.IdempotencyKey)
	s, err := c.sessions.New(params)
	if err != nil {
		return Checkout{}, fmt.Errorf("create checkout for deposit %s on %s: %w", r.DepositID, r.ConnectedAccount, translate(err))
	}
	return checkoutOf(s), nil
}

// GetCheckout reads Checkout Session sessionID on connected account
// account, with its PaymentIntent's status, for reconciliation. It fails
// with ErrNotFound when the account has no such session, ErrRefused for
// Stripe's other refusals, or the network's or Stripe's error once
// the retries are spent.
func (c *Client) GetCheckout(ctx context.Context, account, sessionID string) (Checkout, error) {
	if sessionID == "" || !strings.HasPrefix(account, "acct_") {
		return Checkout{}, fmt.Errorf("get checkout %q on %q: want a session id and an acct_… account", sessionID, account)
	}
	params := &stripe.CheckoutSessionParams{Params: stripe.Params{Context: ctx}}
	params.SetStripeAccount(account)
	params.AddExpand("payment_intent")
	s, err := c.sessions.Get(sessionID, params)
	if err != nil {
		return Checkout{}, fmt.Errorf("get checkout %s on %s: %w", sessionID, account, translate(err))
	}
	return checkoutOf(s), nil
}
