package deposits

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// ReceiptView is the receiver's answer to Stripe (Stripe reads only the
// status; the body is for the operator reading Stripe's delivery log).
type ReceiptView struct {
	Received  bool   `json:"received"`
	EventID   string `json:"event_id"`
	DepositID string `json:"deposit_id,omitempty"`
	// Outcome says what the event did: applied (the deposit moved),
	// unchanged (it moves nothing now: late or out of order), duplicate
	// (applied before), ignored (a type that moves no deposit) or
	// unknown (no deposit of ours matches: logged, not retried).
	Outcome string `json:"outcome"`
	Status  string `json:"status,omitempty"`
}

// UnmatchedRetryWindow is how long after Stripe created it an event that
// names its deposit only by PaymentIntent (a dispute) and matches none is
// refused with a 500, so that Stripe retries it: the checkout event that
// tells us the PaymentIntent may simply not have arrived yet. Past the
// window it is acknowledged and logged like any unknown event.
const UnmatchedRetryWindow = time.Hour

// received is what Verify found: the verified event and its endpoint's
// mode.
type received struct {
	mode  auth.Mode
	event deposit.StripeEvent
}

// StripeWebhook is the receiver of Stripe's Connect webhooks: POST
// /stripe-webhook/{mode}, one endpoint per mode. It answers 400 for a
// signature that does not verify, changing nothing (a header of the wrong
// shape is refused before the signing secret is loaded); 500 for an event it
// cannot read (Stripe retries); 200 otherwise, including for events it
// ignores, has seen, or cannot match to a deposit (logged).
func (s *Service) StripeWebhook() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.StripeWebhook,
		Verify: func(ctx context.Context, c *pipeline.Call) (pipeline.Grant, error) {
			mode, err := auth.ParseMode(c.PathParam)
			if err != nil {
				return pipeline.Grant{}, errcode.New(errcode.NotFound, "No Stripe webhook endpoint at this path; use /stripe-webhook/test or /stripe-webhook/live.")
			}
			// The header's shape first: loading the secret is a paid call
			// that an unsigned request must not cause.
			err = s.d.Webhooks.CheckSignatureShape(c.Signature, s.d.Now())
			var ev deposit.StripeEvent
			if err == nil {
				var secret string
				if secret, err = s.d.WebhookSecret(ctx, mode); err != nil {
					return pipeline.Grant{}, err
				}
				ev, err = s.d.Webhooks.Parse(c.Body, c.Signature, secret, s.d.Now())
			}
			switch {
			case errors.Is(err, deposit.ErrSignature):
				e := errcode.New(errcode.InvalidSignature, "The Stripe-Signature header does not verify for this endpoint; nothing was changed.")
				e.Cause = err
				return pipeline.Grant{}, e
			case err != nil:
				return pipeline.Grant{}, err
			}
			return pipeline.Grant{Subject: &received{mode: mode, event: ev}}, nil
		},
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			r := c.Subject.(*received)
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				return s.Receive(ctx, r.mode, r.event, c.Now)
			}}, nil
		},
	}
}

// Receive applies verified Stripe event ev, delivered to mode's endpoint
// at now.
func (s *Service) Receive(ctx context.Context, mode auth.Mode, ev deposit.StripeEvent, now time.Time) (ReceiptView, error) {
	view := ReceiptView{Received: true, EventID: ev.ID}
	log := s.d.Log.With("stripe_event", ev.ID, "stripe_type", ev.Type, "stripe_account", ev.Account, "mode", string(mode))
	if ev.Ignored() {
		view.Outcome = "ignored"
		return view, nil
	}
	unknown := func(why string) (ReceiptView, error) {
		log.WarnContext(ctx, "stripe event matches no deposit; acknowledged, not applied", "reason", why, "deposit_id", ev.DepositID)
		view.Outcome = "unknown"
		return view, nil
	}
	if ev.Livemode != (mode == auth.Live) {
		return unknown(fmt.Sprintf("livemode %t delivered to the %s endpoint", ev.Livemode, mode))
	}
	t, id := auth.Tenant{PartnerID: ev.PartnerID, Mode: mode}, ev.DepositID
	if id == "" || ev.PartnerID == "" {
		if ev.PaymentIntentID == "" {
			return unknown("no deposit metadata and no PaymentIntent")
		}
		var found bool
		var err error
		if t, id, found, err = s.d.Store.DepositByPaymentIntent(ctx, mode, ev.PaymentIntentID); err != nil {
			return ReceiptView{}, err
		} else if !found {
			if now.Sub(ev.Created) < UnmatchedRetryWindow {
				// Stripe may deliver a dispute before the checkout's
				// completion, which tells us the PaymentIntent: have
				// Stripe retry it rather than lose it.
				return ReceiptView{}, fmt.Errorf("stripe event %s: PaymentIntent %s is not known yet; Stripe will retry", ev.ID, ev.PaymentIntentID)
			}
			return unknown("unknown PaymentIntent " + ev.PaymentIntentID)
		}
	}
	view.DepositID = id
	for attempt := 1; ; attempt++ {
		d, err := s.d.Store.GetDeposit(ctx, t, id)
		if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
			return unknown("unknown deposit")
		}
		if err != nil {
			return ReceiptView{}, err
		}
		switch {
		case d.ConnectedAccount != ev.Account:
			return unknown("the deposit is on account " + d.ConnectedAccount)
		case ev.SessionID != "" && ev.SessionID != d.SessionID:
			return unknown("the deposit's checkout is " + d.SessionID + ", not " + ev.SessionID)
		}
		after, err := s.apply(ctx, t, d, ev.Outcome, ev.PaymentIntentID, ev.ID, now)
		switch {
		case errors.Is(err, record.ErrDuplicate):
			view.Outcome, view.Status = "duplicate", string(d.Status.PublicStatus())
			return view, nil
		case errors.Is(err, record.ErrChanged) && attempt < retries:
			continue
		case err != nil:
			return ReceiptView{}, err
		}
		view.Outcome, view.Status = "unchanged", string(after.Status.PublicStatus())
		if after.Status != d.Status {
			view.Outcome = "applied"
			log.InfoContext(ctx, "deposit moved", "deposit_id", d.ID, "from", string(d.Status), "to", string(after.Status))
		}
		return view, nil
	}
}
