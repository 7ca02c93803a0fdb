package stripepay_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

const (
	secret  = "whsec_test_partnerapi_deposits"
	account = "acct_1PartnerAcme"
)

// now is the receiver's clock in these tests.
var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture reads testdata/events/name.json, an event as Stripe sends it.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "events", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sign returns a Stripe-Signature header for payload under key, made at.
func sign(payload []byte, key string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: key, Timestamp: at}).Header
}

func TestParseWebhookMapsEveryEvent(t *testing.T) {
	const (
		depositID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
		leadID    = "9b2d5c1e-3f4a-4b8e-8d6f-2a1c7e5b9d30"
		session   = "cs_test_a1Deposit7c9e"
		intent    = "pi_3DepositIntent"
	)
	tests := []struct {
		fixture string
		want    stripepay.Event
	}{
		{"checkout_session_completed_paid", stripepay.Event{
			ID: "evt_1CompletedPaid", Type: "checkout.session.completed", Outcome: deposit.EventPaid,
			SessionID: session, PaymentStatus: "paid", PaymentIntentID: intent,
		}},
		{"checkout_session_completed_unpaid", stripepay.Event{
			ID: "evt_1CompletedUnpaid", Type: "checkout.session.completed", Outcome: deposit.EventUnpaid,
			SessionID: session, PaymentStatus: "unpaid", PaymentIntentID: intent,
		}},
		{"checkout_session_async_payment_succeeded", stripepay.Event{
			ID: "evt_1AsyncSucceeded", Type: "checkout.session.async_payment_succeeded", Outcome: deposit.EventAsyncPaid,
			SessionID: session, PaymentStatus: "paid", PaymentIntentID: intent,
		}},
		{"checkout_session_async_payment_failed", stripepay.Event{
			ID: "evt_1AsyncFailed", Type: "checkout.session.async_payment_failed", Outcome: deposit.EventAsyncFailed,
			SessionID: session, PaymentStatus: "unpaid", PaymentIntentID: intent,
		}},
		{"checkout_session_expired", stripepay.Event{
			ID: "evt_1Expired", Type: "checkout.session.expired", Outcome: deposit.EventExpired,
			SessionID: session, PaymentStatus: "unpaid",
		}},
		{"charge_refunded", stripepay.Event{
			ID: "evt_1Refunded", Type: "charge.refunded", Outcome: deposit.EventRefunded,
			ChargeID: "ch_3DepositCharge", PaymentIntentID: intent, AmountRefunded: 10000, FullyRefunded: false,
		}},
		{"charge_dispute_created", stripepay.Event{
			ID: "evt_1Disputed", Type: "charge.dispute.created", Outcome: deposit.EventDisputed,
			ChargeID: "ch_3DepositCharge", DisputeID: "dp_1DepositDispute", PaymentIntentID: intent,
		}},
		{"payment_intent_succeeded", stripepay.Event{
			ID: "evt_1IntentSucceeded", Type: "payment_intent.succeeded",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			payload := fixture(t, tt.fixture)
			got, err := stripepay.ParseWebhook(payload, sign(payload, secret, now), secret, now)
			if err != nil {
				t.Fatalf("ParseWebhook: %v", err)
			}
			want := tt.want
			want.Account = account
			want.Created = time.Unix(1780300600, 0).UTC()
			// The checkout and charge objects carry the deposit's metadata;
			// a dispute's is empty, and the ignored event's is not read.
			if want.Outcome != "" && want.Outcome != deposit.EventDisputed {
				want.DepositID, want.LeadID, want.PartnerID = depositID, leadID, "ptr_acme"
			}
			if got != want {
				t.Errorf("ParseWebhook(%s) =\n%+v\nwant\n%+v", tt.fixture, got, want)
			}
			if got.Ignored() != (want.Outcome == "") {
				t.Errorf("Ignored() = %v; want %v", got.Ignored(), want.Outcome == "")
			}
		})
	}
}

// TestWebhookEventTypesAreMapped: every type the endpoint subscribes to has
// a fixture above that maps to a deposit event, and nothing else does.
func TestWebhookEventTypesAreMapped(t *testing.T) {
	mapped := map[string]bool{}
	entries, err := os.ReadDir(filepath.Join("testdata", "events"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		payload := fixture(t, strings.TrimSuffix(e.Name(), ".json"))
		ev, err := stripepay.ParseWebhook(payload, sign(payload, secret, now), secret, now)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if !ev.Ignored() {
			mapped[ev.Type] = true
		}
	}
	for _, typ := range stripepay.WebhookEventTypes {
		if !mapped[typ] {
			t.Errorf("subscribed type %s: no fixture maps it to a deposit event", typ)
		}
	}
	if len(mapped) != len(stripepay.WebhookEventTypes) {
		t.Errorf("mapped types %v; want exactly WebhookEventTypes %v", mapped, stripepay.WebhookEventTypes)
	}
}

func TestParseWebhookRefusesBadSignatures(t *testing.T) {
	payload := fixture(t, "checkout_session_completed_paid")
	good := sign(payload, secret, now)
	tampered := bytes.Replace(payload, []byte(`"paid"`), []byte(`"unpa"`), 1)
	old := now.Add(-time.Hour)
	tests := []struct {
		name    string
		payload []byte
		header  string
	}{
		{"wrong secret", payload, sign(payload, "whsec_someone_else", now)},
		{"stale timestamp", payload, sign(payload, secret, now.Add(-stripepay.WebhookTolerance-time.Second))},
		{"timestamp from the future", payload, sign(payload, secret, now.Add(stripepay.WebhookTolerance+time.Second))},
		{"tampered body", tampered, good},
		{"body with a trailing newline", append(bytes.Clone(payload), '\n'), good},
		{"no header", payload, ""},
		{"malformed header", payload, "garbage"},
		{"header without a v1 signature", payload, strings.Split(good, ",")[0]},
		{"v0 scheme only", payload, strings.Replace(good, "v1=", "v0=", 1)},
		{"fresh t= before an old signed one", payload, fmt.Sprintf("t=%d,", now.Unix()) + sign(payload, secret, old)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stripepay.ParseWebhook(tt.payload, tt.header, secret, now)
			if !errors.Is(err, stripepay.ErrSignature) {
				t.Errorf("ParseWebhook = %+v, %v; want ErrSignature", got, err)
			}
			if got != (stripepay.Event{}) {
				t.Errorf("ParseWebhook returned %+v with its error; want the zero Event", got)
			}
		})
	}
}

func TestParseWebhookAcceptsWithinTolerance(t *testing.T) {
	payload := fixture(t, "checkout_session_expired")
	tests := []struct {
		name   string
		header string
	}{
		{"signed at the edge of the tolerance", sign(payload, secret, now.Add(-stripepay.WebhookTolerance))},
		{"a rolled secret: the old signature first", sign(payload, "whsec_old", now) + "," + strings.Split(sign(payload, secret, now), ",")[1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := stripepay.ParseWebhook(payload, tt.header, secret, now); err != nil {
				t.Errorf("ParseWebhook = %v; want success", err)
			}
		})
	}
}

func TestParseWebhookRefusesUnreadableEvents(t *testing.T) {
	paid := fixture(t, "checkout_session_completed_paid")
	tests := []struct {
		name    string
		payload []byte
	}{
		{"another API version", bytes.Replace(paid, []byte(`"2023-10-16"`), []byte(`"2024-06-20"`), 1)},
		{"no API version", bytes.Replace(paid, []byte(`"api_version": "2023-10-16",`), nil, 1)},
		{"not JSON", []byte("not json")},
		{"a session that is not an object", []byte(`{"id":"evt_1","api_version":"2023-10-16","type":"checkout.session.completed","data":{"object":"cs_1"}}`)},
		{"a handled type without data", []byte(`{"id":"evt_1","api_version":"2023-10-16","type":"charge.refunded"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stripepay.ParseWebhook(tt.payload, sign(tt.payload, secret, now), secret, now)
			if !errors.Is(err, stripepay.ErrUnreadable) || errors.Is(err, stripepay.ErrSignature) {
				t.Errorf("ParseWebhook = %+v, %v; want ErrUnreadable", got, err)
			}
		})
	}
}

func TestParseWebhookNeedsASecret(t *testing.T) {
	payload := fixture(t, "checkout_session_completed_paid")
	// Signed with the empty key, which anyone can do.
	_, err := stripepay.ParseWebhook(payload, sign(payload, "", now), "", now)
	if err == nil {
		t.Fatal("ParseWebhook with no secret = nil error; want a refusal")
	}
}

// TestWebhooksDriveDeposit feeds the parsed fixtures of each path of a
// deposit to deposit.Apply, in order, shuffled and duplicated: the final
// status is the same every time.
func TestWebhooksDriveDeposit(t *testing.T) {
	tests := []struct {
		name     string
		fixtures []string
		want     deposit.Status
	}{
		{"card paid", []string{"checkout_session_completed_paid"}, deposit.Paid},
		{"async paid", []string{"checkout_session_completed_unpaid", "checkout_session_async_payment_succeeded"}, deposit.Paid},
		{"async failed", []string{"checkout_session_completed_unpaid", "checkout_session_async_payment_failed"}, deposit.Failed},
		{"expired", []string{"checkout_session_expired"}, deposit.Failed},
		{"refunded then disputed", []string{"checkout_session_completed_paid", "charge_refunded", "charge_dispute_created"}, deposit.Disputed},
		{"with an ignored event", []string{"payment_intent_succeeded", "checkout_session_completed_paid", "charge_refunded"}, deposit.Refunded},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []stripepay.Event
			for _, name := range tt.fixtures {
				payload := fixture(t, name)
				e, err := stripepay.ParseWebhook(payload, sign(payload, secret, now), secret, now)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				events = append(events, e)
			}
			for round := range 20 {
				seq := append([]stripepay.Event(nil), events...)
				if round > 0 {
					rng.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
				}
				if round%2 == 1 {
					seq = append(seq, seq...)
				}
				d := deposit.Deposit{Status: deposit.CheckoutOpen}
				for _, e := range seq {
					if e.Ignored() {
						continue
					}
					if _, err := d.Apply(e.Outcome, now); err != nil {
						t.Fatal(err)
					}
				}
				if d.Status != tt.want {
					t.Errorf("events %v end in %s; want %s", types(seq), d.Status, tt.want)
				}
			}
		})
	}
}

func types(events []stripepay.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}
