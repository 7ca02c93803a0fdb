package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

func TestMain(m *testing.M) { os.Exit(browser.RunTests(m)) }

// api calls the running stack as its demo partner and decodes the JSON
// answer, failing unless it is want.
func api(t *testing.T, dev devfile.File, method, path, body string, want int) map[string]any {
	t.Helper()
	h := http.Header{"Authorization": {"Bearer " + dev.APIKey}, "Content-Type": {"application/json"}}
	status, _, b := send(t, method, dev.BaseURL+path, h, []byte(body))
	var m map[string]any
	if status != want || json.Unmarshal(b, &m) != nil {
		t.Fatalf("%s %s: %d %s; want %d", method, path, status, b, want)
	}
	return m
}

// depositToPay makes a lead with an accepted quote asking $250 and
// creates its deposit; it returns the lead and the deposit.
func depositToPay(t *testing.T, dev devfile.File) (leadID string, dep map[string]any) {
	t.Helper()
	leadID = api(t, dev, "POST", "/v1/leads", `{"customer_name":"Ada Lovelace","email":"ada@example.com"}`, 200)["lead_id"].(string)
	q := api(t, dev, "POST", "/v1/leads/"+leadID+"/quote", `{"estimate_type":"non_binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`, 200)
	api(t, dev, "POST", "/v1/leads/"+leadID+"/accept", `{"accepter_email":"ada@example.com"}`, 200)
	dep = api(t, dev, "POST", "/v1/deposits", fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, q["quote_share_link_id"]), 200)
	if u, _ := dep["checkout_url"].(string); !strings.HasPrefix(u, dev.BaseURL+stripelocal.CheckoutPath+"?session=cs_") {
		t.Fatalf("createDeposit's checkout_url %q; want make dev's page %s%s?session=cs_…", u, dev.BaseURL, stripelocal.CheckoutPath)
	}
	return leadID, dep
}

// checkCheckout pays one deposit on make dev's checkout page in Chromium,
// and fails and expires two more over HTTP: each time the deposit, the
// lead and the partner's webhooks follow, as with Stripe.
func checkCheckout(t *testing.T, dev devfile.File, hooks *hookLog) {
	t.Helper()
	leadID, dep := depositToPay(t, dev)
	payInBrowser(t, dep["checkout_url"].(string))
	depID := dep["deposit_id"].(string)
	if d := api(t, dev, "GET", "/v1/deposits/"+depID, "", 200); d["status"] != "paid" {
		t.Errorf("getDeposit after Pay: %v; want paid", d)
	}
	if l := api(t, dev, "GET", "/v1/leads/"+leadID, "", 200); l["status"] != "booked" {
		t.Errorf("getLead after Pay: status %v; want booked", l["status"])
	}
	hooks.wait(t, leadID, "deposit.paid", "lead.booked")

	noRedirect := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, outcome := range []string{"failed", "expired"} {
		leadID, dep := depositToPay(t, dev)
		u, _ := url.Parse(dep["checkout_url"].(string))
		resp, err := noRedirect.PostForm(dev.BaseURL+stripelocal.CheckoutPath, url.Values{"session": {u.Query().Get("session")}, "outcome": {outcome}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, dev.BaseURL+"/v1-quote/") || strings.Contains(loc, "checkout=done") {
			t.Errorf("%s: %d to %q; want 303 to the quote page (the cancel URL)", outcome, resp.StatusCode, loc)
		}
		if d := api(t, dev, "GET", "/v1/deposits/"+dep["deposit_id"].(string), "", 200); d["status"] != "failed" || d["checkout_url"] != nil {
			t.Errorf("getDeposit after %s: %v; want failed without a checkout_url", outcome, d)
		}
		if l := api(t, dev, "GET", "/v1/leads/"+leadID, "", 200); l["status"] == "booked" {
			t.Errorf("getLead after %s: booked", outcome)
		}
		hooks.wait(t, leadID, "deposit.failed")
	}
}

// payInBrowser opens the checkout page as a phone, keeps screenshots in
// $SCREENSHOT_DIR when set, taps Pay and waits for the quote page Stripe
// would send the customer back to.
func payInBrowser(t *testing.T, checkoutURL string) {
	t.Helper()
	ctx, cancel, err := browser.Start(context.Background(), browser.Logf(t.Logf))
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	ctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	if err := chromedp.Do(ctx, browser.Phone(), chromedp.Navigate(checkoutURL)); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(ctx, "Local test page, not Stripe"); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
		if err := browser.ScreenshotViewport(ctx, filepath.Join(dir, "devstack-checkout-phone.png"), 1); err != nil {
			t.Error(err)
		}
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err == nil {
			_ = browser.ScreenshotViewport(ctx, filepath.Join(dir, "devstack-checkout-desktop.png"), 1)
		}
	}
	if err := browser.Click(ctx, "button", "Pay (succeeds)"); err != nil {
		t.Fatal(err)
	}
	for {
		loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
		if err != nil {
			t.Fatalf("after Pay: %v", err)
		}
		if strings.Contains(loc, "/v1-quote/") && strings.HasSuffix(loc, "?checkout=done") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("after Pay the browser is at %s; want the quote page's ?checkout=done (the success URL)", loc)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
