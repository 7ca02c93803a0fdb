package stripelocal

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// The Stripe events stripe-mock never sends, made and delivered as Stripe
// would: opctl deposit simulate and make dev's checkout page share them.

const (
	// deliverTimeout bounds one POST to the receiver.
	deliverTimeout = 30 * time.Second
	// maxAnswerBytes is how much of the receiver's answer is read.
	maxAnswerBytes = 64 << 10
	// SimEventIDPrefix starts the ids NewEventID makes.
	SimEventIDPrefix = "evt_sim_"
	// simPaymentIntentID starts the PaymentIntent id of a deposit that
	// has none yet.
	simPaymentIntentID = "pi_sim_"
)

// NewEventID returns "evt_sim_" and 24 random lowercase hex digits.
func NewEventID() string {
	b := make([]byte, 12)
	// crypto/rand.Read never returns an error.
	_, _ = rand.Read(b)
	return SimEventIDPrefix + hex.EncodeToString(b)
}

// DepositEvent returns the JSON of the Stripe event id that amounts to e
// for deposit d of mode, as Stripe would send it at now, and its type. A
// deposit whose PaymentIntent is not known yet (Stripe names it in the
// checkout events, from which the receiver learns it) gets
// "pi_sim_<deposit id>". It fails for an event stripepay cannot make.
func DepositEvent(d deposit.Deposit, e deposit.Event, id string, mode auth.Mode, now time.Time) (payload []byte, typ string, err error) {
	pi := d.PaymentIntentID
	if pi == "" {
		pi = simPaymentIntentID + d.ID
	}
	payload, err = stripepay.SimulatedEvent(stripepay.Simulated{
		EventID: id, Account: d.ConnectedAccount, Live: mode == auth.Live,
		DepositID: d.ID, LeadID: d.LeadID, PartnerID: d.PartnerID,
		SessionID: d.SessionID, PaymentIntentID: pi, AmountCents: d.AmountCents, Currency: d.Currency, At: now,
	}, e)
	if err != nil {
		return nil, "", err
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(payload, &head); err != nil {
		return nil, "", fmt.Errorf("read the simulated event: %w", err)
	}
	return payload, head.Type, nil
}

// ReceiverURL returns where the stripe-webhook function of a stack whose
// public origin is base receives mode's events (manifest.StripeWebhook).
func ReceiverURL(base string, mode auth.Mode) string {
	path := manifest.ByOperation(manifest.StripeWebhook).PilotPath
	path = strings.Replace(path, "{"+manifest.ParamName(path)+"}", string(mode), 1)
	return strings.TrimSuffix(base, "/") + path
}

// Deliver POSTs payload to url, signed at at with the endpoint's signing
// secret in Stripe-Signature, as Stripe delivers an event, and returns the
// answer's status and the first 64 KiB of its body. A redirect is
// returned as the answer, not followed (Stripe does not follow them
// either). It fails when the POST gets no answer within 30 s.
func Deliver(ctx context.Context, url string, payload []byte, secret string, at time.Time, agent string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, fmt.Errorf("post the event to %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Stripe-Signature", stripepay.SignPayload(payload, secret, at))
	req.Header.Set("User-Agent", agent)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("post the event to %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return 0, nil, fmt.Errorf("read the answer of %s (status %d): %w", url, resp.StatusCode, err)
	}
	return resp.StatusCode, body, nil
}
