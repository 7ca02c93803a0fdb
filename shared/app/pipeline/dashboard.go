package pipeline

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// SessionStore is what the pipeline needs of storage to enforce
// dashboard sessions and count sign-in attempts.
type SessionStore interface {
	// DashboardSession reads the session whose token hashes to hash and
	// its person; not_signed_in when either is gone.
	DashboardSession(ctx context.Context, hash string) (dashboard.Session, dashboard.Person, error)
	// TouchDashboardSession records that the session was used at now.
	TouchDashboardSession(ctx context.Context, hash string, now time.Time) error
	// CountAttempt counts one attempt under key in now's minute window;
	// Usage.Admitted is false past limit.
	CountAttempt(ctx context.Context, key string, now time.Time, limit int) (auth.Usage, error)
}

// DashboardGate is what a dashboard endpoint brings for the pipeline to
// admit it: the sessions and the dashboard's one origin.
type DashboardGate struct {
	Sessions SessionStore
	// Origin is the public base URL's origin (scheme://host[:port]), the
	// only Origin a state change is accepted from.
	Origin string
}

// Viewer is the signed-in person of a dashboard-session call.
type Viewer struct {
	Session dashboard.Session
	Person  dashboard.Person
	// Token is the session's cookie token, from which pages derive the
	// CSRF token (dashboard.CSRF).
	Token string
}

// SignInPath is where an anonymous page request is sent.
const SignInPath = "/dashboard/sign-in"

// signInBody is the body of the redirect to the sign-in page, for a
// client that does not follow it.
const signInBody = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>` +
	`<body><p><a href="` + SignInPath + `">Sign in to the dashboard</a></p></body></html>`

// touchEvery is how stale a session's last use may be before a request
// writes it again: the idle lifetime moves by minutes, not per request.
const touchEvery = time.Minute

// admitDashboard enforces a dashboard-session route: a live session, then
// for a state change the dashboard's Origin and the session's CSRF token,
// then the route's role and recent sign-in. Nothing is written before all
// pass except the session's last use.
func (p *Pipeline) admitDashboard(ctx context.Context, ep Endpoint, c *Call) error {
	g := ep.Dashboard
	if g == nil || g.Sessions == nil {
		return errNoGate(c.Route)
	}
	rt := c.Route
	token, hash, ok := dashboard.ParseSessionCookie(c.Cookies)
	if !ok {
		return notSignedIn(rt)
	}
	if rt.StateChanging() {
		if err := checkOrigin(g.Origin, c.Origin); err != nil {
			return err
		}
		if !dashboard.CheckCSRF(token, csrfSent(c)) {
			return errcode.New(errcode.CSRFFailed, "This form is out of date or was not sent by the dashboard; reload the page and try again.")
		}
	}
	s, person, err := g.Sessions.DashboardSession(ctx, hash)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotSignedIn {
		return notSignedIn(rt)
	}
	if err != nil {
		return err
	}
	if !s.Live(c.Now) || person.PartnerID != s.PartnerID {
		return notSignedIn(rt)
	}
	if c.Now.Sub(s.LastSeen) >= touchEvery {
		if err := g.Sessions.TouchDashboardSession(ctx, hash, c.Now); err != nil {
			return err
		}
		s.LastSeen = c.Now
	}
	c.Principal = auth.Principal{Tenant: s.Tenant()}
	c.Viewer = &Viewer{Session: s, Person: person, Token: token}
	if rt.Admin && person.Role != dashboard.Admin {
		return errcode.New(errcode.AdminRequired, "Only an admin of your company can do this; ask one of your admins.")
	}
	if rt.RecentSignIn && !s.Recent(c.Now) {
		return errcode.New(errcode.ReauthRequired, "Confirm it is you: sign in with your passkey again, then retry.")
	}
	return nil
}

// admitClient counts an anonymous dashboard call (sign-in, invitation)
// against its client address's limit.
func (p *Pipeline) admitClient(ctx context.Context, ep Endpoint, c *Call, res *Result) error {
	g := ep.Dashboard
	if g == nil || g.Sessions == nil {
		return errNoGate(c.Route)
	}
	u, err := g.Sessions.CountAttempt(ctx, "ip#"+c.SourceIP, c.Now, dashboard.AttemptLimit)
	if err != nil {
		return err
	}
	res.Usage = &u
	if !u.Admitted {
		return errcode.New(errcode.RateLimited, "Too many sign-in attempts from your address; retry after %d seconds.", u.RetryAfter(c.Now)).
			WithDetail("limit", u.Limit).WithDetail("retry_after", u.RetryAfter(c.Now))
	}
	return nil
}

// errNoGate is a wiring error (500, its text for logs only).
func errNoGate(rt manifest.Route) error {
	return fmt.Errorf("route %s: dashboard route without a DashboardGate", rt.Operation)
}

// notSignedIn sends a page request to the sign-in page and refuses any
// other call with not_signed_in.
func notSignedIn(rt manifest.Route) error {
	if rt.Method == "GET" && rt.Response == manifest.HTML {
		return &documentError{doc: Document{Status: 303, Header: map[string]string{
			"Location": SignInPath, "Cache-Control": "no-store", "Content-Type": string(manifest.HTML),
		}, Body: []byte(signInBody)}}
	}
	return errcode.New(errcode.NotSignedIn, "You are not signed in, or your session ended; sign in with your passkey.")
}

// checkOrigin refuses a state change whose Origin is missing or not the
// dashboard's own.
func checkOrigin(want, got string) error {
	if got == "" {
		return errcode.New(errcode.OriginNotAllowed, "This request has no Origin header; the dashboard accepts changes only from its own pages.")
	}
	u, err := url.Parse(want)
	if err != nil || want == "" || got != u.Scheme+"://"+u.Host {
		return errcode.New(errcode.OriginNotAllowed, "This request comes from another site; the dashboard accepts changes only from its own pages.")
	}
	return nil
}

// csrfSent is the CSRF token the call carries: its header, else its form
// field.
func csrfSent(c *Call) string {
	if c.CSRF != "" {
		return c.CSRF
	}
	if f, ok := dashboard.ParseForm(c.Body); ok {
		return f[dashboard.CSRFField]
	}
	return ""
}

// CSRF is the CSRF token the viewer's pages put in their forms.
func (v *Viewer) CSRF() string { return dashboard.CSRF(v.Token) }
