package dashboardapp_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/dynamometer"
)

// putLead stores a lead of partnerID in mode for customer, updated a
// second after the previous one (the clock moves).
func putLead(t *testing.T, env *apitest.Env, partnerID string, mode auth.Mode, customer string) string {
	t.Helper()
	env.Clock.Advance(time.Second)
	l := lead.Build(uuid.NewString(), lead.Details{CustomerName: customer, Email: "c@example.com",
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108", HomeSize: "2 bedroom"},
		estimate.DefaultRateCard("usd"), env.Clock.Now())
	if err := env.Store.PutLead(context.Background(), auth.Tenant{PartnerID: partnerID, Mode: mode}, l, false); err != nil {
		t.Fatal(err)
	}
	return l.ID
}

func get(t *testing.T, env *apitest.Env, m member, path string) apitest.Result {
	t.Helper()
	return do(t, env, request{method: "GET", path: path, token: m.Token})
}

func send(t *testing.T, env *apitest.Env, m member, path string) apitest.Result {
	t.Helper()
	return do(t, env, request{method: "POST", path: path, token: m.Token, body: "{}", csrf: dashboard.CSRF(m.Token), origin: origin(env)})
}

// TestLeadsPage: the list shows the session's tenant's leads (partner and
// mode) with their status, survey, estimate, quote and deposit; it filters
// by status and date, refuses a bad filter with 400 and the field named,
// and switching to live shows no test lead.
func TestLeadsPage(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewPartner(t, "A Movers"), env.NewPartner(t, "B Movers")
	viewer := join(t, env, a, "viewer@a.example", dashboard.Viewer)
	putLead(t, env, a, auth.Test, "Old Test Customer")
	cutoff := env.Clock.Now().Add(time.Second)
	quoted := putLead(t, env, a, auth.Test, "Quoted Customer")
	if _, err := env.Store.SetLeadStatus(context.Background(), auth.Tenant{PartnerID: a, Mode: auth.Test}, quoted, lead.Quoted, env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	putLead(t, env, a, auth.Live, "Live Customer")
	putLead(t, env, b, auth.Test, "Other Partner Customer")

	r := get(t, env, viewer, "/dashboard/leads")
	body := string(r.Body)
	if r.Status != 200 {
		t.Fatalf("leads: %d %.300s", r.Status, body)
	}
	for _, want := range []string{"Old Test Customer", "Quoted Customer", "quoted", "new", "none", "Video survey", "Deposit", "$1,083–$1,473"} {
		if !strings.Contains(body, want) {
			t.Errorf("leads page lacks %q", want)
		}
	}
	for _, not := range []string{"Live Customer", "Other Partner Customer"} {
		if strings.Contains(body, not) {
			t.Errorf("test-mode leads page of A shows %q", not)
		}
	}
	if r := get(t, env, viewer, "/dashboard/leads?status=quoted"); !strings.Contains(string(r.Body), "Quoted Customer") || strings.Contains(string(r.Body), "Old Test Customer") {
		t.Errorf("status=quoted: %d; want only the quoted lead", r.Status)
	}
	since := "/dashboard/leads?updated_since=" + url.QueryEscape(cutoff.Format(time.RFC3339))
	if r := get(t, env, viewer, since); !strings.Contains(string(r.Body), "Quoted Customer") || strings.Contains(string(r.Body), "Old Test Customer") {
		t.Errorf("updated_since: %d; want only the lead updated since", r.Status)
	}
	if r := get(t, env, viewer, "/dashboard/leads?updated_since="+cutoff.Format(time.DateOnly)); r.Status != 200 || !strings.Contains(string(r.Body), "Quoted Customer") {
		t.Errorf("updated_since as a date: %d; want 200 with the lead", r.Status)
	}
	for _, bad := range []string{"?status=nope", "?updated_since=yesterday", "?cursor=forged", "?colour=red"} {
		r := get(t, env, viewer, "/dashboard/leads"+bad)
		if r.Status != 400 || !strings.Contains(string(r.Body), "Check the filters") {
			t.Errorf("%s: %d %.200s; want 400 naming the filter", bad, r.Status, r.Body)
		}
	}
	r = do(t, env, request{method: "POST", path: "/dashboard/mode", token: viewer.Token, body: "mode=live", csrf: dashboard.CSRF(viewer.Token), origin: origin(env)})
	if r.Status != 303 {
		t.Fatalf("switch to live: %d %s", r.Status, r.Body)
	}
	live := string(get(t, env, viewer, "/dashboard/leads").Body)
	if !strings.Contains(live, "Live Customer") || strings.Contains(live, "Test Customer") || strings.Contains(live, "Quoted Customer") {
		t.Errorf("live leads page: want the live lead only; got %.600s", live)
	}
}

var nextLink = regexp.MustCompile(`cursor=([A-Za-z0-9_\-.~%]+)[&"]`)

// TestLeadsPaging: 50 rows a page, in listLeads' keyset
// order, each lead once; a cursor of another partner is refused.
func TestLeadsPaging(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewPartner(t, "A Movers"), env.NewPartner(t, "B Movers")
	admin := join(t, env, a, "admin@a.example", dashboard.Admin)
	other := join(t, env, b, "admin@b.example", dashboard.Admin)
	for i := range 120 {
		putLead(t, env, a, auth.Test, fmt.Sprintf("Customer %03d", i))
	}
	seen := map[string]bool{}
	path, pages, cursor := "/dashboard/leads", 0, ""
	for path != "" {
		r := get(t, env, admin, path)
		if r.Status != 200 {
			t.Fatalf("%s: %d", path, r.Status)
		}
		names := regexp.MustCompile(`Customer \d{3}`).FindAllString(string(r.Body), -1)
		pages++
		if pages < 3 && len(names) != 50 || pages == 3 && len(names) != 20 {
			t.Errorf("page %d has %d rows; want 50, 50, 20", pages, len(names))
		}
		if len(names) > 0 && pages == 1 && names[0] != "Customer 000" {
			t.Errorf("first row %s; want Customer 000 (listLeads' order: by last update, oldest first)", names[0])
		}
		for _, n := range names {
			if seen[n] {
				t.Errorf("%s shown twice", n)
			}
			seen[n] = true
		}
		path = ""
		if m := nextLink.FindStringSubmatch(string(r.Body)); m != nil {
			cursor, _ = url.QueryUnescape(m[1])
			path = "/dashboard/leads?cursor=" + url.QueryEscape(cursor)
		}
		if pages > 3 {
			t.Fatal("more than 3 pages")
		}
	}
	if len(seen) != 120 {
		t.Errorf("%d leads shown; want 120", len(seen))
	}
	first := nextLink.FindStringSubmatch(string(get(t, env, admin, "/dashboard/leads").Body))
	if first == nil {
		t.Fatal("no next link on page 1")
	}
	c, _ := url.QueryUnescape(first[1])
	if r := get(t, env, other, "/dashboard/leads?cursor="+url.QueryEscape(c)); r.Status != 400 {
		t.Errorf("partner A's cursor used by B: %d; want 400", r.Status)
	}
}

// TestLeadsPageRoundTrips: a page of 50 rows costs at most 3 DynamoDB
// round trips, the session's two reads included.
func TestLeadsPageRoundTrips(t *testing.T) {
	var m dynamometer.Meter
	env := apitest.New(t, apitest.Options{Dashboard: true, DynamoDB: m.Install})
	env.Clock.Set(time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC))
	a := env.NewPartner(t, "A Movers")
	for i := range 60 {
		putLead(t, env, a, auth.Test, fmt.Sprintf("Customer %03d", i))
	}
	admin := join(t, env, a, "admin@a.example", dashboard.Admin)
	for _, path := range []string{"/dashboard/leads", "/dashboard/leads?status=new"} {
		m.Take()
		r := get(t, env, admin, path)
		s := m.Take()
		if n := len(regexp.MustCompile(`Customer \d{3}`).FindAllString(string(r.Body), -1)); r.Status != 200 || n != 50 {
			t.Fatalf("%s: %d with %d rows; want 50", path, r.Status, n)
		}
		if len(s.Trips) > 3 {
			t.Errorf("%s: %d round trips %v; want at most 3", path, len(s.Trips), s.Trips)
		}
		t.Logf("%s: %d round trips %v, %.1f RRU", path, len(s.Trips), s.Trips, s.Read)
	}
}

// TestLeadPageTenancy: another partner's admin, or the same partner in
// the other mode, gets 404 for a lead's page and its survey link, and
// nothing is written.
func TestLeadPageTenancy(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewPartner(t, "A Movers"), env.NewPartner(t, "B Movers")
	viewer := join(t, env, a, "viewer@a.example", dashboard.Viewer)
	other := join(t, env, b, "admin@b.example", dashboard.Admin)
	id := putLead(t, env, a, auth.Test, "Ada Lovelace")
	r := get(t, env, viewer, "/dashboard/leads/"+id)
	if r.Status != 200 || !strings.Contains(string(r.Body), "Ada Lovelace") || !strings.Contains(string(r.Body), "Start a video survey") {
		t.Fatalf("own lead: %d %.300s", r.Status, r.Body)
	}
	for _, res := range []apitest.Result{get(t, env, other, "/dashboard/leads/"+id), send(t, env, other, "/dashboard/leads/"+id+"/survey-link")} {
		if res.Status != 404 || strings.Contains(string(res.Body), "Ada") {
			t.Errorf("%s by partner B: %d; want 404 without the lead", res.Req.URL.Path, res.Status)
		}
	}
	_, ls, err := env.Store.GetLeadWithSurvey(context.Background(), auth.Tenant{PartnerID: a, Mode: auth.Test}, id)
	if err != nil || ls.SurveyID != "" {
		t.Errorf("after partner B's POST the lead has survey %q (%v); want none", ls.SurveyID, err)
	}
	do(t, env, request{method: "POST", path: "/dashboard/mode", token: viewer.Token, body: "mode=live", csrf: dashboard.CSRF(viewer.Token), origin: origin(env)})
	if r := get(t, env, viewer, "/dashboard/leads/"+id); r.Status != 404 {
		t.Errorf("test lead in live mode: %d; want 404", r.Status)
	}
}

// TestLeadSurveyLink: a lead without a survey gets one, and its fresh
// capture link is shown once with a copy button; the lead's survey is
// then invited.
func TestLeadSurveyLink(t *testing.T) {
	env := newEnv(t)
	a := env.NewPartner(t, "A Movers")
	viewer := join(t, env, a, "viewer@a.example", dashboard.Viewer)
	id := putLead(t, env, a, auth.Test, "Ada Lovelace")
	r := send(t, env, viewer, "/dashboard/leads/"+id+"/survey-link")
	body := string(r.Body)
	if r.Status != 200 || !strings.Contains(body, "/v1-capture/") || !strings.Contains(body, `data-copy="capture-link"`) {
		t.Fatalf("survey link: %d %.400s", r.Status, body)
	}
	_, ls, err := env.Store.GetLeadWithSurvey(context.Background(), auth.Tenant{PartnerID: a, Mode: auth.Test}, id)
	if err != nil || ls.SurveyID == "" || ls.Status != "invited" {
		t.Errorf("lead's survey %q %q (%v); want an invited survey", ls.SurveyID, ls.Status, err)
	}
	if again := string(get(t, env, viewer, "/dashboard/leads/"+id).Body); strings.Contains(again, "/v1-capture/") || !strings.Contains(again, "Get a fresh survey link") {
		t.Errorf("the lead's page again: want no link shown and a button for a fresh one")
	}
}
