package dashboardapp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// newEnv is a stack whose dashboard runs at the test server (its public
// base URL), with the clock fixed. It leaves the process environment
// alone, so the test may call t.Parallel.
func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	env := apitest.New(t, apitest.Options{Dashboard: true, Parallel: true})
	env.Clock.Set(time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC))
	return env
}

// origin is the dashboard's own origin (dashboard.SiteURL of the server).
func origin(env *apitest.Env) string { return dashboard.SiteURL(env.Server.URL) }

// member is a person signed in to the dashboard.
type member struct {
	Person dashboard.Person
	Token  string // the session cookie's token
}

// sessionOpts shape a seeded session.
type sessionOpts struct {
	created, lastSeen, verified time.Time
}

// join seeds a person of partnerID with role through an invitation, with
// a stand-in passkey record and a session opened at the clock's now.
func join(t *testing.T, env *apitest.Env, partnerID, email string, role dashboard.Role) member {
	now := env.Clock.Now()
	return joinAt(t, env, partnerID, email, role, sessionOpts{now, now, now})
}

func joinAt(t *testing.T, env *apitest.Env, partnerID, email string, role dashboard.Role, o sessionOpts) member {
	t.Helper()
	ctx := context.Background()
	_, inv, err := dashboard.NewInvitation(partnerID, email, role, dashboard.OperatorActor, o.created)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Store.CreateInvitation(ctx, inv, dashboard.InvitedEntry(inv, audit.ByOperator())); err != nil {
		t.Fatal(err)
	}
	p := dashboard.Person{ID: uuid.NewString(), PartnerID: partnerID, Email: email, Role: role, CreatedAt: o.created}
	token, _ := linktoken.New()
	hash, _ := linktoken.Parse(token)
	cred := dashboard.Credential{ID: []byte("cred-" + p.ID), PersonID: p.ID, Record: []byte(`{}`), CreatedAt: o.created}
	s := dashboard.Session{Hash: hash, PersonID: p.ID, PartnerID: partnerID, Mode: auth.Test,
		CreatedAt: o.created, LastSeen: o.lastSeen, VerifiedAt: o.verified}
	a := audit.Entry{PartnerID: partnerID, Actor: audit.ByPerson(p.ID, p.Email), Action: audit.PersonJoined,
		TargetKind: audit.TargetPerson, TargetID: p.ID, At: o.created}
	if err := env.Store.AcceptInvitation(ctx, inv.Hash, p, cred, s, a); err != nil {
		t.Fatal(err)
	}
	return member{Person: p, Token: token}
}

// request is one dashboard request a test sends.
type request struct {
	method, path, body string
	token              string // session cookie; none when ""
	csrf               string // X-CSRF-Token; none when ""
	origin             string // Origin; none when ""
}

// do sends r without following redirects.
func do(t *testing.T, env *apitest.Env, r request) apitest.Result {
	t.Helper()
	var body *strings.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(r.method, env.Server.URL+r.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.token != "" {
		req.Header.Set("Cookie", dashboard.CookieName+"="+r.token)
	}
	if r.csrf != "" {
		req.Header.Set(dashboard.CSRFHeader, r.csrf)
	}
	if r.origin != "" {
		req.Header.Set("Origin", r.origin)
	}
	client := *env.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return apitest.Result{Req: req, Status: resp.StatusCode, Header: resp.Header, Body: []byte(b.String())}
}
