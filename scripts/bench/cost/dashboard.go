package cost

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// dashboardLeads is the leads a partner has in the dashboard rows: more
// than a page, so the page is full and has a next link.
const dashboardLeads = 60

// RunDashboard measures the dashboard's leads page (50 rows) through the
// dashboard function's real handler, signed in with a session: its round
// trips (the session's reads included) and read units. It uses a table of
// its own.
func RunDashboard(ctx context.Context, o Options) ([]report.Row, error) {
	b, err := newBench(ctx, o.Endpoint)
	if err != nil {
		return nil, err
	}
	defer b.drop()
	return b.dashboardRows(ctx)
}

func (b *bench) dashboardRows(ctx context.Context) ([]report.Row, error) {
	t, _, err := b.partner(ctx)
	if err != nil {
		return nil, err
	}
	if err := b.seed(ctx, t, dashboardLeads); err != nil {
		return nil, err
	}
	token, err := b.session(ctx, t)
	if err != nil {
		return nil, err
	}
	var rows []report.Row
	for _, p := range []struct{ name, status string }{{"", ""}, {", status filter", "new"}} {
		q := ""
		if p.status != "" {
			q = "status=" + p.status
		}
		if _, err := b.page(ctx, token, q); err != nil { // the instance's first request reads the partner's settings
			return nil, err
		}
		b.meter.Take()
		body, err := b.page(ctx, token, q)
		if err != nil {
			return nil, err
		}
		s := b.meter.Take()
		if n := strings.Count(body, `href="/dashboard/leads/`); n != 50 {
			return nil, fmt.Errorf("dashboard leads page%s: %d rows; want 50", p.name, n)
		}
		rows = append(rows, report.Row{Section: "DynamoDB cost", Metric: fmt.Sprintf("dashboard leads page (50 rows%s), partner with %d leads", p.name, dashboardLeads),
			Value:  fmt.Sprintf("%d round trips (%s); %.1f RCU, %.1f WCU", len(s.Trips), strings.Join(s.Trips, ", "), s.Read, s.Write),
			Budget: "≤ 3 round trips", OK: report.Check(len(s.Trips) <= 3)})
	}
	return rows, nil
}

// session seeds an admin of t's partner, signed in now, and returns the
// session cookie's token.
func (b *bench) session(ctx context.Context, t auth.Tenant) (string, error) {
	defer b.meter.Take()
	now := time.Now()
	_, inv, err := dashboard.NewInvitation(t.PartnerID, "bench@example.com", dashboard.Admin, dashboard.OperatorActor, now)
	if err != nil {
		return "", err
	}
	if err := b.store.CreateInvitation(ctx, inv, dashboard.InvitedEntry(inv, audit.ByOperator())); err != nil {
		return "", err
	}
	p := dashboard.Person{ID: uuid.NewString(), PartnerID: t.PartnerID, Email: inv.Email, Role: dashboard.Admin, CreatedAt: now}
	token, err := linktoken.New()
	if err != nil {
		return "", err
	}
	hash, err := linktoken.Parse(token)
	if err != nil {
		return "", err
	}
	cred := dashboard.Credential{ID: []byte("bench-" + p.ID), PersonID: p.ID, Record: []byte(`{}`), CreatedAt: now}
	s := dashboard.Session{Hash: hash, PersonID: p.ID, PartnerID: t.PartnerID, Mode: t.Mode, CreatedAt: now, LastSeen: now, VerifiedAt: now}
	a := audit.Entry{PartnerID: t.PartnerID, Actor: audit.ByPerson(p.ID, p.Email), Action: audit.PersonJoined, TargetKind: audit.TargetPerson, TargetID: p.ID, At: now}
	return token, b.store.AcceptInvitation(ctx, inv.Hash, p, cred, s, a)
}

// page is GET /dashboard/leads?query with the session cookie, as API
// Gateway hands it to the dashboard function.
func (b *bench) page(ctx context.Context, token, query string) (string, error) {
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: "/dashboard/leads", RawQueryString: query,
		Headers: map[string]string{"accept": "text/html"}, Cookies: []string{dashboard.CookieName + "=" + token},
		RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "bench-dashboard",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/dashboard/leads", SourceIP: "127.0.0.1"}}}
	resp, _ := b.h.Route(manifest.DashboardLeads)(ctx, ev)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("dashboard leads page: status %d: %.300s", resp.StatusCode, resp.Body)
	}
	return resp.Body, nil
}
