package dashboardapp_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// invite stores an invitation of partnerID and returns its link's path.
func invite(t *testing.T, env *apitest.Env, partnerID, email string, role dashboard.Role) (path, token string) {
	t.Helper()
	token, inv, err := dashboard.NewInvitation(partnerID, email, role, dashboard.OperatorActor, env.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Store.CreateInvitation(context.Background(), inv, dashboard.InvitedEntry(inv, audit.ByOperator())); err != nil {
		t.Fatal(err)
	}
	return dashboard.InvitationPath(token), token
}

// serveLocalhost serves env's stack on [::1] at its port too: the
// dashboard is at localhost (a passkey's relying party is a domain name:
// dashboard.SiteURL), which Chromium may reach over IPv6 first.
func serveLocalhost(t *testing.T, env *apitest.Env) {
	t.Helper()
	_, port, _ := net.SplitHostPort(env.Server.Listener.Addr().String())
	l, err := net.Listen("tcp", "[::1]:"+port)
	if err != nil {
		t.Logf("no IPv6 loopback (%v): localhost is 127.0.0.1 only", err)
		return
	}
	srv := &http.Server{Handler: env.Server.Config.Handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
}

// passkeyTab is a Chromium tab with a WebAuthn virtual authenticator
// (CTAP2, internal, resident keys, user verification that succeeds).
func passkeyTab(t *testing.T) context.Context {
	t.Helper()
	browser.Require(t)
	ctx, cancel, err := browser.Start(context.Background(), browser.Logf(t.Logf))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("webauthn enable: %v", err)
	}
	if _, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal,
		HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
	}}); err != nil {
		t.Fatalf("add virtual authenticator: %v", err)
	}
	return ctx
}

func within(t *testing.T, ctx context.Context, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return c
}

// shot writes a screenshot to SCREENSHOT_DIR, when set.
func shot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	if err := browser.Screenshot(ctx, filepath.Join(dir, "dashboard-"+name+".png")); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
}

// sessionCookie is the dashboard's session cookie the tab holds ("" when
// none).
func sessionCookie(t *testing.T, ctx context.Context, site string) string {
	t.Helper()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{site + "/dashboard"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == dashboard.CookieName {
			if !c.HTTPOnly || !c.Secure || c.SameSite != network.CookieSameSiteLax || c.Path != "/" {
				t.Errorf("cookie %+v; want HttpOnly, Secure, SameSite=Lax, Path=/", c)
			}
			return c.Value
		}
	}
	return ""
}

// TestPasskeyFlow: in Chromium with a virtual authenticator, an
// invitation registers a passkey and signs in, sign-out ends the session
// on the server (the old cookie is refused), the passkey signs in again,
// and the invitation link works once.
func TestPasskeyFlow(t *testing.T) {
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
	step("open the invitation", chromedp.Navigate(site+path))
	shot(t, ctx, "invitation")
	if err := browser.Click(within(t, ctx, 10*time.Second), "button", "Create a passkey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(within(t, ctx, 20*time.Second), "You are signed in as ada@demo.example"); err != nil {
		text, _ := browser.Text(ctx)
		t.Fatalf("after registration: %v (page: %.400s)", err, text)
	}
	shot(t, ctx, "home")
	old := sessionCookie(t, ctx, site)
	if old == "" {
		t.Fatal("no session cookie after registration")
	}
	if err := browser.Click(within(t, ctx, 10*time.Second), "button", "Sign out"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(within(t, ctx, 10*time.Second), "Sign in to your company"); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "sign-in")
	if got := sessionCookie(t, ctx, site); got != "" {
		t.Errorf("session cookie still set after sign-out")
	}
	res := do(t, env, request{method: "GET", path: "/dashboard", token: old})
	if res.Status != 303 || res.Header.Get("Location") != "/dashboard/sign-in" {
		t.Errorf("old cookie after sign-out: %d %q; want 303 to sign-in", res.Status, res.Header.Get("Location"))
	}
	if err := browser.Click(within(t, ctx, 10*time.Second), "button", "Sign in with a passkey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(within(t, ctx, 20*time.Second), "You are signed in as ada@demo.example"); err != nil {
		text, _ := browser.Text(ctx)
		t.Fatalf("after sign-in: %v (page: %.400s)", err, text)
	}
	if now := sessionCookie(t, ctx, site); now == "" || now == old {
		t.Errorf("sign-in cookie %q; want a new session", now)
	}
	step("open the used invitation", chromedp.Navigate(site+path))
	if text, _ := browser.Text(ctx); !strings.Contains(text, "This invitation is not valid") {
		t.Errorf("used invitation shows %.300q; want it refused", text)
	}
}

// TestInvitationLifetime: an invitation opens until 24 hours after it was
// made and not after; the page never shows another's.
func TestInvitationLifetime(t *testing.T) {
	env := newEnv(t)
	partnerID := env.NewPartner(t, "Demo Movers")
	path, _ := invite(t, env, partnerID, "bo@demo.example", dashboard.Viewer)
	open := func() apitest.Result { return do(t, env, request{method: "GET", path: path}) }
	if r := open(); r.Status != 200 || !strings.Contains(string(r.Body), "bo@demo.example") {
		t.Fatalf("fresh invitation: %d %.200s", r.Status, r.Body)
	}
	env.Clock.Advance(dashboard.InvitationTTL - time.Second)
	if r := open(); r.Status != 200 {
		t.Errorf("invitation 1 s before 24 h: %d; want 200", r.Status)
	}
	env.Clock.Advance(time.Second)
	if r := open(); r.Status != 404 || !strings.Contains(string(r.Body), "expired") {
		t.Errorf("invitation at 24 h: %d %.200s; want 404 saying it expired", r.Status, r.Body)
	}
	begin := do(t, env, request{method: "POST", path: path + "/begin", body: "{}"})
	if begin.Status != 404 {
		t.Errorf("begin on an expired invitation: %d; want 404", begin.Status)
	}
	if r := do(t, env, request{method: "GET", path: "/dashboard/invitations/" + strings.Repeat("x", 43)}); r.Status != 404 {
		t.Errorf("unknown invitation: %d; want 404", r.Status)
	}
}

// TestInvitationAttemptsAreLimited: one client's sign-in and invitation
// calls are counted (dashboard.AttemptLimit a minute), then refused with
// 429 and the error body until the next minute.
func TestInvitationAttemptsAreLimited(t *testing.T) {
	env := newEnv(t)
	for i := range dashboard.AttemptLimit {
		if r := do(t, env, request{method: "POST", path: "/dashboard/sign-in/begin", body: "{}"}); r.Status != 200 {
			t.Fatalf("attempt %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := do(t, env, request{method: "POST", path: "/dashboard/sign-in/begin", body: "{}"})
	if r.Status != 429 || !strings.Contains(string(r.Body), `"code":"rate_limited"`) || r.Header.Get("Retry-After") == "" {
		t.Errorf("attempt %d: %d %s; want 429 rate_limited with Retry-After", dashboard.AttemptLimit+1, r.Status, r.Body)
	}
	env.Clock.Advance(time.Minute)
	if r := do(t, env, request{method: "GET", path: "/dashboard/sign-in"}); r.Status != 200 {
		t.Errorf("next minute: %d; want 200", r.Status)
	}
}
