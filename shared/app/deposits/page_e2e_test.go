package deposits_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/app/deposits"
	"github.com/moveleads/partnerapi/shared/app/quotes"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
	"github.com/moveleads/partnerapi/shared/testkit/quotepagetest"
)

// The tests in this file open the real quote page, served by the real
// stack (DynamoDB Local, MinIO, stripe-mock behind stripeProxy), in
// headless Chromium sized as a phone, and do what a customer does: sign
// or accept, pay, come back. What the page did is then checked through
// the API and the store.

// fakeCheckout stands in for Stripe's hosted checkout page: it serves
// "Fake checkout" at /<session id> and records the paths opened.
type fakeCheckout struct {
	srv    *httptest.Server
	mu     sync.Mutex
	opened []string
}

// newFakeCheckout starts a fake checkout and makes w's Stripe answer
// checkout URLs on it.
func newFakeCheckout(t *testing.T, w *world) *fakeCheckout {
	t.Helper()
	f := &fakeCheckout{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.opened = append(f.opened, r.URL.Path)
		f.mu.Unlock()
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(rw, `<!doctype html><link rel="icon" href="data:,"><title>Checkout</title><h1>Fake checkout</h1>`)
	}))
	t.Cleanup(f.srv.Close)
	w.stripe.mu.Lock()
	w.stripe.checkoutBase = f.srv.URL
	w.stripe.mu.Unlock()
	return f
}

func (f *fakeCheckout) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.opened...)
}

// openPhone starts Chromium with a phone-sized tab (browser.Phone) on url.
// The test fails on a console error, an exception or a
// Content-Security-Policy violation, but for the lines that contain one of
// allow (the statuses a test causes on purpose).
func openPhone(t *testing.T, url string, allow ...string) context.Context {
	t.Helper()
	ctx, _ := htmltest.StartPhone(t, url, "", allow...)
	return ctx
}

// navigate opens url in the tab and waits for its load.
func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(htmltest.Within(t, ctx, 15*time.Second), chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
}

// waitText waits up to 10 s for the page to show text.
func waitText(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	if err := browser.WaitText(htmltest.Within(t, ctx, 10*time.Second), text); err != nil {
		t.Fatal(err)
	}
}

// waitHeading waits up to 10 s for the heading named name.
func waitHeading(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, name); err != nil {
		t.Fatal(err)
	}
}

// click clicks the control with the role and name, with the mouse.
func click(t *testing.T, ctx context.Context, role, name string) {
	t.Helper()
	if err := browser.Click(htmltest.Within(t, ctx, 10*time.Second), role, name); err != nil {
		t.Fatal(err)
	}
}

// TestPageSignPayAndPaidInChromium signs a binding quote with a deposit
// on its real page, drawing the signature with the mouse; checks the
// acceptance and its evidence through the API and the store; pays, which
// reaches the checkout the deposit made; reloads, which links straight to
// that checkout without making another; and after Stripe's paid event
// finds the page, and the page Stripe sends the customer back to, saying
// the move is booked.
func TestPageSignPayAndPaidInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	w := newWorld(t)
	checkout := newFakeCheckout(t, w)
	leadID := w.lead(t)
	q := w.quote(t, leadID, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000}`)
	quoteURL := q["quote_url"].(string)
	// Chromium reports the 410 of the expired links at the end on the
	// console.
	ctx := openPhone(t, quoteURL, "the server responded with a status of 410")

	waitHeading(t, ctx, "Sign this quote")
	for _, s := range []string{"Acme Movers", "Acme Moving LLC", "USDOT 1234567", "$2,450.00", "$250.00", "Valid until"} {
		waitText(t, ctx, s)
	}
	htmltest.Shot(t, ctx, "binding-open")

	step := htmltest.Within(t, ctx, 10*time.Second)
	if err := browser.Fill(step, browser.RoleTextbox, "Full name", "Ada Lovelace"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Fill(step, browser.RoleTextbox, "Email address", "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	quotepagetest.DrawSignature(t, ctx)
	click(t, ctx, browser.RoleCheckbox, "I agree to sign electronically")
	click(t, ctx, "radio", "Full value protection")
	click(t, ctx, browser.RoleButton, "Sign and accept quote")
	waitHeading(t, ctx, "Quote signed")
	waitText(t, ctx, "Thank you. Acme Movers has your signed quote.")
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Pay deposit of $250.00"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "binding-signed-deposit-due")

	// The acceptance, through the API.
	l := w.leadDetail(t, leadID)
	lq := l["quote"].(map[string]any)
	if l["status"] != "accepted" || lq["stage"] != "signed" || lq["signed_at"] == nil {
		t.Fatalf("getLead after signing in the browser = %v", l)
	}
	// The evidence, in the store: the browser's address and user agent,
	// a hash that verifies, the drawn signature in the bucket.
	ua, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.userAgent`))
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	qr, err := w.env.Store.GetQuote(bg, w.tenant, leadID, q["quote_id"].(string))
	if err != nil || qr.Acceptance == nil || qr.Acceptance.Evidence == nil {
		t.Fatalf("stored quote %+v, %v; want its evidence", qr, err)
	}
	ev := qr.Acceptance.Evidence
	if ev.Hash() != qr.Acceptance.EvidenceHash || ev.ShownHash != qr.ShownHash() {
		t.Errorf("evidence hash %s, shown %s; the evidence hashes to %s, the quote shown to %s",
			qr.Acceptance.EvidenceHash, ev.ShownHash, ev.Hash(), qr.ShownHash())
	}
	if ev.IP == "" || ev.UserAgent != ua || !strings.Contains(ua, "Chrome") {
		t.Errorf("evidence IP %q, user agent %q; want an address and Chromium's %q", ev.IP, ev.UserAgent, ua)
	}
	if ev.SignerName != "Ada Lovelace" || ev.SignerEmail != "ada@example.com" || string(ev.LiabilityElection) != "full_value_protection" || !ev.ConsentChecked {
		t.Errorf("evidence %+v; want what was entered in the form", ev)
	}
	if _, err := w.env.S3.HeadObject(bg, &s3.HeadObjectInput{Bucket: &w.env.Bucket, Key: &ev.SignatureKey}); err != nil {
		t.Fatalf("signature image %s: %v", ev.SignatureKey, err)
	}
	// MinIO sends no checksum to validate; the SHA-256 check below is the
	// test's own, so the SDK's note about it is left out of the log.
	obj, err := w.env.S3.GetObject(bg, &s3.GetObjectInput{Bucket: &w.env.Bucket, Key: &ev.SignatureKey},
		func(o *s3.Options) { o.DisableLogOutputChecksumValidationSkipped = true })
	if err != nil {
		t.Fatal(err)
	}
	img, err := io.ReadAll(obj.Body)
	obj.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(img)
	if hex.EncodeToString(sum[:]) != ev.SignatureSHA256 {
		t.Errorf("the stored image's SHA-256 is not the evidence's %s", ev.SignatureSHA256)
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Errorf("the stored signature is not a PNG: %v", err)
	}

	// Pay: the page asks for a deposit, and the browser goes to its
	// checkout.
	click(t, ctx, browser.RoleButton, "Pay deposit of $250.00")
	loc := htmltest.WaitLocation(t, ctx, checkout.srv.URL+"/")
	waitHeading(t, ctx, "Fake checkout")
	ql, err := w.env.Store.GetQuoteLead(bg, w.tenant, leadID)
	if err != nil || ql.Deposit == nil {
		t.Fatalf("lead after Pay: %+v, %v; want a deposit", ql, err)
	}
	d, err := w.env.Store.GetDeposit(bg, w.tenant, ql.Deposit.DepositID)
	if err != nil {
		t.Fatal(err)
	}
	if want := checkout.srv.URL + "/" + d.SessionID; loc != want || d.CheckoutURL != want {
		t.Errorf("the browser went to %s; the deposit's session %s has checkout %s", loc, d.SessionID, d.CheckoutURL)
	}
	if d.AmountCents != 25000 || d.Status != deposit.CheckoutOpen {
		t.Errorf("deposit %+v; want 25000 cents, checkout open", d)
	}
	if n := w.stripe.count("POST"); n != 1 {
		t.Errorf("%d checkouts created; want 1", n)
	}
	l = w.leadDetail(t, leadID)
	if l["status"] != "deposit_pending" || l["deposit"].(map[string]any)["status"] != "pending" {
		t.Errorf("getLead after Pay = %v", l)
	}
	// The customer started it: getLead names it for getDeposit, and
	// createDeposit with the quote's share link returns it too.
	if ld := l["deposit"].(map[string]any); ld["deposit_id"] != d.ID || l["quote"].(map[string]any)["quote_share_link_id"] != q["quote_share_link_id"] {
		t.Errorf("getLead after Pay = %v; want deposit_id %s and the quote's share link", l, d.ID)
	}
	if g := w.deposit(t, d.ID); g["status"] != "pending" {
		t.Errorf("getDeposit of the page's deposit = %v", g)
	}
	again := apitest.Want(t, w.do(t, "POST", "/v1/deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"])), 200, "")
	if again["deposit_id"] != d.ID || w.stripe.count("POST") != 1 {
		t.Errorf("createDeposit after the page's Pay = %v; want its open deposit %s, no new checkout", again, d.ID)
	}

	// Back on the quote page: it links straight to the open checkout.
	navigate(t, ctx, quoteURL)
	waitHeading(t, ctx, "Quote signed")
	waitText(t, ctx, "You signed this quote on")
	if _, err := browser.Find(ctx, browser.RoleButton, "Pay deposit of $250.00"); err == nil {
		t.Error("the page offers to start a new checkout while one is open")
	}
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("pay-link").href`))
	if err != nil || href != d.CheckoutURL {
		t.Errorf("the Pay link goes to %q (%v); want the open checkout %s", href, err, d.CheckoutURL)
	}
	htmltest.Shot(t, ctx, "binding-signed-checkout-open")
	click(t, ctx, browser.RoleLink, "Pay deposit of $250.00")
	if loc := htmltest.WaitLocation(t, ctx, checkout.srv.URL+"/"); loc != d.CheckoutURL {
		t.Errorf("the Pay link went to %s; want %s", loc, d.CheckoutURL)
	}
	if n := w.stripe.count("POST"); n != 1 {
		t.Errorf("%d checkouts created after the reload; want still 1", n)
	}
	if p := checkout.paths(); len(p) != 2 || p[0] != "/"+d.SessionID || p[1] != p[0] {
		t.Errorf("checkout pages opened %v; want /%s twice", p, d.SessionID)
	}

	// Stripe says paid: the page says the move is booked, and so does the
	// page Stripe sends the customer back to.
	apitest.Want(t, w.deliver(t, d.ID, deposit.EventPaid, "evt_page_paid_1", apitest.StripeWebhookSecret, time.Time{}, false), 200, "")
	if l := w.leadDetail(t, leadID); l["status"] != "booked" || l["deposit"].(map[string]any)["status"] != "paid" {
		t.Errorf("getLead after paid = %v", l)
	}
	navigate(t, ctx, quoteURL)
	waitText(t, ctx, "Deposit received — your move is booked")
	waitText(t, ctx, "Acme Movers has your deposit of $250.00.")
	if _, err := browser.Find(ctx, browser.RoleButton, "Pay deposit of $250.00"); err == nil {
		t.Error("a paid deposit's page offers to pay")
	}
	if _, err := browser.Find(ctx, browser.RoleLink, "Pay deposit of $250.00"); err == nil {
		t.Error("a paid deposit's page links to the checkout")
	}
	htmltest.Shot(t, ctx, "binding-paid")
	var success string
	for _, r := range w.stripe.recorded() {
		if r.Method == "POST" {
			success = r.Form.Get("success_url")
		}
	}
	if !strings.HasPrefix(success, w.env.Server.URL+"/v1-quote/") {
		t.Fatalf("success_url %q; want a quote page on %s", success, w.env.Server.URL)
	}
	navigate(t, ctx, success)
	waitText(t, ctx, "Deposit received — your move is booked")
	if s := htmltest.DocumentStatus(t, ctx); s != 200 {
		t.Errorf("return page status %d; want 200", s)
	}

	// Long after, both links have expired: the page still tells the booked
	// customer the move is booked instead of sending them for a new quote.
	exp, err := time.Parse(time.RFC3339, q["expires_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	late := exp.Add(quotes.TokenAfterExpiry)
	if r := w.env.Clock.Now().Add(deposits.ReturnTokenLifetime); r.After(late) {
		late = r
	}
	w.env.Clock.Set(late.Add(time.Hour))
	for _, u := range []string{quoteURL, success} {
		navigate(t, ctx, u)
		waitHeading(t, ctx, "Your move is booked")
		waitText(t, ctx, "your move with Acme Movers is booked")
		if s := htmltest.DocumentStatus(t, ctx); s != 410 {
			t.Errorf("expired link of a booked move: status %d; want 410", s)
		}
	}
	htmltest.Shot(t, ctx, "booked-link-expired")
}

// TestPageAcceptNonBindingInChromium accepts a non-binding quote with an
// email address on its real page.
func TestPageAcceptNonBindingInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	w := newWorld(t)
	leadID := w.lead(t)
	q := w.quote(t, leadID, `{"estimate_type":"non_binding","price_cents":180000}`)
	ctx := openPhone(t, q["quote_url"].(string))
	waitHeading(t, ctx, "Accept this quote")
	waitText(t, ctx, "$1,800.00")
	htmltest.Shot(t, ctx, "nonbinding-open")
	if err := browser.Fill(htmltest.Within(t, ctx, 10*time.Second), browser.RoleTextbox, "Email address", "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, browser.RoleButton, "Accept quote")
	waitHeading(t, ctx, "Quote accepted")
	waitText(t, ctx, "No deposit is needed. Acme Movers will be in touch to confirm your moving date.")
	htmltest.Shot(t, ctx, "nonbinding-accepted")
	l := w.leadDetail(t, leadID)
	lq := l["quote"].(map[string]any)
	if l["status"] != "accepted" || lq["stage"] != "accepted" || lq["accepted_at"] == nil || lq["signed_at"] != nil {
		t.Errorf("getLead after accepting in the browser = %v", l)
	}
	// Reloaded, the page shows the acceptance, not the form.
	navigate(t, ctx, q["quote_url"].(string))
	waitHeading(t, ctx, "Quote accepted")
	waitText(t, ctx, "You accepted this quote on")
	if _, err := browser.Find(ctx, browser.RoleButton, "Accept quote"); err == nil {
		t.Error("an accepted quote's page still offers to accept it")
	}
}

// TestPageErrorsInChromium: a link nobody was given shows the 404 page; a
// quote past its expiry shows that it expired; a link past the quote's
// expiry and quotes.TokenAfterExpiry shows the 410 page.
func TestPageErrorsInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	w := newWorld(t)
	unknown := w.env.Server.URL + quotes.PagePath("Zm9yZ2VkLXRva2VuLXRoYXQtbm9ib2R5LXdhcy1naXZlbg")
	// Chromium reports the error pages' statuses on the console.
	ctx := openPhone(t, unknown, "the server responded with a status of 404", "the server responded with a status of 410")
	waitHeading(t, ctx, "We can’t find this quote")
	waitText(t, ctx, "Check that you opened the whole link")
	if s := htmltest.DocumentStatus(t, ctx); s != 404 {
		t.Errorf("unknown link status %d; want 404", s)
	}
	htmltest.Shot(t, ctx, "error-404")

	leadID := w.lead(t)
	q := w.quote(t, leadID, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":7}`)
	exp, err := time.Parse(time.RFC3339, q["expires_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	w.env.Clock.Set(exp.Add(time.Hour))
	navigate(t, ctx, q["quote_url"].(string))
	waitHeading(t, ctx, "This quote has expired")
	if s := htmltest.DocumentStatus(t, ctx); s != 200 {
		t.Errorf("expired quote's page status %d; want 200", s)
	}
	if _, err := browser.Find(ctx, browser.RoleButton, "Sign and accept quote"); err == nil {
		t.Error("an expired quote's page offers to sign")
	}
	htmltest.Shot(t, ctx, "binding-expired")

	w.env.Clock.Set(exp.Add(quotes.TokenAfterExpiry + time.Hour))
	navigate(t, ctx, q["quote_url"].(string))
	waitHeading(t, ctx, "This quote link has expired")
	waitText(t, ctx, "please ask Acme Movers for a new quote")
	if s := htmltest.DocumentStatus(t, ctx); s != 410 {
		t.Errorf("expired link status %d; want 410", s)
	}
	htmltest.Shot(t, ctx, "error-410")
}

// TestPageBetaOffInChromium: with the partner's deposits beta off, an
// open quote's page says online acceptance is unavailable and whom to
// contact, with status 403 and no button to sign or pay.
func TestPageBetaOffInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	w := newWorld(t)
	w.env.Clock.Set(time.Now())
	leadID := w.lead(t)
	q := w.quote(t, leadID, `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000}`)
	w.betaOff(t)
	// Chromium reports the page's status on the console.
	ctx := openPhone(t, q["quote_url"].(string), "the server responded with a status of 403")
	waitHeading(t, ctx, "Online acceptance is unavailable")
	waitText(t, ctx, "To go ahead with your move, please contact Acme Movers directly.")
	if s := htmltest.DocumentStatus(t, ctx); s != 403 {
		t.Errorf("page with the beta off: status %d; want 403", s)
	}
	for _, name := range []string{"Sign and accept quote", "Pay deposit of $250.00"} {
		if _, err := browser.Find(ctx, browser.RoleButton, name); err == nil {
			t.Errorf("the page offers %q with the beta off", name)
		}
	}
	htmltest.Shot(t, ctx, "beta-off")
	// The same page on a desktop screen.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "beta-off-desktop")
}
