package dashboardapp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// TestDevelopersFlow: in Chromium with a virtual authenticator, an
// invited admin signs in with a new passkey, creates a test key on the
// API keys page (shown once), the API accepts it; revoking it after the
// confirmation naming it makes the API answer 401. Each Developers page
// passes axe-core at 390×844 with no serious or critical violation.
func TestDevelopersFlow(t *testing.T) {
	t.Parallel() // mostly waiting on the browser; its own table and tab
	env := newEnv(t)
	serveLocalhost(t, env)
	site := origin(env)
	partnerID := env.NewPartner(t, "Demo Movers")
	path, _ := invite(t, env, partnerID, "ada@demo.example", dashboard.Admin)
	ctx := passkeyTab(t)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(within(t, ctx, 20*time.Second), actions...); err != nil {
			text, _ := browser.Text(ctx)
			t.Fatalf("%s: %v (page: %.400s)", name, err, text)
		}
	}
	must := func(name string, err error) {
		t.Helper()
		if err != nil {
			text, _ := browser.Text(ctx)
			t.Fatalf("%s: %v (page: %.600s)", name, err, text)
		}
	}
	step("open the invitation", browser.Phone(), chromedp.Navigate(site+path))
	must("create a passkey", browser.Click(within(t, ctx, 10*time.Second), "button", "Create a passkey"))
	must("signed in", browser.WaitText(within(t, ctx, 20*time.Second), "You are signed in as ada@demo.example"))

	step("open API keys", chromedp.Navigate(site+"/dashboard/developers/keys"))
	must("create key", browser.Click(within(t, ctx, 10*time.Second), "button", "Create key"))
	must("key shown", browser.WaitText(within(t, ctx, 10*time.Second), "only time it is shown"))
	key, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("secret").textContent`))
	must("read the key", err)
	if !strings.HasPrefix(key, "mlk_test_") && !strings.Contains(key, "test") {
		t.Fatalf("shown key %q is not a test key", key)
	}
	checkPage(t, ctx, "keys-created")
	if r := env.Do(t, "GET", "/v1/leads", key, ""); r.Status != 200 {
		t.Fatalf("the new key: %d %s", r.Status, r.Body)
	}
	keys, err := env.Store.ListKeys(t.Context(), partnerID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys: %v %v", keys, err)
	}
	step("reload API keys", chromedp.Navigate(site+"/dashboard/developers/keys"))
	must("open the confirmation", browser.Click(within(t, ctx, 10*time.Second), "group", ""))
	must("revoke", browser.Click(within(t, ctx, 10*time.Second), "button", "Revoke key "+keys[0].KeyID))
	must("revoked", browser.WaitText(within(t, ctx, 10*time.Second), "revoked"))
	if r := env.Do(t, "GET", "/v1/leads", key, ""); r.Status != 401 {
		t.Errorf("revoked key: %d; want 401", r.Status)
	}
	checkPage(t, ctx, "keys")

	for _, p := range []struct{ name, path, text string }{
		{"webhooks", "/dashboard/developers/webhooks", "Add an endpoint"},
		{"events", "/dashboard/developers/events", "newest first"},
	} {
		step("open "+p.name, chromedp.Navigate(site+p.path))
		must(p.name, browser.WaitText(within(t, ctx, 10*time.Second), p.text))
		checkPage(t, ctx, p.name)
	}
}

// checkPage runs axe-core on the tab's page at 390×844 and at 1280×800
// and writes screenshots of both when SCREENSHOT_DIR is set.
func checkPage(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	atBothSizes(t, ctx, name, func(size string) { shot(t, ctx, "developers-"+name+"-"+size) })
}

// atBothSizes runs axe-core on the tab's page at 390×844 ("phone") and at
// 1280×800 ("desktop"), failing t on a serious or critical violation,
// calls after(size) at each size (a screenshot), and leaves the tab at the
// phone's size.
func atBothSizes(t *testing.T, ctx context.Context, name string, after func(size string)) {
	t.Helper()
	for _, size := range []struct {
		suffix string
		act    chromedp.Action[chromedp.Void]
	}{{"phone", browser.Phone()}, {"desktop", chromedp.EmulateViewport(1280, 800)}} {
		if err := chromedp.Do(within(t, ctx, 10*time.Second), size.act); err != nil {
			t.Fatal(err)
		}
		vs, err := browser.CheckAccessibility(within(t, ctx, 60*time.Second))
		if err != nil {
			t.Fatalf("axe on %s: %v", name, err)
		}
		for _, v := range vs {
			t.Errorf("axe on %s (%s): %s", name, size.suffix, v)
		}
		t.Logf("axe on %s (%s): %d serious or critical violations", name, size.suffix, len(vs))
		after(size.suffix)
	}
	if err := chromedp.Do(within(t, ctx, 10*time.Second), browser.Phone()); err != nil {
		t.Fatal(err)
	}
}
