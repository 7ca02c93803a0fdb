package apigw_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

type eventResp struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

type eventListResp struct {
	Data       []eventResp `json:"data"`
	NextCursor *string     `json:"next_cursor"`
	HasMore    bool        `json:"has_more"`
}

// putEvent stores an event for tn through the store (as the state changes
// that owe events write them), about leadID, at at.
func putEvent(t *testing.T, env *apitest.Env, tn auth.Tenant, typ webhook.Type, leadID string, at time.Time) webhook.Event {
	t.Helper()
	e := webhook.Event{ID: "evt_" + uuid.NewString() + "_" + string(typ), Type: typ, Mode: string(tn.Mode), At: at, LeadID: leadID,
		Data: json.RawMessage(fmt.Sprintf(`{"lead_id":%q,"mode":%q}`, leadID, tn.Mode))}
	if _, err := env.Store.PutEvent(context.Background(), tn, e); err != nil {
		t.Fatal(err)
	}
	return e
}

// listAll follows next_cursor from path (which has a query) and returns
// every event id in order.
func listAll(t *testing.T, env *apitest.Env, key, path string) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for range 100 {
		p := path
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		r := env.Do(t, "GET", p, key, "")
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", p, r.Status, r.Body)
		}
		page := decode[eventListResp](t, r.Body)
		for _, e := range page.Data {
			ids = append(ids, e.ID)
		}
		if page.HasMore != (page.NextCursor != nil) {
			t.Fatalf("has_more %v with next_cursor %v", page.HasMore, page.NextCursor)
		}
		if !page.HasMore {
			return ids
		}
		cursor = *page.NextCursor
	}
	t.Fatal("listing did not end in 100 pages")
	return nil
}

// eventsFixture is one partner's test-mode events (newest first in
// want), beside its live events, another partner's, an event past the 30
// days and a webhook.test.
type eventsFixture struct {
	env          *apitest.Env
	a, b         keyedPartner
	aLive        string // partner a's live key
	now          time.Time
	leadX, leadY string
	all          []webhook.Event // a's listed test events, newest first
	old, test    webhook.Event   // a's, never listed
	live, other  webhook.Event   // a's live event, b's event
}

func newEventsFixture(t *testing.T) eventsFixture {
	t.Helper()
	env := apitest.New(t)
	f := eventsFixture{env: env, a: newPartner(t, env), leadX: uuid.NewString(), leadY: uuid.NewString()}
	f.b = newPartner(t, env)
	f.aLive, _ = env.NewKey(t, f.a.id, auth.Live)
	f.now = time.Now().UTC().Truncate(time.Second)
	env.Clock.Set(f.now)
	ta := auth.Tenant{PartnerID: f.a.id, Mode: auth.Test}
	types := []webhook.Type{webhook.SurveyCompleted, webhook.EstimateReady, webhook.DepositPaid, webhook.LeadBooked}
	for i := range 12 {
		leadID := f.leadX
		if i%3 == 0 {
			leadID = f.leadY
		}
		f.all = append(f.all, putEvent(t, env, ta, types[i%len(types)], leadID, f.now.Add(-time.Duration(i)*time.Hour)))
	}
	// Two at the same instant: the id orders them.
	twin := putEvent(t, env, ta, webhook.SurveyFailed, f.leadX, f.now.Add(-20*time.Hour))
	twin2 := putEvent(t, env, ta, webhook.SurveyFailed, f.leadX, f.now.Add(-20*time.Hour))
	if twin.ID < twin2.ID {
		twin, twin2 = twin2, twin
	}
	f.all = append(f.all, twin, twin2)
	f.old = putEvent(t, env, ta, webhook.SurveyCompleted, f.leadX, f.now.Add(-webhook.Retention-time.Second))
	f.test = webhook.TestEvent(webhook.NewTestEventID(), webhook.Endpoint{ID: uuid.NewString(), Tenant: ta}, f.now.Add(-time.Minute))
	if _, err := env.Store.PutEvent(context.Background(), ta, f.test); err != nil {
		t.Fatal(err)
	}
	f.live = putEvent(t, env, auth.Tenant{PartnerID: f.a.id, Mode: auth.Live}, webhook.SurveyCompleted, f.leadX, f.now.Add(-time.Minute))
	f.other = putEvent(t, env, auth.Tenant{PartnerID: f.b.id, Mode: auth.Test}, webhook.SurveyCompleted, f.leadX, f.now.Add(-time.Minute))
	return f
}

// ids are the ids of the events of f.all that keep says to.
func (f eventsFixture) ids(keep func(webhook.Event) bool) []string {
	var out []string
	for _, e := range f.all {
		if keep(e) {
			out = append(out, e.ID)
		}
	}
	return out
}

func TestListEventsOrderCursorAndFilters(t *testing.T) {
	f := newEventsFixture(t)
	since := f.now.Add(-5 * time.Hour)
	sinceQ := url.QueryEscape(since.Format(time.RFC3339))
	all := func(webhook.Event) bool { return true }
	for _, tc := range []struct {
		name, query string
		keep        func(webhook.Event) bool
	}{
		{"all, newest first", "", all},
		{"type", "type=deposit.paid", func(e webhook.Event) bool { return e.Type == webhook.DepositPaid }},
		{"lead", "lead_id=" + f.leadY, func(e webhook.Event) bool { return e.LeadID == f.leadY }},
		{"lead in upper case", "lead_id=" + strings.ToUpper(f.leadY), func(e webhook.Event) bool { return e.LeadID == f.leadY }},
		{"created_since", "created_since=" + sinceQ, func(e webhook.Event) bool { return !e.At.Before(since) }},
		{"type and lead", "type=survey.completed&lead_id=" + f.leadY, func(e webhook.Event) bool { return e.Type == webhook.SurveyCompleted && e.LeadID == f.leadY }},
		{"all three", "type=estimate.ready&lead_id=" + f.leadX + "&created_since=" + sinceQ,
			func(e webhook.Event) bool {
				return e.Type == webhook.EstimateReady && e.LeadID == f.leadX && !e.At.Before(since)
			}},
		{"no match", "type=deposit.disputed", func(webhook.Event) bool { return false }},
	} {
		want := f.ids(tc.keep)
		for _, path := range []string{"/v1/events", "/v1-events"} {
			for _, limit := range []int{1, 4, 100} {
				t.Run(fmt.Sprintf("%s %s limit %d", tc.name, path, limit), func(t *testing.T) {
					got := listAll(t, f.env, f.a.key, fmt.Sprintf("%s?limit=%d&%s", path, limit, tc.query))
					if !slices.Equal(got, want) {
						t.Errorf("ids = %v; want %v", got, want)
					}
				})
			}
		}
	}
	t.Run("each event as its webhook payload", func(t *testing.T) {
		r := f.env.Do(t, "GET", "/v1/events?limit=1", f.a.key, "")
		page := decode[eventListResp](t, r.Body)
		want := f.all[0]
		if len(page.Data) != 1 || page.Data[0].ID != want.ID || page.Data[0].Type != string(want.Type) ||
			page.Data[0].CreatedAt != lead.FormatTime(want.At) || string(page.Data[0].Data) != string(want.Data) {
			t.Errorf("first event = %+v; want %+v", page.Data, want)
		}
		got := decode[eventResp](t, f.env.Do(t, "GET", "/v1/events/"+want.ID, f.a.key, "").Body)
		if got.ID != want.ID || string(got.Data) != string(want.Data) || got.Type != string(want.Type) || got.CreatedAt != lead.FormatTime(want.At) {
			t.Errorf("getEvent = %+v; want %+v", got, want)
		}
		pilot := decode[eventResp](t, f.env.Do(t, "GET", "/v1-event-get/"+want.ID, f.a.key, "").Body)
		if pilot.ID != want.ID {
			t.Errorf("getEvent (pilot path) = %+v; want %s", pilot, want.ID)
		}
	})
}

// TestEventsRetentionTenancyAndMode: nothing older than 30 days, no
// webhook.test, nothing of another partner or mode is listed or read.
func TestEventsRetentionTenancyAndMode(t *testing.T) {
	f := newEventsFixture(t)
	got := listAll(t, f.env, f.a.key, "/v1/events?limit=100")
	for _, never := range []webhook.Event{f.old, f.test, f.live, f.other} {
		if slices.Contains(got, never.ID) {
			t.Errorf("listing has %s (%s at %s); want it left out", never.ID, never.Type, never.At)
		}
		wantError(t, f.env.Do(t, "GET", "/v1/events/"+never.ID, f.a.key, ""), 404, "not_found")
	}
	if len(got) != len(f.all) {
		t.Errorf("listed %d events; want %d", len(got), len(f.all))
	}
	if ids := listAll(t, f.env, f.aLive, "/v1/events?limit=100"); !slices.Equal(ids, []string{f.live.ID}) {
		t.Errorf("live key lists %v; want only the live event %s", ids, f.live.ID)
	}
	if ids := listAll(t, f.env, f.b.key, "/v1/events?limit=100&lead_id="+f.leadX); !slices.Equal(ids, []string{f.other.ID}) {
		t.Errorf("partner b lists %v; want only its own %s", ids, f.other.ID)
	}
	for _, e := range f.all {
		wantError(t, f.env.Do(t, "GET", "/v1/events/"+e.ID, f.b.key, ""), 404, "not_found")
		wantError(t, f.env.Do(t, "GET", "/v1/events/"+e.ID, f.aLive, ""), 404, "not_found")
	}
	// The same event read at 30 days and a second after it happened.
	e := f.all[len(f.all)-1]
	f.env.Clock.Set(e.At.Add(webhook.Retention))
	if r := f.env.Do(t, "GET", "/v1/events/"+e.ID, f.a.key, ""); r.Status != 200 {
		t.Errorf("at exactly 30 days: %d %s; want 200", r.Status, r.Body)
	}
	f.env.Clock.Set(e.At.Add(webhook.Retention + time.Second))
	wantError(t, f.env.Do(t, "GET", "/v1/events/"+e.ID, f.a.key, ""), 404, "not_found")
	if ids := listAll(t, f.env, f.a.key, "/v1/events?limit=100"); slices.Contains(ids, e.ID) {
		t.Errorf("listing 30 days and a second later still has %s", e.ID)
	}
	for _, id := range []string{"x", "evt_", "EVT_" + e.ID[4:], uuid.NewString(), "evt_" + uuid.NewString() + "_survey.completed"} {
		wantError(t, f.env.Do(t, "GET", "/v1/events/"+url.PathEscape(id), f.a.key, ""), 404, "not_found")
	}
}

func TestListEventsRefusesBadQueries(t *testing.T) {
	f := newEventsFixture(t)
	first := decode[eventListResp](t, f.env.Do(t, "GET", "/v1/events?limit=1", f.a.key, "").Body)
	if first.NextCursor == nil {
		t.Fatal("no next_cursor")
	}
	c := *first.NextCursor
	bCursor := decode[eventListResp](t, f.env.Do(t, "GET", "/v1/events?limit=1", f.b.key, "").Body).NextCursor
	leadsKey := f.a.key
	seedLeads(t, f.env, f.a, auth.Test, 2, f.now.Add(-time.Hour))
	leadsCursor := decode[listResp](t, f.env.Do(t, "GET", "/v1/leads?limit=1", leadsKey, "").Body).NextCursor
	if leadsCursor == nil {
		t.Fatal("no leads cursor")
	}
	flip := "A"
	if strings.HasSuffix(c, "A") {
		flip = "B"
	}
	tampered := c[:len(c)-1] + flip
	for _, tc := range []struct {
		name, key, query, field string
	}{
		{"tampered cursor", f.a.key, "cursor=" + url.QueryEscape(tampered), "cursor"},
		{"garbage cursor", f.a.key, "cursor=abc", "cursor"},
		{"cursor of the live key", f.aLive, "cursor=" + url.QueryEscape(c), "cursor"},
		{"listLeads' cursor", f.a.key, "cursor=" + url.QueryEscape(*leadsCursor), "cursor"},
		{"webhook.test type", f.a.key, "type=webhook.test", "type"},
		{"unknown type", f.a.key, "type=lead.created", "type"},
		{"lead id not a UUID", f.a.key, "lead_id=lead-42", "lead_id"},
		{"created_since not RFC 3339", f.a.key, "created_since=yesterday", "created_since"},
		{"limit 0", f.a.key, "limit=0", "limit"},
		{"limit 101", f.a.key, "limit=101", "limit"},
		{"unknown parameter", f.a.key, "updated_since=2026-01-01T00:00:00Z", "updated_since"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := wantError(t, f.env.Do(t, "GET", "/v1/events?"+tc.query, tc.key, ""), 422, "validation_failed")
			fields, _ := e.Error.Details["fields"].(map[string]any)
			if _, ok := fields[tc.field]; !ok {
				t.Errorf("details %v; want fields.%s", e.Error.Details, tc.field)
			}
		})
	}
	if bCursor != nil {
		t.Run("another partner's cursor", func(t *testing.T) {
			wantError(t, f.env.Do(t, "GET", "/v1/events?cursor="+url.QueryEscape(*bCursor), f.a.key, ""), 422, "validation_failed")
		})
	}
	t.Run("a's cursor for b", func(t *testing.T) {
		wantError(t, f.env.Do(t, "GET", "/v1/events?cursor="+url.QueryEscape(c), f.b.key, ""), 422, "validation_failed")
	})
}

// TestEventsNeedTheirScope: a key without events:read (every key made
// before the scope existed) gets 403 insufficient_scope on both
// operations; a key with it alone reads them.
func TestEventsNeedTheirScope(t *testing.T) {
	f := newEventsFixture(t)
	old, _ := f.env.NewKey(t, f.a.id, auth.Test, auth.LeadsRead, auth.LeadsWrite, auth.SurveysRead, auth.SurveysWrite, auth.DepositsRead, auth.DepositsWrite)
	for _, path := range []string{"/v1/events", "/v1-events", "/v1/events/" + f.all[0].ID, "/v1-event-get/" + f.all[0].ID} {
		e := wantError(t, f.env.Do(t, "GET", path, old, ""), 403, "insufficient_scope")
		if e.Error.Details["required_scope"] != "events:read" {
			t.Errorf("GET %s: details %v; want required_scope events:read", path, e.Error.Details)
		}
	}
	only, _ := f.env.NewKey(t, f.a.id, auth.Test, auth.EventsRead)
	if r := f.env.Do(t, "GET", "/v1/events/"+f.all[0].ID, only, ""); r.Status != 200 {
		t.Errorf("events:read alone: %d %s; want 200", r.Status, r.Body)
	}
	wantError(t, f.env.Do(t, "GET", "/v1/leads", only, ""), 403, "insufficient_scope")
}

// TestEventsShareTheKeysRateLimit: the events API counts against the
// key's one per-minute limit with every other operation.
func TestEventsShareTheKeysRateLimit(t *testing.T) {
	f := newEventsFixture(t)
	f.env.Clock.Set(time.Date(2026, 11, 21, 12, 0, 10, 0, time.UTC))
	paths := []string{"/v1/leads?limit=1", "/v1/events?limit=1", "/v1-event-get/" + f.all[0].ID}
	for i := range 120 {
		r := f.env.DoRaw(t, "GET", paths[i%len(paths)], f.a.key, "")
		if r.Status == 429 {
			t.Fatalf("request %d (%s) answered 429 within the limit", i+1, paths[i%len(paths)])
		}
	}
	for _, p := range []string{"/v1/events", "/v1/events/" + f.all[0].ID, "/v1/leads"} {
		wantError(t, f.env.Do(t, "GET", p, f.a.key, ""), 429, "rate_limited")
	}
	// Another key of the same partner has its own count.
	if r := f.env.Do(t, "GET", "/v1/events?limit=1", f.aLive, ""); r.Status != 200 {
		t.Errorf("another key: %d; want 200", r.Status)
	}
}
