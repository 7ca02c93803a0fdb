package viewerpage

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// TestExpiryInTheReadersZone opens the page in a browser set to Chicago's
// time: the link's expiry reads in Chicago's time with its zone named
// (10:15 UTC on 30 November is 4:15 AM CST), and the policy let the
// script run (the console check fails on a violation).
func TestExpiryInTheReadersZone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	site := viewerSite(t, newMediaServer(t))
	ctx, _ := startPhone(t, "about:blank")
	if _, err := chromedp.Call(within(t, ctx, 10*time.Second), emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/Chicago"}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(within(t, ctx, 15*time.Second), chromedp.Navigate(site+"/v/tok")); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.WaitFor(within(t, ctx, 10*time.Second), browser.RoleHeading, "Walkthrough video"); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(within(t, ctx, 5*time.Second), chromedp.Evaluate[string](`document.querySelector(".about p").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	want := "This link works until Monday, November 30, 2026 at 4:15 AM CST, unless Demo Movers turns it off sooner."
	if text = strings.Join(strings.Fields(strings.ReplaceAll(text, "\u202f", " ")), " "); text != want {
		t.Errorf("the page says %q; want %q", text, want)
	}
	htmltest.Shot(t, ctx, "viewer-chicago")
}
