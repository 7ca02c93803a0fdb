package deposits_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// TestMain runs the tests against DynamoDB Local, MinIO (signature
// images) and stripe-mock (Stripe's API).
func TestMain(m *testing.M) { apitest.MainS3Stripe(m) }

// stripeProxy is a reverse proxy in front of stripe-mock that records
// every request and can rewrite what stripe-mock (stateless) answers: the
// checkout URL a session is created with, and the state a read session
// is in.
type stripeProxy struct {
	srv *httptest.Server
	mu  sync.Mutex
	// requests are the requests that passed, with their form bodies.
	requests []recorded
	// checkoutBase, when set, replaces the created session's url with
	// checkoutBase + "/" + session id (a page the test serves).
	checkoutBase string
	// readState, when set, is the status and payment_status a read
	// session reports.
	readState *[2]string
	// refuse, when set, answers every create with this status and Stripe
	// error body instead of passing it to stripe-mock.
	refuse *stripeAnswer
}

// stripeAnswer is an error answer of Stripe's API.
type stripeAnswer struct {
	status int
	body   string
}

type recorded struct {
	Method, Path string
	Header       http.Header
	Form         url.Values
}

func newStripeProxy(t *testing.T) *stripeProxy {
	t.Helper()
	target, err := url.Parse(stripeMockURL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := &stripeProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasPrefix(resp.Request.URL.Path, "/v1/checkout/sessions") || resp.StatusCode != 200 {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var sess map[string]any
		if err := json.Unmarshal(body, &sess); err != nil {
			return err
		}
		p.mu.Lock()
		if resp.Request.Method == "POST" {
			sess["id"] = "cs_test_" + fmt.Sprint(len(p.requests))
			if p.checkoutBase != "" {
				sess["url"] = p.checkoutBase + "/" + sess["id"].(string)
			}
		} else if p.readState != nil {
			sess["status"], sess["payment_status"] = p.readState[0], p.readState[1]
		}
		p.mu.Unlock()
		body, _ = json.Marshal(sess)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Del("Content-Length")
		return nil
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		p.mu.Lock()
		p.requests = append(p.requests, recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Form: form})
		refuse := p.refuse
		p.mu.Unlock()
		if refuse != nil && r.Method == "POST" {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Request-Id", "req_refused")
			w.WriteHeader(refuse.status)
			io.WriteString(w, refuse.body)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	t.Setenv(settings.StripeAPIURL, p.srv.URL)
	return p
}

func (p *stripeProxy) recorded() []recorded {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]recorded(nil), p.requests...)
}

func (p *stripeProxy) count(method string) int {
	n := 0
	for _, r := range p.recorded() {
		if r.Method == method {
			n++
		}
	}
	return n
}

func stripeMockURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(stripepay.EnvAPIURL)
	if u == "" {
		t.Fatal("STRIPE_API_URL is not set: TestMain starts stripe-mock")
	}
	return u
}

// world is a stack with one partner enabled for deposits.
type world struct {
	env     *apitest.Env
	stripe  *stripeProxy
	partner string
	key     string
	tenant  auth.Tenant
}

const account = "acct_1PartnerTest"

func newWorld(t *testing.T) *world { return newWorldWith(t, apitest.Options{}) }

// newWorldWith is newWorld with o (its S3 is always set).
func newWorldWith(t *testing.T, o apitest.Options) *world {
	t.Helper()
	sp := newStripeProxy(t)
	o.S3 = true
	env := apitest.New(t, o)
	w := &world{env: env, stripe: sp}
	w.partner = env.NewPartner(t, "Acme Movers")
	w.key, _ = env.NewKey(t, w.partner, auth.Test)
	w.tenant = auth.Tenant{PartnerID: w.partner, Mode: auth.Test}
	ctx := context.Background()
	if _, err := env.Store.SetBeta(ctx, w.partner, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.SetDepositSettings(ctx, w.partner, partner.DepositSettings{
		CarrierLegalName: "Acme Moving LLC", USDOTNumber: "1234567", StripeAccount: account,
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) do(t *testing.T, method, path, body string, headers ...string) apitest.Result {
	t.Helper()
	return w.env.Do(t, method, path, w.key, body, headers...)
}

func (w *world) lead(t *testing.T) string {
	t.Helper()
	m := apitest.Want(t, w.do(t, "POST", "/v1/leads", `{"email":"ada@example.com","name":"Ada Lovelace"}`), 200, "")
	return m["lead_id"].(string)
}

func (w *world) quote(t *testing.T, leadID, body string) map[string]any {
	t.Helper()
	return apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/quote", body), 200, "")
}

// signature is a PNG a signature pad would export: a white 400×120 pad
// with a stroke.
func signature(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 400, 120))
	for x := range 400 {
		for y := range 120 {
			img.Set(x, y, color.White)
		}
	}
	for x := 40; x < 360; x++ {
		y := 60 + (x%40 - 20)
		img.Set(x, y, color.Black)
		img.Set(x, y+1, color.Black)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func (w *world) signBody(t *testing.T) string {
	return fmt.Sprintf(`{"signer_name":"Ada Lovelace","signer_email":"ada@example.com","signature_image_b64":%q,"liability_election":"full_value_protection","esign_consent_checked":true}`, signature(t))
}

// acceptedDeposit makes a lead with a signed binding quote and a deposit.
func (w *world) acceptedDeposit(t *testing.T) (leadID, depositID string) {
	t.Helper()
	leadID = w.lead(t)
	q := w.quote(t, leadID, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`)
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", w.signBody(t)), 200, "")
	d := apitest.Want(t, w.do(t, "POST", "/v1/deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"])), 200, "")
	return leadID, d["deposit_id"].(string)
}

// deliver sends Stripe event e for deposit id, signed with secret at at
// (zero: now), and returns the receiver's answer.
func (w *world) deliver(t *testing.T, id string, e deposit.Event, eventID, secret string, at time.Time, tamper bool) apitest.Result {
	t.Helper()
	return w.send(t, id, e, eventID, secret, at, tamper, nil)
}

// deliverWith sends a correctly signed event for deposit id, changed by
// change first.
func (w *world) deliverWith(t *testing.T, id string, e deposit.Event, eventID string, change func(*stripepay.Simulated)) apitest.Result {
	t.Helper()
	return w.send(t, id, e, eventID, apitest.StripeWebhookSecret, time.Time{}, false, change)
}

func (w *world) send(t *testing.T, id string, e deposit.Event, eventID, secret string, at time.Time, tamper bool, change func(*stripepay.Simulated)) apitest.Result {
	t.Helper()
	d, err := w.env.Store.GetDeposit(context.Background(), w.tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	if at.IsZero() {
		at = time.Now()
	}
	sim := stripepay.Simulated{
		EventID: eventID, Account: d.ConnectedAccount, DepositID: d.ID, LeadID: d.LeadID, PartnerID: d.PartnerID,
		SessionID: d.SessionID, PaymentIntentID: d.PaymentIntentID,
		AmountCents: d.AmountCents, Currency: d.Currency, At: at,
	}
	if sim.PaymentIntentID == "" {
		sim.PaymentIntentID = "pi_" + strings.ReplaceAll(d.ID, "-", "")[:20]
	}
	if change != nil {
		change(&sim)
	}
	payload, err := stripepay.SimulatedEvent(sim, e)
	if err != nil {
		t.Fatal(err)
	}
	sig := stripepay.SignPayload(payload, secret, at)
	if tamper {
		payload = bytes.Replace(payload, []byte(`"livemode":false`), []byte(`"livemode":false `), 1)
	}
	return w.env.DoRaw(t, "POST", "/stripe-webhook/test", "", string(payload), "Stripe-Signature: "+sig)
}

func (w *world) deposit(t *testing.T, id string) map[string]any {
	t.Helper()
	return apitest.Want(t, w.do(t, "GET", "/v1/deposits/"+id, ""), 200, "")
}

func (w *world) leadDetail(t *testing.T, id string) map[string]any {
	t.Helper()
	return apitest.Want(t, w.do(t, "GET", "/v1/leads/"+id, ""), 200, "")
}
