package surveys_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// TestE2ERejectedClipVerdictShowsWithoutAReload: the customer sends a file
// that is no video; the real processor (MinIO's notification) rejects it,
// and the page, without a reload, names the clip (room and time, in the
// customer's time zone) and says in plain words why it could not be used.
// The clip gives its place back, finishing warns that no video can be
// used, and the thank-you page says the mover will get in touch.
func TestE2ERejectedClipVerdictShowsWithoutAReload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel() // mostly waiting (recording, uploads, detection); its own table, bucket, tab or sidecar
	browser.Require(t)
	ctx, cancelAll := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancelAll()

	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	captureURL := e.link(t, leadID)["capture_url"].(string)
	notVideo := filepath.Join(t.TempDir(), "kitchen.webm")
	if err := os.WriteFile(notVideo, []byte(strings.Repeat("this is not a video ", 200)), 0o644); err != nil {
		t.Fatal(err)
	}

	log := &pageLog{t: t}
	bctx, cancelBrowser, err := browser.Start(ctx, browser.Logf(log.logf))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancelBrowser(); log.check() }()
	step := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(bctx, d)
		t.Cleanup(cancel)
		return c
	}
	if _, err := chromedp.Call(step(10*time.Second), emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/Chicago"}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(step(30*time.Second), browser.Phone(), chromedp.Navigate(captureURL)); err != nil {
		t.Fatalf("open %s: %v", captureURL, err)
	}
	if _, err := browser.WaitFor(step(15*time.Second), browser.RoleButton, "Start recording"); err != nil {
		t.Fatal(err)
	}
	pickRoom(t, step(5*time.Second), "Kitchen")
	if err := browser.SetFiles(step(10*time.Second), "Upload a video", notVideo); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(60*time.Second), "Could not be used. This is not a video we can play. Please film the Kitchen again."); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(10*time.Second), "0 of 20 clips used"); err != nil {
		t.Error(err)
	}
	// The clip's row and the link's expiry are in Chicago's time, named.
	times, err := chromedp.Run(step(5*time.Second), chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll(".clip time, #expires")).map(function (e) { return e.textContent; })`))
	if err != nil || len(times) != 2 {
		t.Fatalf("times %q, %v; want the clip's and the expiry", times, err)
	}
	for _, s := range times {
		if !strings.HasSuffix(s, " CST") && !strings.HasSuffix(s, " CDT") || !strings.Contains(s, ", 20") {
			t.Errorf("time %q; want the full date in Chicago's zone, named (CST or CDT)", s)
		}
	}
	shot(t, bctx, "rejected-clip")

	if err := browser.Click(step(10*time.Second), browser.RoleButton, "Finish survey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(10*time.Second), "None of your videos could be used"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(step(10*time.Second), browser.RoleButton, "Finish without video"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(30*time.Second), "Thanks! We did not get a video we can use, so Demo Movers will contact you about your estimate."); err != nil {
		t.Fatal(err)
	}
}
