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

// CheckoutRequest is one deposit's Checkout Session; the type is
// shared/domain/deposit's, so that the deposits feature's port names it
// without importing this adapter.
type CheckoutRequest = deposit.CheckoutRequest

// validate reports the first field of r Stripe would refuse or that would
// make the session wrong.
func validate(r CheckoutRequest) error {
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

// Checkout is a Checkout Session as Stripe reports it (shared/domain/deposit's
// type, as CheckoutRequest).
type Checkout = deposit.Checkout

// Outcome returns the deposit event c's state amounts to, for
// reconciliation (deposit.NeedsReconcile): expired → expired; complete and
// paid → paid; complete with its PaymentIntent back at
// requires_payment_method or canceled (an asynchronous payment that failed)
// → async_failed; otherwise complete → unpaid. An open session (or a state
// this package does not know) amounts to nothing: ok is false.
func Outcome(c Checkout) (e deposit.Event, ok bool) {
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
	c.Settles, _ = Outcome(c)
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
	if err := validate(r); err != nil {
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
