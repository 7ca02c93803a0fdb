package stripepay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	stripe "github.com/stripe/stripe-go/v76"

	"github.com/moveleads/partnerapi/shared/deposit"
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

// sessionParams are the parameters of POST /v1/checkout/sessions that
// CreateCheckout sends, named as in stripe-go's CheckoutSessionParams and
// encoded by stripe-go's form package. They are declared here rather than
// taken from stripe-go because CheckoutSessionParams' type tree (every
// option of every payment method) adds about 60 KB to a binary that
// encodes it by reflection; stripe-mock checks these names against
// Stripe's OpenAPI spec in the tests.
type sessionParams struct {
	stripe.Params     `form:"*"`
	Mode              *string                  `form:"mode"`
	ClientReferenceID *string                  `form:"client_reference_id"`
	ExpiresAt         *int64                   `form:"expires_at"`
	SuccessURL        *string                  `form:"success_url"`
	CancelURL         *string                  `form:"cancel_url"`
	LineItems         []*lineItemParams        `form:"line_items"`
	Metadata          map[string]string        `form:"metadata"`
	PaymentIntentData *paymentIntentDataParams `form:"payment_intent_data"`
}

type lineItemParams struct {
	PriceData *priceDataParams `form:"price_data"`
	Quantity  *int64           `form:"quantity"`
}

type priceDataParams struct {
	Currency    *string            `form:"currency"`
	UnitAmount  *int64             `form:"unit_amount"`
	ProductData *productDataParams `form:"product_data"`
}

type productDataParams struct {
	Name        *string `form:"name"`
	Description *string `form:"description"`
}

// paymentIntentDataParams carries the metadata to the PaymentIntent, from
// which Stripe copies it to the charge. It has no application_fee_amount:
// the platform takes no fee.
type paymentIntentDataParams struct {
	Metadata map[string]string `form:"metadata"`
}

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

// sessionJSON is the part of a Checkout Session object Checkout keeps.
type sessionJSON struct {
	ID            string            `json:"id"`
	URL           *string           `json:"url"`
	ExpiresAt     int64             `json:"expires_at"`
	Status        string            `json:"status"`
	PaymentStatus string            `json:"payment_status"`
	Metadata      map[string]string `json:"metadata"`
	PaymentIntent expandable        `json:"payment_intent"`
}

// checkout returns the Checkout s describes.
func (s sessionJSON) checkout() Checkout {
	c := Checkout{
		ID:                  s.ID,
		Status:              s.Status,
		PaymentStatus:       s.PaymentStatus,
		PaymentIntentID:     s.PaymentIntent.ID,
		PaymentIntentStatus: s.PaymentIntent.Status,
		DepositID:           s.Metadata[MetaDepositID],
	}
	if s.URL != nil {
		c.URL = *s.URL
	}
	if s.ExpiresAt != 0 {
		c.ExpiresAt = time.Unix(s.ExpiresAt, 0).UTC()
	}
	return c
}

// expandable is a field Stripe sends as an object's id or, expanded, as
// the object: its id and, when the object has one, its status.
type expandable struct {
	ID, Status string
}

// UnmarshalJSON reads null, an id string or an object with id and status.
func (e *expandable) UnmarshalJSON(b []byte) error {
	var id string
	if json.Unmarshal(b, &id) == nil {
		*e = expandable{ID: id}
		return nil
	}
	var obj struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("want null, an id or an object with an id: %w", err)
	}
	*e = expandable{ID: obj.ID, Status: obj.Status}
	return nil
}

// CreateCheckout creates r's Checkout Session on r.ConnectedAccount: mode
// payment, one line item of r.AmountCents in r.Currency, no application
// fee, the deposit's metadata on the session and its PaymentIntent, and
// r.ExpiresAt, with Stripe's idempotency key r.IdempotencyKey. It fails
// without calling Stripe for an invalid request; after calling, with
// ErrRefused or ErrNotFound for Stripe's refusals, or with the network's
// or Stripe's error (*APIError) once the retries are spent. ctx bounds the
// whole call.
func (c *Client) CreateCheckout(ctx context.Context, r CheckoutRequest) (Checkout, error) {
	if err := r.validate(); err != nil {
		return Checkout{}, fmt.Errorf("create checkout for deposit %s: %w", r.DepositID, err)
	}
	meta := map[string]string{MetaDepositID: r.DepositID, MetaLeadID: r.LeadID, MetaPartnerID: r.PartnerID}
	product := &productDataParams{Name: stripe.String(r.ProductName)}
	if r.Description != "" {
		product.Description = stripe.String(r.Description)
	}
	params := &sessionParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		ClientReferenceID: stripe.String(r.DepositID),
		ExpiresAt:         stripe.Int64(r.ExpiresAt.Unix()),
		SuccessURL:        stripe.String(r.SuccessURL),
		LineItems: []*lineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &priceDataParams{
				Currency:    stripe.String(r.Currency),
				UnitAmount:  stripe.Int64(r.AmountCents),
				ProductData: product,
			},
		}},
		Metadata:          meta,
		PaymentIntentData: &paymentIntentDataParams{Metadata: meta},
	}
	if r.CancelURL != "" {
		params.CancelURL = stripe.String(r.CancelURL)
	}
	params.SetStripeAccount(r.ConnectedAccount)
	params.SetIdempotencyKey(r.IdempotencyKey)
	var s sessionJSON
	if err := c.call(ctx, http.MethodPost, "/v1/checkout/sessions", params, &s); err != nil {
		return Checkout{}, fmt.Errorf("create checkout for deposit %s on %s: %w", r.DepositID, r.ConnectedAccount, err)
	}
	return s.checkout(), nil
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
	params := &stripe.Params{}
	params.SetStripeAccount(account)
	params.AddExpand("payment_intent")
	var s sessionJSON
	if err := c.call(ctx, http.MethodGet, "/v1/checkout/sessions/"+url.PathEscape(sessionID), params, &s); err != nil {
		return Checkout{}, fmt.Errorf("get checkout %s on %s: %w", sessionID, account, err)
	}
	return s.checkout(), nil
}
