package dashboardapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/dynamometer"
)

// world is what the security matrix attacks: partner A with an admin and
// a viewer, and partner B with its own admin.
type world struct {
	env           *apitest.Env
	partnerA      string
	adminA, viewA member
	partnerB      string
	emailsOfA     []string
}

// snapshot is everything of partner A a refused request must leave as it
// was: its people, their passkeys, its audit trail, its admin's session.
func (w *world) snapshot(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	people, err := w.env.Store.People(ctx, w.partnerA)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range people {
		keys, err := w.env.Store.Passkeys(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s %d;", p.ID, p.Email, p.Role, len(keys))
	}
	trail, err := w.env.Store.ListAudit(ctx, w.partnerA, 1000)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "audit %d;", len(trail))
	hash, _ := dashboardHash(w.adminA.Token)
	s, _, err := w.env.Store.DashboardSession(ctx, hash)
	fmt.Fprintf(&b, "session %s %v %v", s.Mode, s.VerifiedAt, err)
	return b.String()
}

func dashboardHash(token string) (string, bool) {
	_, hash, ok := dashboard.ParseSessionCookie([]string{dashboard.CookieName + "=" + token})
	return hash, ok
}

// matrixCase is one way a request can lack what a route needs.
type matrixCase struct {
	name string
	// applies says whether the case is one for rt.
	applies func(rt manifest.Route) bool
	// seed, when set, makes the member the case signs in as (before the
	// snapshot); else partner A's admin.
	seed func(now time.Time) sessionOpts
	// send makes the request of the case to path as m.
	send func(t *testing.T, w *world, rt manifest.Route, path string, m member) apitest.Result
	// status and code are the refusal; status 0: the signed-out answer
	// (303 to sign-in for a page, else 401 not_signed_in).
	status int
	code   string
}

func always(manifest.Route) bool { return true }

func post(rt manifest.Route) bool { return rt.StateChanging() }

// full is a request as the dashboard's own page sends it for m.
func full(w *world, rt manifest.Route, path string, m member) request {
	r := request{method: rt.Method, path: path, token: m.Token}
	if rt.StateChanging() {
		r.body, r.csrf, r.origin = "{}", dashboard.CSRF(m.Token), origin(w.env)
	}
	return r
}

func matrixCases() []matrixCase {
	as := func(t *testing.T, w *world, rt manifest.Route, path string, m member) apitest.Result {
		return do(t, w.env, full(w, rt, path, m))
	}
	admin := func(edit func(*request)) func(*testing.T, *world, manifest.Route, string, member) apitest.Result {
		return func(t *testing.T, w *world, rt manifest.Route, path string, m member) apitest.Result {
			r := full(w, rt, path, m)
			edit(&r)
			return do(t, w.env, r)
		}
	}
	return []matrixCase{
		{name: "no session", applies: always, send: admin(func(r *request) { r.token = "" })},
		{name: "unknown session", applies: always, send: admin(func(r *request) {
			r.token = strings.Repeat("A", 43)
			if r.csrf != "" {
				r.csrf = dashboard.CSRF(r.token)
			}
		})},
		{name: "idle session", applies: always, send: as, seed: func(now time.Time) sessionOpts {
			return sessionOpts{now.Add(-time.Hour), now.Add(-dashboard.SessionIdle - time.Second), now.Add(-time.Hour)}
		}},
		{name: "session past 12 hours", applies: always, send: as, seed: func(now time.Time) sessionOpts {
			return sessionOpts{now.Add(-dashboard.SessionAbsolute - time.Second), now.Add(-time.Minute), now.Add(-time.Minute)}
		}},
		{name: "viewer", applies: func(rt manifest.Route) bool { return rt.Admin }, status: 403, code: "admin_required",
			send: func(t *testing.T, w *world, rt manifest.Route, path string, _ member) apitest.Result {
				return do(t, w.env, full(w, rt, path, w.viewA))
			}},
		{name: "sign-in not recent", applies: func(rt manifest.Route) bool { return rt.RecentSignIn }, status: 403, code: "reauthentication_required",
			send: as, seed: func(now time.Time) sessionOpts {
				return sessionOpts{now.Add(-time.Hour), now.Add(-time.Minute), now.Add(-dashboard.RecentSignIn - time.Second)}
			}},
		{name: "missing CSRF token", applies: post, status: 403, code: "csrf_failed", send: admin(func(r *request) { r.csrf = "" })},
		{name: "wrong CSRF token", applies: post, status: 403, code: "csrf_failed", send: admin(func(r *request) { r.csrf = dashboard.CSRF(strings.Repeat("B", 43)) })},
		{name: "foreign Origin", applies: post, status: 403, code: "origin_not_allowed", send: admin(func(r *request) { r.origin = "https://evil.example" })},
		{name: "no Origin", applies: post, status: 403, code: "origin_not_allowed", send: admin(func(r *request) { r.origin = "" })},
	}
}

// pathFor fills rt's path parameter: a person's id is partner A's viewer.
func pathFor(w *world, rt manifest.Route) string {
	name := manifest.ParamName(rt.PilotPath)
	if name == "" {
		return rt.PilotPath
	}
	return strings.Replace(rt.PilotPath, "{"+name+"}", w.viewA.Person.ID, 1)
}

// newWorld seeds a fresh partner A (an admin and a viewer) on env, so
// each cell of the matrix starts from its own world.
func newWorld(t *testing.T, env *apitest.Env) *world {
	t.Helper()
	w := &world{env: env, partnerA: env.NewPartner(t, "A Movers")}
	w.adminA = join(t, env, w.partnerA, "admin@a.example", dashboard.Admin)
	w.viewA = join(t, env, w.partnerA, "viewer@a.example", dashboard.Viewer)
	w.emailsOfA = []string{w.adminA.Person.Email, w.viewA.Person.Email}
	return w
}

// TestSecurityMatrix sends every dashboard-session route of the manifest
// each request that lacks what it needs (a live session, the role, a
// recent sign-in, the CSRF token, the dashboard's Origin) and checks the
// refusal and that nothing of the partner changed; then another
// partner's admin, who must neither see nor change anything of A. Routes
// added to manifest.DashboardRoutes join it without a change here. The
// cells share one stack but each seeds its own partners, people and
// sessions, so they run in parallel and stay independent, and a cell's
// DynamoDB round trips do not grow with the cells before it.
func TestSecurityMatrix(t *testing.T) {
	t.Parallel() // waits on DynamoDB Local while the browser flows wait on Chromium
	var meter dynamometer.Meter
	env := apitest.New(t, apitest.Options{Dashboard: true, Parallel: true, DynamoDB: meter.Install})
	env.Clock.Set(time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC))
	routes, cells := 0, 0
	t.Run("cells", func(t *testing.T) {
		for _, rt := range manifest.DashboardRoutes() {
			if rt.Auth != manifest.AuthDashboardSession {
				continue
			}
			routes++
			for _, c := range matrixCases() {
				if !c.applies(rt) {
					continue
				}
				cells++
				t.Run(string(rt.Operation)+"/"+c.name, func(t *testing.T) {
					t.Parallel()
					w := newWorld(t, env)
					m := w.adminA
					if c.seed != nil {
						m = joinAt(t, env, w.partnerA, "old@a.example", dashboard.Admin, c.seed(env.Clock.Now()))
						w.emailsOfA = append(w.emailsOfA, m.Person.Email)
					}
					before := w.snapshot(t)
					res := c.send(t, w, rt, pathFor(w, rt), m)
					checkRefused(t, rt, c, res)
					if after := w.snapshot(t); after != before {
						t.Errorf("partner A changed:\nbefore %s\nafter  %s", before, after)
					}
				})
			}
			cells++
			t.Run(string(rt.Operation)+"/other partner", func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, env)
				w.partnerB = env.NewPartner(t, "B Movers")
				before := w.snapshot(t)
				b := join(t, env, w.partnerB, "admin@b.example", dashboard.Admin)
				res := do(t, env, full(w, rt, pathFor(w, rt), b))
				if res.Status >= 500 {
					t.Errorf("status %d; want no server error (body %s)", res.Status, res.Body)
				}
				if rt.PathParamType == manifest.ParamUUID && res.Status != 404 {
					t.Errorf("status %d on partner A's person; want 404 (body %s)", res.Status, res.Body)
				}
				for _, e := range w.emailsOfA {
					if strings.Contains(string(res.Body), e) {
						t.Errorf("partner B's answer shows partner A's %s", e)
					}
				}
				if after := w.snapshot(t); after != before {
					t.Errorf("partner A changed:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	})
	trips := len(meter.Take().Trips)
	t.Logf("security matrix: %d session routes, %d cells, %d DynamoDB round trips", routes, cells, trips)
	// A cell seeds a partner and three people at most and snapshots them
	// twice: about 20 round trips. Cells that shared partner A read every
	// earlier cell's people (14,529 round trips for 208 cells).
	if limit := 40 * cells; trips > limit {
		t.Errorf("%d DynamoDB round trips for %d cells; want at most %d (40 a cell)", trips, cells, limit)
	}
	if routes < 10 {
		t.Errorf("%d dashboard-session routes; want every one of manifest.DashboardRoutes (at least 10)", routes)
	}
}

func checkRefused(t *testing.T, rt manifest.Route, c matrixCase, res apitest.Result) {
	t.Helper()
	status, code := c.status, c.code
	if status == 0 {
		if rt.Method == "GET" && rt.Response == manifest.HTML {
			if res.Status != 303 || res.Header.Get("Location") != "/dashboard/sign-in" {
				t.Errorf("status %d Location %q; want 303 to /dashboard/sign-in", res.Status, res.Header.Get("Location"))
			}
			return
		}
		status, code = 401, "not_signed_in"
	}
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if rt.Response == manifest.HTML {
		if res.Status != status || !strings.Contains(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("status %d %s; want %d as a page", res.Status, res.Header.Get("Content-Type"), status)
		}
		return
	}
	if err := json.Unmarshal(res.Body, &body); err != nil || res.Status != status || body.Error.Code != code || body.Error.Message == "" || body.Error.Details == nil {
		t.Errorf("%d %s; want %d %s with the error body", res.Status, res.Body, status, code)
	}
	if slices.Contains([]string{"csrf_failed", "origin_not_allowed"}, code) && strings.Contains(string(res.Body), "csrf") && strings.Contains(string(res.Body), "token=") {
		t.Errorf("answer echoes a token: %s", res.Body)
	}
}

// TestMatrixBaselineAdmits: the requests the matrix spoils, sent whole
// by a recently signed-in admin, pass the gate (so each refusal above is
// the gate's, not a route that refuses everyone).
func TestMatrixBaselineAdmits(t *testing.T) {
	env := newEnv(t)
	w := &world{env: env, partnerA: env.NewPartner(t, "A Movers")}
	for _, rt := range manifest.DashboardRoutes() {
		if rt.Auth != manifest.AuthDashboardSession {
			continue
		}
		t.Run(string(rt.Operation), func(t *testing.T) {
			admin := join(t, env, w.partnerA, fmt.Sprintf("admin-%d@a.example", time.Now().UnixNano()), dashboard.Admin)
			w.viewA = join(t, env, w.partnerA, fmt.Sprintf("viewer-%d@a.example", time.Now().UnixNano()), dashboard.Viewer)
			res := do(t, env, full(w, rt, pathFor(w, rt), admin))
			if res.Status == 401 || res.Status == 403 || res.Status >= 500 {
				t.Errorf("status %d (body %.200s); want the gate to admit it", res.Status, res.Body)
			}
		})
	}
}
