package deposits_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// TestQuoteAcceptDepositPaidBooks walks the whole beta flow through the
// API: a binding quote, signed; a deposit whose checkout request carries
// the connected account, no fee, the expiry and metadata; Stripe's paid
// event; the lead booked, and the partner's webhooks owed.
func TestQuoteAcceptDepositPaidBooks(t *testing.T) {
	w := newWorld(t)
	leadID := w.lead(t)
	q := w.quote(t, leadID, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`)
	if q["stage"] != "open" || q["lead_status"] != "quoted" || !strings.Contains(q["quote_url"].(string), "/v1-quote/") {
		t.Fatalf("createQuote = %v", q)
	}
	l := w.leadDetail(t, leadID)
	if l["status"] != "quoted" || l["quote"].(map[string]any)["quote_id"] != q["quote_id"] || l["quote"].(map[string]any)["stage"] != "open" {
		t.Fatalf("getLead after quote = %v", l)
	}

	// Acceptance never books: the lead is accepted, the quote signed.
	a := apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", w.signBody(t)), 200, "")
	if a["status"] != "signed" || a["deposit_required"] != true {
		t.Fatalf("acceptQuote = %v", a)
	}
	l = w.leadDetail(t, leadID)
	lq := l["quote"].(map[string]any)
	if l["status"] != "accepted" || lq["stage"] != "signed" || lq["signed_at"] == nil || lq["accepted_at"] == nil {
		t.Fatalf("getLead after signing = %v", l)
	}
	// The evidence was stored with its hash and the image in the bucket.
	ctx := context.Background()
	qr, err := w.env.Store.GetQuote(ctx, w.tenant, leadID, q["quote_id"].(string))
	if err != nil || qr.Acceptance == nil || qr.Acceptance.Evidence == nil {
		t.Fatalf("stored quote %+v, %v", qr, err)
	}
	ev := qr.Acceptance.Evidence
	if ev.Hash() != qr.Acceptance.EvidenceHash || ev.ShownHash != qr.ShownHash() || ev.IP == "" || ev.UserAgent == "" {
		t.Errorf("evidence %+v, hash %s", ev, qr.Acceptance.EvidenceHash)
	}
	if _, err := w.env.S3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &w.env.Bucket, Key: &ev.SignatureKey}); err != nil {
		t.Errorf("signature image %s: %v", ev.SignatureKey, err)
	}
	// The same signature again is a success that changes nothing.
	apitest.Want(t, w.do(t, "POST", "/v1-accept/"+leadID, w.signBody(t)), 200, "")

	// The deposit: amount from the quote, a checkout on the partner's account.
	before := len(w.stripe.recorded())
	d := apitest.Want(t, w.do(t, "POST", "/v1/deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"])), 200, "")
	if d["status"] != "checkout_open" || d["amount_cents"] != float64(25000) || d["checkout_url"] == "" {
		t.Fatalf("createDeposit = %v", d)
	}
	id := d["deposit_id"].(string)
	reqs := w.stripe.recorded()[before:]
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/v1/checkout/sessions" {
		t.Fatalf("Stripe requests %+v; want one session create", reqs)
	}
	r := reqs[0]
	if r.Header.Get("Stripe-Account") != account || r.Header.Get("Idempotency-Key") == "" {
		t.Errorf("Stripe-Account %q, Idempotency-Key %q", r.Header.Get("Stripe-Account"), r.Header.Get("Idempotency-Key"))
	}
	for k := range r.Form {
		if strings.Contains(k, "application_fee") || strings.Contains(k, "transfer_data") || strings.Contains(k, "on_behalf_of") {
			t.Errorf("checkout request carries %s: the platform takes no fee and makes a direct charge", k)
		}
	}
	exp := r.Form.Get("expires_at")
	if got := r.Form.Get("metadata[deposit_id]") + "/" + r.Form.Get("metadata[lead_id]") + "/" + r.Form.Get("metadata[partner_id]"); got != id+"/"+leadID+"/"+w.partner {
		t.Errorf("metadata = %s", got)
	}
	if r.Form.Get("payment_intent_data[metadata][deposit_id]") != id || r.Form.Get("mode") != "payment" ||
		r.Form.Get("line_items[0][price_data][unit_amount]") != "25000" || r.Form.Get("line_items[0][price_data][currency]") != "usd" {
		t.Errorf("checkout form %v", r.Form)
	}
	if secs := mustInt(t, exp) - time.Now().Unix(); secs < int64((23*time.Hour).Seconds()) || secs > int64((24*time.Hour).Seconds()) {
		t.Errorf("expires_at %s is %d s away; want the 24 h default, a minute inside Stripe's bound", exp, secs)
	}
	// A second call returns the open deposit, no second checkout.
	d2 := apitest.Want(t, w.do(t, "POST", "/v1-deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"])), 200, "")
	if d2["deposit_id"] != id || w.stripe.count("POST") != 1 {
		t.Errorf("second createDeposit = %v after %d creates; want the same deposit, one checkout", d2, w.stripe.count("POST"))
	}
	if l := w.leadDetail(t, leadID); l["status"] != "deposit_pending" || l["deposit"].(map[string]any)["status"] != "pending" {
		t.Errorf("getLead after deposit = %v", l)
	}
	g := w.deposit(t, id)
	if g["status"] != "pending" || g["checkout_url"] == nil || g["paid_at"] != nil || g["lead_id"] != leadID {
		t.Errorf("getDeposit = %v", g)
	}

	// Stripe says paid: the deposit is paid and the lead booked.
	rcv := apitest.Want(t, w.deliver(t, id, deposit.EventPaid, "evt_paid_1", apitest.StripeWebhookSecret, time.Time{}, false), 200, "")
	if rcv["outcome"] != "applied" || rcv["status"] != "paid" {
		t.Errorf("receiver = %v", rcv)
	}
	g = w.deposit(t, id)
	if g["status"] != "paid" || g["checkout_url"] != nil || g["paid_at"] == nil {
		t.Errorf("getDeposit after paid = %v", g)
	}
	if l := w.leadDetail(t, leadID); l["status"] != "booked" || l["deposit"].(map[string]any)["status"] != "paid" {
		t.Errorf("getLead after paid = %v", l)
	}
	for _, ty := range []string{deposit.WebhookDepositPaid, deposit.WebhookLeadBooked} {
		e, err := w.env.Store.GetEvent(ctx, w.tenant, "evt_"+id+"_"+ty)
		if err != nil || string(e.Type) != ty {
			t.Errorf("webhook event %s: %+v, %v", ty, e, err)
		}
	}
	// A booked lead takes no new quote and no new deposit.
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/quote", `{"estimate_type":"binding","price_cents":1000}`), 409, "lead_closed")
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("not an integer: %q", s)
	}
	return n
}

// TestNonBindingAccept accepts a non-binding quote with an email address.
func TestNonBindingAccept(t *testing.T) {
	w := newWorld(t)
	leadID := w.lead(t)
	w.quote(t, leadID, `{"estimate_type":"non_binding","price_cents":180000}`)
	// The binding-only fields are refused for a non-binding quote.
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", w.signBody(t)), 422, "validation_failed")
	a := apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", `{"accepter_email":"ada@example.com"}`), 200, "")
	if a["status"] != "accepted" || a["deposit_required"] != false {
		t.Errorf("acceptQuote = %v", a)
	}
	// Accepting again with other terms is a conflict; the same is a success.
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", `{"accepter_email":"bob@example.com"}`), 409, "quote_already_accepted")
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", `{"accepter_email":"ADA@example.com"}`), 200, "")
	if l := w.leadDetail(t, leadID); l["status"] != "accepted" || l["quote"].(map[string]any)["stage"] != "accepted" || l["quote"].(map[string]any)["signed_at"] != nil {
		t.Errorf("getLead = %v", l)
	}
}

// TestBindingAcceptValidation: every missing field is named at once, a
// signature that is not a PNG is refused, and nothing is recorded.
func TestBindingAcceptValidation(t *testing.T) {
	w := newWorld(t)
	leadID := w.lead(t)
	w.quote(t, leadID, `{"estimate_type":"binding_not_to_exceed","price_cents":300000}`)
	m := apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", `{}`), 422, "validation_failed")
	fields := m["error"].(map[string]any)["details"].(map[string]any)["fields"].(map[string]any)
	for _, f := range []string{"signer_name", "signer_email", "signature_image_b64", "liability_election", "esign_consent_checked"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("422 does not name %s: %v", f, fields)
		}
	}
	notPNG := strings.Replace(w.signBody(t), signatureField(w.signBody(t)), "R0lGODlhAQABAAAAACw=", 1)
	m = apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", notPNG), 422, "validation_failed")
	if _, ok := m["error"].(map[string]any)["details"].(map[string]any)["fields"].(map[string]any)["signature_image_b64"]; !ok {
		t.Errorf("a GIF signature: %v", m)
	}
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", `{"signer_name":"A","extra":1}`), 422, "validation_failed")
	if l := w.leadDetail(t, leadID); l["status"] != "quoted" || l["quote"].(map[string]any)["stage"] != "open" {
		t.Errorf("after refused acceptances: %v", l)
	}
}

func signatureField(body string) string {
	_, rest, _ := strings.Cut(body, `"signature_image_b64":"`)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// TestBetaGateAndScopes: a partner without the beta gets 403 on every
// beta endpoint; the scopes are enforced.
func TestBetaGateAndScopes(t *testing.T) {
	w := newWorld(t)
	leadID := w.lead(t)
	other := w.env.NewPartner(t, "Not In Beta")
	otherKey, _ := w.env.NewKey(t, other, auth.Test)
	id := "00000000-0000-4000-8000-000000000000"
	calls := []struct{ method, path, body string }{
		{"POST", "/v1/leads/" + leadID + "/quote", `{"estimate_type":"binding","price_cents":1000}`},
		{"POST", "/v1-accept/" + leadID, `{}`},
		{"POST", "/v1-deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, id, id)},
		{"GET", "/v1-deposit-status/" + id, ""},
	}
	for _, c := range calls {
		m := apitest.Want(t, w.env.Do(t, c.method, c.path, otherKey, c.body), 403, "beta_not_enabled")
		if m["error"].(map[string]any)["details"].(map[string]any)["feature"] != "deposits" {
			t.Errorf("%s %s: %v", c.method, c.path, m)
		}
	}
	readOnly, _ := w.env.NewKey(t, w.partner, auth.Test, auth.DepositsRead)
	for _, c := range calls[:3] {
		apitest.Want(t, w.env.Do(t, c.method, c.path, readOnly, c.body), 403, "insufficient_scope")
	}
	apitest.Want(t, w.env.Do(t, "GET", "/v1/deposits/"+id, readOnly, ""), 404, "not_found")
	leadsOnly, _ := w.env.NewKey(t, w.partner, auth.Test, auth.LeadsRead, auth.LeadsWrite)
	apitest.Want(t, w.env.Do(t, "GET", "/v1/deposits/"+id, leadsOnly, ""), 403, "insufficient_scope")
}

// TestIsolation: another partner's (or the other mode's) lead, quote link
// and deposit answer 404, like ones that do not exist.
func TestIsolation(t *testing.T) {
	w := newWorld(t)
	leadID, depositID := w.acceptedDeposit(t)
	ql, err := w.env.Store.GetQuoteLead(context.Background(), w.tenant, leadID)
	if err != nil {
		t.Fatal(err)
	}
	share := ql.Quote.ShareLinkID
	other := w.env.NewPartner(t, "Other Movers")
	if _, err := w.env.Store.SetBeta(context.Background(), other, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.env.Store.SetDepositSettings(context.Background(), other, partner.DepositSettings{CarrierLegalName: "O", USDOTNumber: "1", StripeAccount: "acct_other"}); err != nil {
		t.Fatal(err)
	}
	otherKey, _ := w.env.NewKey(t, other, auth.Test)
	liveKey, _ := w.env.NewKey(t, w.partner, auth.Live)
	for name, key := range map[string]string{"other partner": otherKey, "live mode": liveKey} {
		t.Run(name, func(t *testing.T) {
			apitest.Want(t, w.env.Do(t, "POST", "/v1/leads/"+leadID+"/quote", key, `{"estimate_type":"binding","price_cents":1000}`), 404, "not_found")
			apitest.Want(t, w.env.Do(t, "POST", "/v1/leads/"+leadID+"/accept", key, `{"accepter_email":"a@b.co"}`), 404, "not_found")
			apitest.Want(t, w.env.Do(t, "POST", "/v1/deposits", key, fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, share)), 404, "not_found")
			apitest.Want(t, w.env.Do(t, "GET", "/v1/deposits/"+depositID, key, ""), 404, "not_found")
		})
	}
	// The right lead with a quote link that is not its own: 404.
	lead2 := w.lead(t)
	w.quote(t, lead2, `{"estimate_type":"non_binding","price_cents":1000}`)
	apitest.Want(t, w.do(t, "POST", "/v1/deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, lead2, share)), 404, "not_found")
}

// TestDepositRefusals: an ineligible partner is told what is missing; a
// quote not yet accepted is refused; a bad body names its fields.
func TestDepositRefusals(t *testing.T) {
	w := newWorld(t)
	leadID := w.lead(t)
	q := w.quote(t, leadID, `{"estimate_type":"non_binding","price_cents":100000,"deposit_cents":10000}`)
	body := fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"])
	apitest.Want(t, w.do(t, "POST", "/v1/deposits", body), 409, "quote_not_accepted")
	m := apitest.Want(t, w.do(t, "POST", "/v1/deposits", `{"lead_id":"x","amount_cents":5,"tip":1}`), 422, "validation_failed")
	fields := m["error"].(map[string]any)["details"].(map[string]any)["fields"].(map[string]any)
	for _, f := range []string{"lead_id", "quote_share_link_id", "amount_cents", "tip"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("422 does not name %s: %v", f, fields)
		}
	}
	if _, err := w.env.Store.SetDepositSettings(context.Background(), w.partner, partner.DepositSettings{CarrierLegalName: "Acme Moving LLC"}); err != nil {
		t.Fatal(err)
	}
	w.env.Clock.Advance(time.Minute) // past the partner settings cache
	m = apitest.Want(t, w.do(t, "POST", "/v1/deposits", body), 409, "partner_not_eligible")
	missing := fmt.Sprint(m["error"].(map[string]any)["details"].(map[string]any)["missing"])
	if missing != "[usdot_number stripe_account]" {
		t.Errorf("missing = %s", missing)
	}
	if w.stripe.count("POST") != 0 {
		t.Errorf("%d checkouts created by refused requests", w.stripe.count("POST"))
	}
}

// TestStripeRefusalIsPaymentRefused: Stripe's typed refusal of the
// checkout (a 4xx) answers 409 payment_refused with Stripe's code and
// message; its failure (a 5xx, retried by stripe-go's policy only where it
// is safe) answers 502 upstream_failed. Neither writes a deposit, so a
// later call creates one.
func TestStripeRefusalIsPaymentRefused(t *testing.T) {
	w := newWorld(t)
	leadID := w.lead(t)
	q := w.quote(t, leadID, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`)
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", w.signBody(t)), 200, "")
	body := fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"])

	w.stripe.mu.Lock()
	w.stripe.refuse = &stripeAnswer{400, `{"error":{"type":"invalid_request_error","code":"account_invalid","message":"The provided key does not have access to account 'acct_1PartnerTest'."}}`}
	w.stripe.mu.Unlock()
	m := apitest.Want(t, w.do(t, "POST", "/v1/deposits", body), 409, "payment_refused")
	e := m["error"].(map[string]any)
	if code := e["details"].(map[string]any)["stripe_code"]; code != "account_invalid" {
		t.Errorf("details.stripe_code = %v; want account_invalid", code)
	}
	if msg := e["message"].(string); !strings.Contains(msg, "does not have access to account") {
		t.Errorf("message %q; want Stripe's", msg)
	}

	w.stripe.mu.Lock()
	w.stripe.refuse = &stripeAnswer{500, `{"error":{"type":"api_error","message":"Something went wrong on Stripe's end."}}`}
	w.stripe.mu.Unlock()
	apitest.Want(t, w.do(t, "POST", "/v1/deposits", body), 502, "upstream_failed")
	if n := w.stripe.count("POST"); n != 2 {
		t.Errorf("%d creates reached Stripe; want 2 (a 400 and a 500 to a POST are not retried)", n)
	}

	w.stripe.mu.Lock()
	w.stripe.refuse = nil
	w.stripe.mu.Unlock()
	apitest.Want(t, w.do(t, "POST", "/v1/deposits", body), 200, "")
}

// TestBadSignatures: a wrong secret, a stale timestamp and a tampered
// body each answer 400 and change nothing.
func TestBadSignatures(t *testing.T) {
	w := newWorld(t)
	_, id := w.acceptedDeposit(t)
	cases := map[string]func() apitest.Result{
		"wrong secret": func() apitest.Result {
			return w.deliver(t, id, deposit.EventPaid, "evt_bad_1", "whsec_wrong", time.Time{}, false)
		},
		"stale timestamp": func() apitest.Result {
			return w.deliver(t, id, deposit.EventPaid, "evt_bad_2", apitest.StripeWebhookSecret, time.Now().Add(-10*time.Minute), false)
		},
		"tampered body": func() apitest.Result {
			return w.deliver(t, id, deposit.EventPaid, "evt_bad_3", apitest.StripeWebhookSecret, time.Time{}, true)
		},
		"live secret on the test endpoint": func() apitest.Result {
			return w.deliver(t, id, deposit.EventPaid, "evt_bad_4", apitest.StripeLiveWebhookSecret, time.Time{}, false)
		},
	}
	for name, send := range cases {
		t.Run(name, func(t *testing.T) {
			apitest.Want(t, send(), 400, "invalid_signature")
			if g := w.deposit(t, id); g["status"] != "pending" {
				t.Errorf("deposit after a refused event: %v", g)
			}
		})
	}
	// No signature at all, and a mode that has no endpoint.
	apitest.Want(t, w.env.DoRaw(t, "POST", "/stripe-webhook/test", "", `{}`), 400, "invalid_signature")
	apitest.Want(t, w.env.DoRaw(t, "POST", "/stripe-webhook/prod", "", `{}`), 404, "not_found")
}

// namedOrder is one order in which TestEventsAnyOrder delivers a sequence.
type namedOrder struct {
	name   string
	events []deposit.Event
}

// distinctOrders drops an order equal to an earlier one: a sequence of
// one event has one order, and one of two events shuffles to one of the
// other two, so running it again would only repeat a subtest (24
// subtests became 14 with this seed).
func distinctOrders(orders ...namedOrder) []namedOrder {
	var out []namedOrder
	for _, o := range orders {
		if !slices.ContainsFunc(out, func(seen namedOrder) bool { return slices.Equal(seen.events, o.events) }) {
			out = append(out, o)
		}
	}
	return out
}

// TestEventsAnyOrder applies every sequence of Stripe events in order,
// shuffled, and with each event delivered twice: the deposit ends in the
// same status either way (the highest reached), never moves backwards,
// and books the lead exactly when it reached paid or beyond.
func TestEventsAnyOrder(t *testing.T) {
	w := newWorld(t)
	sequences := [][]deposit.Event{
		{deposit.EventPaid},
		{deposit.EventUnpaid, deposit.EventAsyncPaid},
		{deposit.EventUnpaid, deposit.EventAsyncFailed},
		{deposit.EventExpired},
		{deposit.EventPaid, deposit.EventExpired},
		{deposit.EventPaid, deposit.EventRefunded},
		{deposit.EventPaid, deposit.EventDisputed},
		{deposit.EventPaid, deposit.EventRefunded, deposit.EventDisputed},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, seq := range sequences {
		want := deposit.CheckoutOpen
		for _, e := range seq {
			tr, err := deposit.Apply(want, e)
			if err != nil {
				t.Fatal(err)
			}
			want = tr.To
		}
		shuffled := slices.Clone(seq)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for _, o := range distinctOrders(
			namedOrder{"in order", seq}, namedOrder{"shuffled", shuffled}, namedOrder{"reversed", reversed(seq)},
		) {
			name, order := o.name, o.events
			t.Run(fmt.Sprint(seq)+" "+name, func(t *testing.T) {
				leadID, id := w.acceptedDeposit(t)
				// Each event is delivered twice; one Stripe has to retry
				// (a dispute before the PaymentIntent is known: 500) is
				// delivered again after the others, as Stripe does.
				type pending struct {
					e   deposit.Event
					evt string
				}
				var queue []pending
				for i, e := range order {
					queue = append(queue, pending{e, fmt.Sprintf("evt_%s_%d", strings.ReplaceAll(id, "-", "")[:12], i)})
				}
				for round := 0; len(queue) > 0; round++ {
					if round == 3 {
						t.Fatalf("events still refused after 3 rounds: %v", queue)
					}
					var retry []pending
					for _, p := range queue {
						first := w.deliver(t, id, p.e, p.evt, apitest.StripeWebhookSecret, time.Time{}, false)
						if first.Status == 500 && p.e == deposit.EventDisputed {
							retry = append(retry, p)
							continue
						}
						apitest.Want(t, first, 200, "")
						again := apitest.Want(t, w.deliver(t, id, p.e, p.evt, apitest.StripeWebhookSecret, time.Time{}, false), 200, "")
						if again["outcome"] != "duplicate" {
							t.Errorf("%s delivered twice: %s then %v", p.e, first.Body, again)
						}
					}
					queue = retry
				}
				d, err := w.env.Store.GetDeposit(context.Background(), w.tenant, id)
				if err != nil || d.Status != want {
					t.Fatalf("deposit %s after %v: %s, %v; want %s", id, order, d.Status, err, want)
				}
				books := want == deposit.Paid || want == deposit.Refunded || want == deposit.Disputed
				l := w.leadDetail(t, leadID)
				if (l["status"] == "booked") != books || l["deposit"].(map[string]any)["status"] != string(want.PublicStatus()) {
					t.Errorf("lead after %v: %v; booked %t", order, l, books)
				}
				_, err = w.env.Store.GetEvent(context.Background(), w.tenant, "evt_"+id+"_"+string(webhook.LeadBooked))
				if (err == nil) != books {
					t.Errorf("lead.booked owed: %v; want %t", err, books)
				}
			})
		}
	}
}

func reversed(seq []deposit.Event) []deposit.Event {
	out := slices.Clone(seq)
	slices.Reverse(out)
	return out
}

// TestUnknownEventsAreAcknowledged: an event for a deposit, account or
// session we do not know answers 200 (Stripe stops retrying) and is logged.
func TestUnknownEventsAreAcknowledged(t *testing.T) {
	w := newWorld(t)
	_, id := w.acceptedDeposit(t)
	unknown := map[string]func(*stripepay.Simulated){
		"another account": func(s *stripepay.Simulated) { s.Account = "acct_stranger" },
		"another session": func(s *stripepay.Simulated) { s.SessionID = "cs_test_stranger" },
		"unknown deposit": func(s *stripepay.Simulated) { s.DepositID = "00000000-0000-4000-8000-000000000000" },
		"unknown partner": func(s *stripepay.Simulated) { s.PartnerID = "ptn_nobody" },
	}
	for name, change := range unknown {
		t.Run(name, func(t *testing.T) {
			m := apitest.Want(t, w.deliverWith(t, id, deposit.EventPaid, "evt_unknown_"+strings.ReplaceAll(name, " ", "_"), change), 200, "")
			if m["outcome"] != "unknown" || !strings.Contains(w.env.Logs.String(), "matches no deposit") {
				t.Errorf("event of %s: %v", name, m)
			}
		})
	}
	// A dispute names its deposit by PaymentIntent only. One we do not
	// know yet is refused (500) for an hour, so that Stripe retries it
	// after the checkout event that tells us the PaymentIntent; older, it
	// is acknowledged.
	r := w.deliverWith(t, id, deposit.EventDisputed, "evt_unknown_pi_new", func(s *stripepay.Simulated) { s.PaymentIntentID = "pi_never" })
	if r.Status != 500 {
		t.Errorf("a fresh dispute of an unknown PaymentIntent: %d %s; want 500 (Stripe retries)", r.Status, r.Body)
	}
	m := apitest.Want(t, w.deliverWith(t, id, deposit.EventDisputed, "evt_unknown_pi_old", func(s *stripepay.Simulated) {
		s.PaymentIntentID, s.At = "pi_never", time.Now().Add(-2*time.Hour)
	}), 200, "")
	if m["outcome"] != "unknown" {
		t.Errorf("an old dispute of an unknown PaymentIntent: %v", m)
	}
	if g := w.deposit(t, id); g["status"] != "pending" {
		t.Errorf("deposit after unknown events: %v", g)
	}
}

// TestReconcileOnRead: a lost webhook is caught up by getDeposit, which
// asks Stripe at most once a minute per deposit.
func TestReconcileOnRead(t *testing.T) {
	w := newWorld(t)
	leadID, id := w.acceptedDeposit(t)
	w.stripe.mu.Lock()
	w.stripe.readState = &[2]string{"complete", "paid"}
	w.stripe.mu.Unlock()
	if g := w.deposit(t, id); g["status"] != "pending" || w.stripe.count("GET") != 0 {
		t.Fatalf("a read within the first minute asked Stripe (%d) or moved: %v", w.stripe.count("GET"), g)
	}
	w.env.Clock.Set(time.Now().Add(2 * time.Minute))
	if g := w.deposit(t, id); g["status"] != "paid" || g["paid_at"] == nil {
		t.Fatalf("after the webhook was lost: %v", g)
	}
	if l := w.leadDetail(t, leadID); l["status"] != "booked" {
		t.Errorf("lead after reconciliation: %v", l)
	}
	w.deposit(t, id)
	if n := w.stripe.count("GET"); n != 1 {
		t.Errorf("Stripe was read %d times; want once", n)
	}
}

// TestLeadNamesItsDepositAndQuoteLink: getLead names the lead's quote
// share link and latest deposit (issue 23, item 8: before, it showed
// deposit {"status": "pending"} without an id, so a deposit the partner
// did not start itself could not be read with getDeposit); the deposit
// events carry the share link too; and createDeposit again still returns
// the open deposit (the older way to find it).
func TestLeadNamesItsDepositAndQuoteLink(t *testing.T) {
	w := newWorld(t)
	leadID := w.lead(t)
	l := w.leadDetail(t, leadID)
	if d := l["deposit"].(map[string]any); len(d) != 2 || d["deposit_id"] != nil || d["status"] != "none" {
		t.Errorf("getLead deposit before any = %v; want deposit_id null, status none", d)
	}
	q := w.quote(t, leadID, `{"estimate_type":"non_binding","price_cents":245000,"deposit_cents":25000}`)
	link := q["quote_share_link_id"].(string)
	if lq := w.leadDetail(t, leadID)["quote"].(map[string]any); lq["quote_share_link_id"] != link || lq["quote_id"] != q["quote_id"] {
		t.Errorf("getLead quote = %v; want quote_share_link_id %s", lq, link)
	}
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", `{"accepter_email":"ada@example.com"}`), 200, "")
	body := fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, link)
	id := apitest.Want(t, w.do(t, "POST", "/v1/deposits", body), 200, "")["deposit_id"].(string)

	l = w.leadDetail(t, leadID)
	if d := l["deposit"].(map[string]any); d["deposit_id"] != id || d["status"] != "pending" {
		t.Errorf("getLead deposit = %v; want deposit_id %s, pending", d, id)
	}
	if g := w.deposit(t, l["deposit"].(map[string]any)["deposit_id"].(string)); g["deposit_id"] != id || g["status"] != "pending" {
		t.Errorf("getDeposit of getLead's deposit_id = %v", g)
	}
	if again := apitest.Want(t, w.do(t, "POST", "/v1-deposits", body), 200, ""); again["deposit_id"] != id || w.stripe.count("POST") != 1 {
		t.Errorf("createDeposit again = %v after %d checkouts; want the open deposit %s, one checkout", again, w.stripe.count("POST"), id)
	}

	apitest.Want(t, w.deliver(t, id, deposit.EventPaid, "evt_ids_paid", apitest.StripeWebhookSecret, time.Time{}, false), 200, "")
	e, err := w.env.Store.GetEvent(context.Background(), w.tenant, "evt_"+id+"_"+deposit.WebhookDepositPaid)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(e.Data, &data); err != nil || data["deposit_id"] != id || data["quote_share_link_id"] != link {
		t.Errorf("deposit.paid data %s (%v); want deposit_id %s and quote_share_link_id %s", e.Data, err, id, link)
	}
	if d := w.leadDetail(t, leadID)["deposit"].(map[string]any); d["deposit_id"] != id || d["status"] != "paid" {
		t.Errorf("getLead deposit after paid = %v", d)
	}
}
