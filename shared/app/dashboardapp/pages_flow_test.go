package dashboardapp_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// everyPage is each dashboard page a person sees, by the name of its
// screenshots in docs/dashboard-screenshots (make screenshots).
var everyPage = []string{
	"sign-in", "invitation", "home", "people", "audit",
	"keys", "webhooks", "webhook", "events", "event",
	"leads", "lead", "not-found",
}

// TestEveryPage opens every dashboard page in Chromium, signed in as an
// admin with a passkey, and runs axe-core on each at 390×844 and at
// 1280×800: no serious or critical violation. With SCREENSHOT_DIR set
// (make screenshots) it writes both sizes of each page there.
func TestEveryPage(t *testing.T) {
	t.Parallel() // waiting on the browser; its own table and tab
	env := newEnv(t)
	serveLocalhost(t, env)
	site := origin(env)
	partnerID := env.NewPartner(t, "Demo Movers")
	path, _ := invite(t, env, partnerID, "ada@demo.example", dashboard.Admin)
	// What the pages list: a colleague, an endpoint that was sent a test event, a lead with an event.
	join(t, env, partnerID, "grace@demo.example", dashboard.Viewer)
	admin := join(t, env, partnerID, "admin@demo.example", dashboard.Admin)
	if r := formPost(t, env, "/dashboard/developers/webhooks/add", admin, url.Values{"url": {"https://hooks.demo.example/in"}}); r.Status != 200 {
		t.Fatalf("add an endpoint: %d %.300s", r.Status, r.Body)
	}
	eps, err := env.Store.TenantEndpoints(context.Background(), auth.Tenant{PartnerID: partnerID, Mode: auth.Test})
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints: %v %v", eps, err)
	}
	endpoint := "/dashboard/developers/webhooks/" + eps[0].ID
	if r := formPost(t, env, endpoint+"/test", admin, url.Values{}); r.Status >= 400 {
		t.Fatalf("send a test event: %d %.300s", r.Status, r.Body)
	}
	leadID := putLead(t, env, partnerID, auth.Test, "Ada Lovelace")
	// The lead's quote, accepted, as its page shows it to office staff.
	if _, err := env.Store.SetBeta(context.Background(), partnerID, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	key, _ := env.NewKey(t, partnerID, auth.Test)
	apitest.Want(t, env.Do(t, "POST", "/v1/leads/"+leadID+"/quote", key, `{"estimate_type":"non_binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`), 200, "")
	apitest.Want(t, env.Do(t, "POST", "/v1/leads/"+leadID+"/accept", key, `{"accepter_email":"ada@example.com"}`), 200, "")
	tn := auth.Tenant{PartnerID: partnerID, Mode: auth.Test}
	ev := webhook.Event{ID: "evt_" + uuid.NewString() + "_survey.completed", Type: webhook.SurveyCompleted, Mode: string(auth.Test),
		At: env.Clock.Now().Add(-time.Hour), LeadID: leadID, Data: json.RawMessage(`{"lead_id":"` + leadID + `","mode":"test"}`)}
	if _, err := env.Store.PutEvent(context.Background(), tn, ev); err != nil {
		t.Fatal(err)
	}

	ctx := passkeyTab(t)
	visit := func(name, path, text string) {
		t.Helper()
		if err := chromedp.Do(within(t, ctx, 20*time.Second), chromedp.Navigate(site+path)); err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		if err := browser.WaitText(within(t, ctx, 10*time.Second), text); err != nil {
			page, _ := browser.Text(ctx)
			t.Fatalf("%s: %v (page: %.400s)", name, err, page)
		}
		everySize(t, ctx, name)
	}
	visit("sign-in", "/dashboard/sign-in", "Sign in")
	visit("invitation", path, "Create a passkey")
	if err := browser.Click(within(t, ctx, 10*time.Second), "button", "Create a passkey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(within(t, ctx, 20*time.Second), "You are signed in as ada@demo.example"); err != nil {
		t.Fatal(err)
	}
	everySize(t, ctx, "home")
	visit("people", "/dashboard/settings/people", "grace@demo.example")
	visit("audit", "/dashboard/settings/audit", "admin@demo.example")
	visit("keys", "/dashboard/developers/keys", "Create")
	visit("webhooks", "/dashboard/developers/webhooks", "hooks.demo.example")
	visit("webhook", endpoint, "Delivery log")
	visit("events", "/dashboard/developers/events", "survey.completed")
	visit("event", "/dashboard/developers/events/"+ev.ID, ev.ID)
	visit("leads", "/dashboard/leads", "Ada Lovelace")
	amountsKeepToOneLine(t, ctx)
	visit("lead", "/dashboard/leads/"+leadID, "$2,450.00")
	visit("not-found", "/dashboard/leads/00000000-0000-4000-8000-000000000000", "No lead with that id")
}

// amountsKeepToOneLine: at a phone's and a laptop's size, each amount
// cell of the leads table (an estimate's range, "$1,083–$1,473") reads on
// one line; a narrow column must not break it after its dash.
func amountsKeepToOneLine(t *testing.T, ctx context.Context) {
	t.Helper()
	const lines = `[...document.querySelectorAll("table.leads td.money")].map(td => {
		const r = document.createRange(); r.selectNodeContents(td);
		return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size })`
	for _, size := range []struct {
		name string
		act  chromedp.Action[chromedp.Void]
	}{{"phone", browser.Phone()}, {"desktop", chromedp.EmulateViewport(1280, 800)}} {
		c := within(t, ctx, 10*time.Second)
		if err := chromedp.Do(c, size.act); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(c, chromedp.Evaluate[[]int](lines))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("leads page (%s) has no amount cells", size.name)
		}
		for i, n := range got {
			if n != 1 {
				t.Errorf("leads page (%s): amount cell %d takes %d lines; want 1", size.name, i, n)
			}
		}
	}
}

// everySize runs axe-core on the tab's page at both sizes, and writes
// name-phone.png and name-desktop.png to SCREENSHOT_DIR when set.
func everySize(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !slices.Contains(everyPage, name) {
		t.Fatalf("page %s is not in everyPage", name)
	}
	atBothSizes(t, ctx, name, func(size string) {
		if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
			if err := browser.Screenshot(ctx, filepath.Join(dir, name+"-"+size+".png")); err != nil {
				t.Errorf("screenshot %s: %v", name, err)
			}
		}
	})
}

// TestScreenshotsDirHoldsEveryPage: docs/dashboard-screenshots holds
// exactly both sizes of everyPage (make screenshots writes them), and
// docs/DASHBOARD.md shows each.
func TestScreenshotsDirHoldsEveryPage(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "docs", "dashboard-screenshots")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var have, want []string
	for _, e := range entries {
		have = append(have, e.Name())
	}
	for _, p := range everyPage {
		want = append(want, p+"-desktop.png", p+"-phone.png")
	}
	slices.Sort(want)
	if !slices.Equal(have, want) {
		t.Errorf("%s holds %v; want %v (make screenshots)", dir, have, want)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "DASHBOARD.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range want {
		if !strings.Contains(string(doc), "dashboard-screenshots/"+f) {
			t.Errorf("docs/DASHBOARD.md does not show dashboard-screenshots/%s", f)
		}
	}
}
