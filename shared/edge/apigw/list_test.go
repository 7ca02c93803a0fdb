package apigw_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

type summary struct {
	LeadID       string  `json:"lead_id"`
	Status       string  `json:"status"`
	CustomerName *string `json:"customer_name"`
	LeadSource   *string `json:"lead_source"`
	CreatedAt    string  `json:"created_at"`
	UpdatedAt    string  `json:"updated_at"`
}

type listResp struct {
	Data       []summary `json:"data"`
	NextCursor *string   `json:"next_cursor"`
	HasMore    bool      `json:"has_more"`
}

type detailResp struct {
	LeadID string `json:"lead_id"`
	Status string `json:"status"`
	Survey struct {
		SurveyID *string `json:"survey_id"`
		Status   string  `json:"status"`
	} `json:"survey"`
	Quote   *map[string]any `json:"quote"`
	Deposit struct {
		Status string `json:"status"`
	} `json:"deposit"`
	RecommendedEstimate *map[string]any `json:"recommended_estimate"`
}

// seedLeads stores n leads for p with distinct, increasing times (through
// the store, not the API, to stay clear of the rate limit).
func seedLeads(t *testing.T, env *apitest.Env, p keyedPartner, mode auth.Mode, n int, start time.Time) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = uuid.NewString()
		at := start.Add(time.Duration(i) * time.Millisecond)
		l := lead.Lead{ID: ids[i], Status: lead.New, Details: lead.Details{Email: fmt.Sprintf("c%d@example.com", i)}, CreatedAt: at, UpdatedAt: at}
		if err := env.Store.PutLead(context.Background(), auth.Tenant{PartnerID: p.id, Mode: mode}, l, false); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func TestListLeadsPaginationWithUpdates(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	tenant := auth.Tenant{PartnerID: p.id, Mode: auth.Test}
	start := time.Now().Add(-time.Hour)
	ids := seedLeads(t, env, p, auth.Test, 260, start)
	// Two leads share an updated_at: ties are ordered by lead_id.
	final := map[string]string{}
	for i, id := range ids {
		final[id] = lead.FormatTime(start.Add(time.Duration(i) * time.Millisecond))
	}

	type entry struct{ id, updated string }
	var seen []entry
	updatedAt := time.Now()
	cursor, pages := "", 0
	for {
		path := "/v1-leads-list?limit=7"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := env.Do(t, "GET", path, p.key, "")
		if r.Status != 200 {
			t.Fatalf("page %d: %d %s", pages, r.Status, r.Body)
		}
		page := decode[listResp](t, r.Body)
		pages++
		if page.HasMore != (page.NextCursor != nil) {
			t.Fatalf("has_more %v but next_cursor %v", page.HasMore, page.NextCursor)
		}
		if page.HasMore && len(page.Data) != 7 {
			t.Fatalf("non-final page of %d; want 7", len(page.Data))
		}
		for _, s := range page.Data {
			seen = append(seen, entry{s.LeadID, s.UpdatedAt})
		}
		// Between pages, update one lead already seen and one not yet seen.
		if pages%3 == 0 && pages < 30 {
			for _, id := range []string{seen[len(seen)/2].id, ids[(pages*17)%len(ids)]} {
				updatedAt = updatedAt.Add(time.Millisecond)
				l, err := env.Store.SetLeadStatus(context.Background(), tenant, id, lead.Surveying, updatedAt)
				if err != nil {
					t.Fatal(err)
				}
				final[id] = lead.FormatTime(l.UpdatedAt)
			}
		}
		if !page.HasMore {
			break
		}
		cursor = *page.NextCursor
		if pages > 200 {
			t.Fatal("pagination does not end")
		}
	}
	// Strictly ascending by (updated_at, lead_id): no duplicate entries.
	for i := 1; i < len(seen); i++ {
		a, b := seen[i-1], seen[i]
		if !(a.updated < b.updated || (a.updated == b.updated && a.id < b.id)) {
			t.Fatalf("entry %d (%v) does not follow %v", i, b, a)
		}
	}
	// No gaps: every lead is seen in its final state.
	last := map[string]string{}
	for _, e := range seen {
		last[e.id] = e.updated
	}
	for id, want := range final {
		if last[id] != want {
			t.Errorf("lead %s last seen at %q; want its final updated_at %q", id, last[id], want)
		}
	}
	// A lead never updated is seen exactly once.
	count := map[string]int{}
	for _, e := range seen {
		count[e.id]++
	}
	for id, n := range count {
		if n > 1 && final[id] == lead.FormatTime(start.Add(time.Duration(indexOf(ids, id))*time.Millisecond)) {
			t.Errorf("unchanged lead %s seen %d times", id, n)
		}
	}
	if len(last) != 260 {
		t.Errorf("saw %d distinct leads; want 260", len(last))
	}
}

func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

func TestListLeadsUpdatedSince(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := seedLeads(t, env, p, auth.Test, 10, start)
	since := start.Add(4 * time.Millisecond).Format(time.RFC3339Nano)
	page := decode[listResp](t, env.Do(t, "GET", "/v1/leads?updated_since="+url.QueryEscape(since), p.key, "").Body)
	if len(page.Data) != 6 || page.Data[0].LeadID != ids[4] {
		t.Fatalf("got %d leads starting %v; want 6 starting with %s (updated_since is inclusive)", len(page.Data), page.Data, ids[4])
	}
	// A delta sync with an offset time zone means the same instant.
	off := start.Add(4 * time.Millisecond).In(time.FixedZone("EST", -5*3600)).Format(time.RFC3339Nano)
	page2 := decode[listResp](t, env.Do(t, "GET", "/v1/leads?updated_since="+url.QueryEscape(off), p.key, "").Body)
	if len(page2.Data) != 6 {
		t.Errorf("offset updated_since gave %d leads; want 6", len(page2.Data))
	}
	// The cursor and updated_since combine.
	first := decode[listResp](t, env.Do(t, "GET", "/v1/leads?limit=2&updated_since="+url.QueryEscape(since), p.key, "").Body)
	next := decode[listResp](t, env.Do(t, "GET", "/v1/leads?limit=10&updated_since="+url.QueryEscape(since)+"&cursor="+url.QueryEscape(*first.NextCursor), p.key, "").Body)
	if len(next.Data) != 4 || next.Data[0].LeadID != ids[6] {
		t.Errorf("second page %v; want 4 leads from %s", next.Data, ids[6])
	}
}

func TestListLeadsInvalidParameters(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	seedLeads(t, env, p, auth.Test, 3, time.Now())
	good := decode[listResp](t, env.Do(t, "GET", "/v1/leads?limit=1", p.key, "").Body)
	cursor := *good.NextCursor

	other := newPartner(t, env)
	seedLeads(t, env, other, auth.Test, 3, time.Now())
	otherCursor := *decode[listResp](t, env.Do(t, "GET", "/v1/leads?limit=1", other.key, "").Body).NextCursor
	live, _ := env.NewKey(t, p.id, auth.Live)
	seedLeads(t, env, p, auth.Live, 3, time.Now())
	liveCursor := *decode[listResp](t, env.Do(t, "GET", "/v1/leads?limit=1", live, "").Body).NextCursor

	tampered := []byte(cursor)
	tampered[3] ^= 1
	body, sig, _ := strings.Cut(cursor, ".")
	_ = body
	tests := []struct{ name, query, field string }{
		{"limit 0", "limit=0", "limit"},
		{"limit 101", "limit=101", "limit"},
		{"limit abc", "limit=abc", "limit"},
		{"limit 1.5", "limit=1.5", "limit"},
		{"limit empty", "limit=", "limit"},
		{"limit +5", "limit=%2B5", "limit"},
		{"limit twice", "limit=5&limit=6", "limit"},
		{"updated_since not a time", "updated_since=yesterday", "updated_since"},
		{"updated_since date only", "updated_since=2026-01-01", "updated_since"},
		{"unknown parameter", "page=2", "page"},
		{"tampered cursor", "cursor=" + url.QueryEscape(string(tampered)), "cursor"},
		{"cursor with another signature", "cursor=" + url.QueryEscape(strings.Replace(cursor, sig, strings.Repeat("A", len(sig)), 1)), "cursor"},
		{"garbage cursor", "cursor=abc", "cursor"},
		{"another partner's cursor", "cursor=" + url.QueryEscape(otherCursor), "cursor"},
		{"the live mode's cursor", "cursor=" + url.QueryEscape(liveCursor), "cursor"},
	}
	for _, tc := range tests {
		for _, path := range []string{"/v1-leads-list", "/v1/leads"} {
			t.Run(tc.name+" "+path, func(t *testing.T) {
				e := wantError(t, env.Do(t, "GET", path+"?"+tc.query, p.key, ""), 422, "validation_failed")
				if f, _ := e.Error.Details["fields"].(map[string]any); f[tc.field] == nil {
					t.Errorf("details %v do not name %s", e.Error.Details, tc.field)
				}
			})
		}
	}
	if r := env.Do(t, "GET", "/v1/leads?cursor="+url.QueryEscape(cursor), p.key, ""); r.Status != 200 {
		t.Errorf("the untouched cursor: %d; want 200", r.Status)
	}
}

func TestListLeadsDefaultsAndEmpty(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	r := env.Do(t, "GET", "/v1/leads", p.key, "")
	if string(r.Body) != `{"data":[],"next_cursor":null,"has_more":false}` {
		t.Errorf("empty list body %s", r.Body)
	}
	seedLeads(t, env, p, auth.Test, 30, time.Now())
	page := decode[listResp](t, env.Do(t, "GET", "/v1-leads-list", p.key, "").Body)
	if len(page.Data) != 25 || !page.HasMore {
		t.Errorf("default page: %d leads, has_more %v; want 25, true", len(page.Data), page.HasMore)
	}
	all := decode[listResp](t, env.Do(t, "GET", "/v1-leads-list?limit=30", p.key, "").Body)
	if len(all.Data) != 30 || all.HasMore || all.NextCursor != nil {
		t.Errorf("exact page: %d leads, has_more %v, cursor %v; want 30, false, null", len(all.Data), all.HasMore, all.NextCursor)
	}
}

func TestGetLead(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	c := p.create(t, `{"customer_name":"Ada","email":"ada@example.com"}`)
	t.Run("detail shape", func(t *testing.T) {
		r := env.Do(t, "GET", "/v1-lead-get/"+c.LeadID, p.key, "")
		want := `{"lead_id":"` + c.LeadID + `","status":"new","survey":{"survey_id":null,"status":"none","inventory":null},"quote":null,"deposit":{"deposit_id":null,"status":"none"},"recommended_estimate":null}`
		if string(r.Body) != want {
			t.Errorf("got %s; want %s", r.Body, want)
		}
	})
	t.Run("upper-case id", func(t *testing.T) {
		r := env.Do(t, "GET", "/v1/leads/"+strings.ToUpper(c.LeadID), p.key, "")
		if r.Status != 200 || decode[detailResp](t, r.Body).LeadID != c.LeadID {
			t.Errorf("got %d %s; want the lead", r.Status, r.Body)
		}
	})
	for _, id := range []string{"not-a-uuid", "123", strings.Replace(c.LeadID, "-", "", -1), "{" + c.LeadID + "}", uuid.NewString()} {
		t.Run("404 "+id, func(t *testing.T) {
			for _, path := range []string{"/v1-lead-get/", "/v1/leads/"} {
				wantError(t, env.Do(t, "GET", path+url.PathEscape(id), p.key, ""), 404, "not_found")
			}
		})
	}
}
