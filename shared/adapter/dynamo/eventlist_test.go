package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// putListEvent writes one event of type typ about leadID at at for t.
func putListEvent(t *testing.T, s *Store, tn auth.Tenant, id string, typ webhook.Type, leadID string, at time.Time) webhook.Event {
	t.Helper()
	e := webhook.Event{ID: id, Type: typ, Mode: string(tn.Mode), At: at, LeadID: leadID, Data: json.RawMessage(`{"lead_id":"` + leadID + `"}`)}
	if _, err := s.PutEvent(context.Background(), tn, e); err != nil {
		t.Fatalf("put event %s: %v", id, err)
	}
	return e
}

// listIDs lists every page of q (q.Limit per page) and returns the ids in
// order, following After as a client follows next_cursor.
func listIDs(t *testing.T, s *Store, tn auth.Tenant, q webhook.ListQuery) []string {
	t.Helper()
	var ids []string
	for range 50 {
		evs, more, err := s.ListEvents(context.Background(), tn, q)
		if err != nil {
			t.Fatalf("ListEvents(%+v): %v", q, err)
		}
		for _, e := range evs {
			ids = append(ids, e.ID)
		}
		if !more {
			return ids
		}
		if len(evs) == 0 {
			t.Fatalf("ListEvents(%+v): more with an empty page", q)
		}
		last := evs[len(evs)-1]
		q.After = &webhook.Position{At: lead.FormatTime(last.At), ID: last.ID}
	}
	t.Fatal("listing did not end in 50 pages")
	return nil
}

func TestListEvents(t *testing.T) {
	s := newStore(t)
	// Near the real clock: DynamoDB Local's TTL deletes items whose
	// expires_at (the event's time + 30 days) has passed in real time.
	now := time.Now().UTC().Truncate(time.Second)
	a := auth.Tenant{PartnerID: "ptn_a", Mode: auth.Test}
	// Newest first: e5 … e1; e0 is 31 days old, which TTL has not deleted yet.
	putListEvent(t, s, a, "evt_0", webhook.SurveyCompleted, "lead_1", now.Add(-31*24*time.Hour))
	putListEvent(t, s, a, "evt_1", webhook.SurveyCompleted, "lead_1", now.Add(-29*24*time.Hour))
	putListEvent(t, s, a, "evt_2", webhook.EstimateReady, "lead_1", now.Add(-3*time.Hour))
	putListEvent(t, s, a, "evt_3", webhook.SurveyCompleted, "lead_2", now.Add(-2*time.Hour))
	putListEvent(t, s, a, "evt_4", webhook.SurveyFailed, "lead_2", now.Add(-time.Hour))
	putListEvent(t, s, a, "evt_5", webhook.SurveyCompleted, "lead_1", now.Add(-time.Minute))
	// Same time as evt_5: ties are ordered by id, newest first means higher id first.
	putListEvent(t, s, a, "evt_6", webhook.SurveyCompleted, "lead_3", now.Add(-time.Minute))
	// A webhook.test to one endpoint is never listed.
	ep := webhook.Endpoint{ID: "ep_1", Tenant: a}
	if _, err := s.PutEvent(context.Background(), a, webhook.TestEvent("evt_test_00", ep, now.Add(-30*time.Second))); err != nil {
		t.Fatal(err)
	}
	// Other tenants' events.
	putListEvent(t, s, auth.Tenant{PartnerID: "ptn_a", Mode: auth.Live}, "evt_live", webhook.SurveyCompleted, "lead_1", now.Add(-time.Minute))
	putListEvent(t, s, auth.Tenant{PartnerID: "ptn_b", Mode: auth.Test}, "evt_b", webhook.SurveyCompleted, "lead_1", now.Add(-time.Minute))

	// The listing indexes are global secondary indexes: eventually
	// consistent in AWS. Wait (bounded) until each shows what was written
	// before asserting on them (6: evt_0 is past the 30 days).
	waitIndexed(t, s, a, now, 6, webhook.ListQuery{}, webhook.ListQuery{Type: webhook.SurveyCompleted}, webhook.ListQuery{LeadID: "lead_1"})
	waitIndexed(t, s, auth.Tenant{PartnerID: "ptn_a", Mode: auth.Live}, now, 1, webhook.ListQuery{}, webhook.ListQuery{LeadID: "lead_1", Type: webhook.SurveyCompleted})
	waitIndexed(t, s, auth.Tenant{PartnerID: "ptn_b", Mode: auth.Test}, now, 1, webhook.ListQuery{}, webhook.ListQuery{LeadID: "lead_1", Type: webhook.SurveyCompleted})
	waitIndexed(t, s, a, now, 1, webhook.ListQuery{LeadID: "lead_2", Type: webhook.SurveyFailed})
	since := now.Add(-2 * time.Hour)
	tests := []struct {
		name string
		q    webhook.ListQuery
		want []string
	}{
		{"all, newest first, within 30 days", webhook.ListQuery{}, []string{"evt_6", "evt_5", "evt_4", "evt_3", "evt_2", "evt_1"}},
		{"type", webhook.ListQuery{Type: webhook.SurveyCompleted}, []string{"evt_6", "evt_5", "evt_3", "evt_1"}},
		{"lead", webhook.ListQuery{LeadID: "lead_1"}, []string{"evt_5", "evt_2", "evt_1"}},
		{"lead and type", webhook.ListQuery{LeadID: "lead_2", Type: webhook.SurveyFailed}, []string{"evt_4"}},
		{"since (inclusive)", webhook.ListQuery{Since: &since}, []string{"evt_6", "evt_5", "evt_4", "evt_3"}},
		{"since, type and lead", webhook.ListQuery{Since: &since, Type: webhook.SurveyCompleted, LeadID: "lead_1"}, []string{"evt_5"}},
		{"since older than 30 days lists 30 days", webhook.ListQuery{Since: new(now.Add(-40 * 24 * time.Hour)), LeadID: "lead_1"}, []string{"evt_5", "evt_2", "evt_1"}},
		{"unknown lead", webhook.ListQuery{LeadID: "lead_9"}, nil},
		{"a type with none", webhook.ListQuery{Type: webhook.DepositPaid}, nil},
	}
	for _, tt := range tests {
		for _, limit := range []int{1, 2, 100} {
			t.Run(fmt.Sprintf("%s, limit %d", tt.name, limit), func(t *testing.T) {
				q := tt.q
				q.Limit, q.Now = limit, now
				if got := listIDs(t, s, a, q); !slices.Equal(got, tt.want) {
					t.Errorf("ids = %v; want %v", got, tt.want)
				}
			})
		}
	}
	t.Run("other tenants see only theirs", func(t *testing.T) {
		for tn, want := range map[auth.Tenant][]string{
			{PartnerID: "ptn_a", Mode: auth.Live}: {"evt_live"},
			{PartnerID: "ptn_b", Mode: auth.Test}: {"evt_b"},
			{PartnerID: "ptn_c", Mode: auth.Test}: nil,
		} {
			if got := listIDs(t, s, tn, webhook.ListQuery{Limit: 100, Now: now}); !slices.Equal(got, want) {
				t.Errorf("%+v: ids = %v; want %v", tn, got, want)
			}
		}
	})
	t.Run("the listed event carries its lead and data", func(t *testing.T) {
		evs, _, err := s.ListEvents(context.Background(), a, webhook.ListQuery{Limit: 1, Now: now, LeadID: "lead_2", Type: webhook.SurveyFailed})
		if err != nil || len(evs) != 1 {
			t.Fatalf("ListEvents = %v, %v; want one event", evs, err)
		}
		if e := evs[0]; e.LeadID != "lead_2" || e.Type != webhook.SurveyFailed || string(e.Data) != `{"lead_id":"lead_2"}` || !e.At.Equal(now.Add(-time.Hour)) {
			t.Errorf("event = %+v; want evt_4 as written", e)
		}
	})
	t.Run("a cursor older than the oldest listed event ends the listing", func(t *testing.T) {
		evs, more, err := s.ListEvents(context.Background(), a, webhook.ListQuery{Limit: 10, Now: now, Since: &since,
			After: &webhook.Position{At: "2026-05-01T00:00:00.000000Z", ID: "evt_1"}})
		if err != nil || len(evs) != 0 || more {
			t.Errorf("ListEvents = %v, %v, %v; want nothing, no more, no error", evs, more, err)
		}
	})
}

// TestListEventsReadsOnlyWhatItLists: a filtered listing is a keyed
// Query; it never reads past the tenant's other events (no filter
// expression), so DynamoDB examines at most limit+2 items whatever the
// tenant holds.
func TestListEventsReadsOnlyWhatItLists(t *testing.T) {
	var mu sync.Mutex
	var scanned []int32
	s := newStore(t, func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("scanned", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if q, ok := out.Result.(*dynamodb.QueryOutput); ok {
					mu.Lock()
					scanned = append(scanned, q.ScannedCount)
					mu.Unlock()
				}
				return out, md, err
			}), middleware.After)
		})
	})
	// Near the real clock: DynamoDB Local's TTL deletes items whose
	// expires_at (the event's time + 30 days) has passed in real time.
	now := time.Now().UTC().Truncate(time.Second)
	a := auth.Tenant{PartnerID: "ptn_a", Mode: auth.Test}
	for i := range 40 {
		putListEvent(t, s, a, fmt.Sprintf("evt_other_%02d", i), webhook.SurveyCompleted, fmt.Sprintf("lead_%02d", i), now.Add(-time.Duration(i)*time.Minute))
	}
	for i := range 3 {
		putListEvent(t, s, a, fmt.Sprintf("evt_x_%d", i), webhook.DepositPaid, "lead_x", now.Add(-time.Duration(100+i)*time.Minute))
	}
	for _, q := range []webhook.ListQuery{
		{Type: webhook.DepositPaid, Limit: 2},
		{LeadID: "lead_x", Limit: 2},
		{LeadID: "lead_x", Type: webhook.DepositPaid, Limit: 2},
		{Limit: 2},
		{Limit: 2, After: &webhook.Position{At: lead.FormatTime(now.Add(-10 * time.Minute)), ID: "evt_other_10"}},
	} {
		mu.Lock()
		scanned = nil
		mu.Unlock()
		q.Now = now
		if _, _, err := s.ListEvents(context.Background(), a, q); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if len(scanned) != 1 || scanned[0] > int32(q.Limit+2) {
			t.Errorf("ListEvents(%+v): Query calls scanned %v items; want one Query of at most %d", q, scanned, q.Limit+2)
		}
		mu.Unlock()
	}
}

// waitIndexed waits, up to 20 s, until each of qs lists at least one
// event of tn (the first query: at least n), so that the indexes have
// caught up with the writes; then the test's own assertions run.
func waitIndexed(t *testing.T, s *Store, tn auth.Tenant, now time.Time, n int, qs ...webhook.ListQuery) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for i, q := range qs {
		q.Limit, q.Now = 100, now
		want := 1
		if i == 0 {
			want = n
		}
		for {
			evs, _, err := s.ListEvents(context.Background(), tn, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) >= want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("index of %+v lists %d events after 20 s; want %d", q, len(evs), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
