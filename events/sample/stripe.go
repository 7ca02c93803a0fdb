package sample

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
)

// The sample Stripe webhook events' signing secrets: local only, not
// secret, never an endpoint's.
const (
	// StripeWebhookSecret signs the events that verify. The receiver
	// refuses a signature more than five minutes old, so a stored event
	// verifies only once signed again at the time it is sent, with the
	// receiving stack's secret (as `stripe events resend` would send it):
	// the events' test does that for every event signed with this secret.
	StripeWebhookSecret = "whsec_sample_local_only_not_a_real_secret_0"
	// wrongWebhookSecret signs the bad-signature event: no stack has it.
	wrongWebhookSecret = "whsec_sample_wrong_secret_local_only_000000"
)

// StripeSignature returns the Stripe-Signature header Stripe sends with
// body signed with secret at at: "t=<unix seconds>,v1=<hex HMAC-SHA256
// under secret of "<unix seconds>.<body>">".
func StripeSignature(secret string, at time.Time, body []byte) string {
	t := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "."))
	mac.Write(body)
	return "t=" + t + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// SignedAtEventTime reports whether sig is body's signature with
// StripeWebhookSecret at the events' fixed time: a sample event that
// verifies once signed again (see StripeWebhookSecret).
func SignedAtEventTime(sig string, body []byte) bool {
	return hmac.Equal([]byte(sig), []byte(StripeSignature(StripeWebhookSecret, eventTime, body)))
}

// Resign returns payload, the API Gateway event of a delivery to the
// Stripe webhook receiver, with its Stripe-Signature made again at now
// with secret(mode), mode being the path's {mode} (test or live), and
// true, when the stored signature is the sample secret's at the events'
// time (SignedAtEventTime) and secret(mode) is not empty: the receiver
// refuses a signature more than five minutes old, so a stored sample
// verifies only signed again, as Stripe would send it now. Any other
// payload (the bad-signature sample, a delivery captured from Stripe) is
// returned as it is, with false. It fails for a payload that is not an
// API Gateway event.
func Resign(payload []byte, secret func(mode string) string, now time.Time) ([]byte, bool, error) {
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, false, fmt.Errorf("event is not an API Gateway payload 2.0 event: %w", err)
	}
	headers, _ := ev["headers"].(map[string]any)
	params, _ := ev["pathParameters"].(map[string]any)
	body, _ := ev["body"].(string)
	sig, _ := headers["stripe-signature"].(string)
	mode, _ := params["mode"].(string)
	if ev["isBase64Encoded"] == true || !SignedAtEventTime(sig, []byte(body)) {
		return payload, false, nil
	}
	key := secret(mode)
	if key == "" {
		return payload, false, nil
	}
	headers["stripe-signature"] = StripeSignature(key, now, []byte(body))
	out, err := json.Marshal(ev)
	if err != nil {
		return nil, false, fmt.Errorf("encode event: %w", err)
	}
	return out, true, nil
}

// stripeEvent is a Connect event of type typ of the fixture partner's
// account, of the API version the receiver reads, created at the events'
// time, whose data.object is object.
func stripeEvent(id, typ, object string) string {
	return `{"id":"` + id + `","object":"event","api_version":"` + stripepay.APIVersion + `","account":"` + StripeAccount +
		`","created":` + strconv.FormatInt(eventTime.Unix(), 10) + `,"data":{"object":` + object + `},"livemode":false,` +
		`"pending_webhooks":1,"request":{"id":null,"idempotency_key":null},"type":"` + typ + `"}`
}

// fromStripe returns the headers of Stripe's delivery of body signed with
// secret at the events' time.
func fromStripe(secret, body string) map[string]string {
	return map[string]string{
		"content-type":     "application/json; charset=utf-8",
		"user-agent":       "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
		"accept":           "*/*; q=0.5, application/xml",
		"cache-control":    "no-cache",
		"stripe-signature": StripeSignature(secret, eventTime, []byte(body)),
	}
}
