package dashboardapp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// checkA11y runs axe-core on the tab's page: no serious or critical
// violation.
func checkA11y(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	vs, err := browser.CheckAccessibility(within(t, ctx, 30*time.Second))
	if err != nil {
		t.Fatalf("axe on %s: %v", page, err)
	}
	for _, v := range vs {
		t.Errorf("axe on %s: %s", page, v)
	}
	t.Logf("axe on %s: %d serious or critical violations", page, len(vs))
}

// shots writes the page at the phone size and at 1280×800.
func shots(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot(t, ctx, name+"-390")
	if _, err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, name+"-1280")
	if _, err := chromedp.Run(ctx, browser.Phone()); err != nil {
		t.Fatal(err)
	}
}

// TestLeadsFlow: in Chromium at 390×844, an invited admin signs in with
// a passkey, finds the lead of a finished survey on Leads, opens it and
// its clip plays from MinIO through the presigned address (readyState ≥
// 2); both pages pass axe-core; switched to live, no test lead is shown.
func TestLeadsFlow(t *testing.T) {
	t.Parallel() // mostly waiting on the browser; its own table, bucket and tab
	env := apitest.New(t, apitest.Options{S3: true, Parallel: true})
	serveLocalhost(t, env)
	site := origin(env)
	partnerID := env.NewPartner(t, "Demo Movers")
	key, _ := env.NewKey(t, partnerID, auth.Test)
	sv := env.PlayableSurvey(t, key, apitest.WebMClip)
	path, _ := invite(t, env, partnerID, "office@demo.example", dashboard.Viewer)
	ctx := passkeyTab(t)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(within(t, ctx, 20*time.Second), actions...); err != nil {
			text, _ := browser.Text(ctx)
			t.Fatalf("%s: %v (page: %.400s)", name, err, text)
		}
	}
	step("phone size", browser.Phone())
	step("open the invitation", chromedp.Navigate(site+path))
	if err := browser.Click(within(t, ctx, 10*time.Second), "button", "Create a passkey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(within(t, ctx, 20*time.Second), "You are signed in as office@demo.example"); err != nil {
		t.Fatal(err)
	}
	step("open Leads", chromedp.Navigate(site+"/dashboard/leads"))
	if err := browser.WaitText(within(t, ctx, 10*time.Second), "Ada"); err != nil {
		text, _ := browser.Text(ctx)
		t.Fatalf("leads page: %v (page: %.400s)", err, text)
	}
	checkA11y(t, ctx, "leads")
	shots(t, ctx, "leads")
	if err := browser.Click(within(t, ctx, 10*time.Second), "link", "Ada"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(within(t, ctx, 10*time.Second), "Clip 1 of 1: Kitchen"); err != nil {
		text, _ := browser.Text(ctx)
		t.Fatalf("lead page: %v (page: %.600s)", err, text)
	}
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`)); err != nil || got != "/dashboard/leads/"+sv.LeadID {
		t.Errorf("lead page at %q (%v); want /dashboard/leads/%s", got, err, sv.LeadID)
	}
	ready := 0
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelector("video").readyState`))
		if err != nil {
			t.Fatal(err)
		}
		if ready = n; ready >= 2 {
			break
		}
	}
	if ready < 2 {
		src, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("video").currentSrc + " error " + (document.querySelector("video").error && document.querySelector("video").error.message)`))
		t.Fatalf("video readyState %d; want ≥ 2 (source %s)", ready, src)
	}
	checkA11y(t, ctx, "lead")
	shots(t, ctx, "lead")
	if err := browser.Click(within(t, ctx, 10*time.Second), "button", "Switch to live"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(within(t, ctx, 10*time.Second), "You are looking at live data"); err != nil {
		t.Fatal(err)
	}
	step("open live Leads", chromedp.Navigate(site+"/dashboard/leads"))
	if err := browser.WaitText(within(t, ctx, 10*time.Second), "No live leads match"); err != nil {
		t.Fatal(err)
	}
	if text, _ := browser.Text(ctx); strings.Contains(text, "Ada") {
		t.Errorf("live Leads shows the test lead: %.300s", text)
	}
}
