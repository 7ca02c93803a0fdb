package quotepage

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// cdpCall sends one DevTools command to the page.
func cdpCall[P any](ctx context.Context, c cdp.Command[P, cdp.Empty], p P) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, c, p)
		return err
	}))
}

// visibleText is the page's rendered text (innerText: what is shown, for
// the media emulated).
func visibleText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(htmltest.Within(t, ctx, 5*time.Second), chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestConsentErrorClearsWhenTicked submits the signing form with the
// consent box unticked, then ticks it: its error goes at once.
func TestConsentErrorClearsWhenTicked(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("bind", bindingPage())
	ctx := openPhone(t, f, "/v1-quote/bind")
	step := htmltest.Within(t, ctx, 10*time.Second)
	if err := browser.Click(step, browser.RoleButton, "Sign and accept quote"); err != nil {
		t.Fatal(err)
	}
	if got := fieldError(t, ctx, "esign-consent-error"); got != "Tick the box to agree to sign electronically." {
		t.Fatalf("consent error %q; want the tick-the-box error", got)
	}
	if err := browser.Click(step, browser.RoleCheckbox, "I agree to sign electronically"); err != nil {
		t.Fatal(err)
	}
	if got := fieldError(t, ctx, "esign-consent-error"); got != "" {
		t.Errorf("consent error after ticking the box = %q; want none", got)
	}
	if got := fieldError(t, ctx, "signature-error"); got == "" {
		t.Error("the signature's error went too; only the consent's was put right")
	}
}

// TestMoveAndLiabilityCostsShown opens a binding quote: the move, its
// inventory with quantities, the special items, the services and each
// liability option's cost are on the page.
func TestMoveAndLiabilityCostsShown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("bind", bindingPage())
	ctx := openPhone(t, f, "/v1-quote/bind")
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "Your move"); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(visibleText(t, ctx)), " ")
	for _, w := range []string{
		"1 Main St, New York, NY 10001", "9 Oak Ave, Boston, MA 02108", "Friday, January 15, 2027",
		"Living room Sofa, 3 seats × 1 Armchair × 2", "Bedroom Bed, queen × 1", "Nightstand × 2",
		"Piano (upright)", "Packing of fragile items", "Disassembly and reassembly of beds",
		"Cost: $450.00 on top of the price.", "Cost: included in the price, at no extra cost.",
		"unless you add items or services to those listed under “Your move”",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not show %q:\n%s", w, text)
		}
	}
}

// TestSignedCopyPrints opens a signed quote and prints it (print media
// emulated): the copy shows the terms, the signature image, the evidence
// hash and the time, in the reader's time zone, and nothing to tap.
func TestSignedCopyPrints(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	p := signedPage()
	p.DepositStatus = DepositPending
	f.add("signed", p)
	ctx := openPhone(t, f, "/v1-quote/signed")
	if err := cdpCall(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/Chicago"}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(htmltest.Within(t, ctx, 10*time.Second), chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleButton, "Print or save your signed copy"); err != nil {
		t.Fatal(err)
	}
	if err := cdpCall(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatal(err)
	}
	text := visibleText(t, ctx)
	for _, w := range []string{
		"Your signed copy", "Ada Lovelace (ada@example.com)", "Full value protection",
		"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
		"November 20, 2026", "3:05", "CST", // 16:05 EST is 15:05 in Chicago
		"$2,450.00", "1 Main St, New York, NY 10001", "Armchair", "Packing of fragile items",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the printed copy lacks %q:\n%s", w, text)
		}
	}
	for _, not := range []string{"Print or save your signed copy", "Pay deposit"} {
		if strings.Contains(text, not) {
			t.Errorf("the printed copy shows %q", not)
		}
	}
	// Every time on the page is in Chicago's time, in htmlpage.FormatTime's
	// words with the zone named, as on the other pages.
	times, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("time")].map(e => e.textContent)`))
	if err != nil || len(times) != 2 {
		t.Fatalf("times shown %q, %v; want the signing time twice (done, signed copy)", times, err)
	}
	for _, s := range times {
		if s != "Friday, November 20, 2026 at 3:05 PM CST" {
			t.Errorf("time shown %q; want %q", s, "Friday, November 20, 2026 at 3:05 PM CST")
		}
	}
	w, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const i = document.getElementById("copy-signature"); return i && i.complete ? i.naturalWidth : 0; })()`))
	if err != nil || w != 60 {
		t.Errorf("signature image natural width %v, %v; want the 60 px PNG, loaded", w, err)
	}
	htmltest.Shot(t, ctx, "signed-copy-print-phone")
}
