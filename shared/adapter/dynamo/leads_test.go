package dynamo

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 30, 123456000, time.UTC)

// fullLead returns a lead with every field set, each detail at its
// largest allowed size when big.
func fullLead(id string, at time.Time, big bool) lead.Lead {
	d := lead.Details{
		CustomerName: "Ada Lovelace", Email: "ada@example.com", Phone: "+1 555 0100",
		FromAddress: "1 Main St, Springfield 62701", ToAddress: "9 Elm St, Shelbyville 62565",
		HomeSize: "3 bedrooms", MoveDate: "2026-12-01", SpecialItems: []string{"piano", "safe"},
		Source: "website",
	}
	if big {
		d.CustomerName = strings.Repeat("n", 200)
		d.FromAddress, d.ToAddress = strings.Repeat("f", 500), strings.Repeat("t", 500)
		d.HomeSize, d.Source = strings.Repeat("h", 200), strings.Repeat("s", 200)
		d.SpecialItems = make([]string, 50)
		for i := range d.SpecialItems {
			d.SpecialItems[i] = fmt.Sprintf("%03d", i) + strings.Repeat("i", 197)
		}
	}
	return lead.Lead{
		ID: id, Status: lead.Quoted, Details: d,
		Estimate:  &estimate.Estimate{Min: 1200, Max: 1800, Currency: "usd"},
		CreatedAt: at, UpdatedAt: at.Add(time.Second),
	}
}

// equalLead compares leads, times by instant.
func equalLead(a, b lead.Lead) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || !a.UpdatedAt.Equal(b.UpdatedAt) {
		return false
	}
	a.CreatedAt, a.UpdatedAt, b.CreatedAt, b.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

func TestLeadRoundTripsEveryField(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	tenant := auth.Tenant{PartnerID: "ptn_rt", Mode: auth.Live}
	want := fullLead("lead_rt", t0, false)
	// Guard: a detail added to lead.Details without a value here would
	// pass unchecked.
	dv := reflect.ValueOf(want.Details)
	for i := range dv.NumField() {
		if dv.Field(i).IsZero() {
			t.Fatalf("fixture leaves Details.%s empty; set every field", dv.Type().Field(i).Name)
		}
	}
	if err := s.PutLead(ctx, tenant, want, false); err != nil {
		t.Fatalf("PutLead: %v", err)
	}
	got, err := s.GetLead(ctx, tenant, want.ID)
	if err != nil {
		t.Fatalf("GetLead: %v", err)
	}
	if !equalLead(got, want) {
		t.Errorf("GetLead = %+v; want %+v", got, want)
	}

	// The details are flattened into top-level attributes named by their
	// dynamodbav tags, as items written before the reshape have them.
	pk, sk := leadKey(tenant, want.ID)
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range dv.NumField() {
		name, _, _ := strings.Cut(dv.Type().Field(i).Tag.Get("dynamodbav"), ",")
		if _, ok := out.Item[name]; !ok {
			t.Errorf("stored item has no top-level attribute %q (Details.%s)", name, dv.Type().Field(i).Name)
		}
	}
	if _, ok := out.Item["Details"]; ok {
		t.Error("stored item has a nested Details attribute; want the details flattened")
	}
}

func TestPutLead(t *testing.T) {
	ctx := context.Background()
	tenant := auth.Tenant{PartnerID: "ptn_put", Mode: auth.Test}
	t.Run("pinned retry of a written lead keeps it as it is", func(t *testing.T) {
		s := newStore(t)
		first := fullLead("lead_pinned", t0, false)
		first.Status = lead.New
		if err := s.PutLead(ctx, tenant, first, true); err != nil {
			t.Fatalf("first PutLead: %v", err)
		}
		moved, err := s.SetLeadStatus(ctx, tenant, first.ID, lead.Surveying, t0.Add(time.Minute))
		if err != nil {
			t.Fatalf("SetLeadStatus: %v", err)
		}
		// The retry (whose answer to the first attempt was lost) builds the
		// lead afresh: new times, status new.
		retry := first
		retry.CreatedAt, retry.UpdatedAt = t0.Add(time.Hour), t0.Add(time.Hour)
		if err := s.PutLead(ctx, tenant, retry, true); err != nil {
			t.Fatalf("pinned PutLead of an existing lead = %v; want nil", err)
		}
		got, err := s.GetLead(ctx, tenant, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !equalLead(got, moved) {
			t.Errorf("after the pinned retry: %+v; want the stored lead unchanged %+v", got, moved)
		}
		if !got.CreatedAt.Equal(first.CreatedAt) || got.Status != lead.Surveying {
			t.Errorf("created_at %v status %s; want %v %s", got.CreatedAt, got.Status, first.CreatedAt, lead.Surveying)
		}
	})
	t.Run("unpinned id collision is a conflict and writes nothing", func(t *testing.T) {
		s := newStore(t)
		first := fullLead("lead_taken", t0, false)
		if err := s.PutLead(ctx, tenant, first, false); err != nil {
			t.Fatalf("first PutLead: %v", err)
		}
		second := fullLead("lead_taken", t0.Add(time.Hour), false)
		second.CustomerName = "Someone Else"
		wantCode(t, s.PutLead(ctx, tenant, second, false), errcode.Conflict)
		got, err := s.GetLead(ctx, tenant, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !equalLead(got, first) {
			t.Errorf("after the collision: %+v; want the first lead %+v", got, first)
		}
	})
	t.Run("same id in another tenant is another lead", func(t *testing.T) {
		s := newStore(t)
		l := fullLead("lead_same", t0, false)
		for _, tn := range []auth.Tenant{tenant, {PartnerID: tenant.PartnerID, Mode: auth.Live}, {PartnerID: "ptn_other", Mode: auth.Test}} {
			if err := s.PutLead(ctx, tn, l, false); err != nil {
				t.Errorf("PutLead for %+v: %v; want each tenant's own lead", tn, err)
			}
		}
	})
}

// TestListLeadsPastPageCap fills a tenant with leads at their largest
// allowed size, so that DynamoDB's 1 MB page cap stops a Query before
// Limit+1 items: the listing must still be full and has_more exact.
func TestListLeadsPastPageCap(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 1.2 MB")
	}
	rec := &calls{}
	s := newStore(t, rec.install)
	ctx := context.Background()
	tenant := auth.Tenant{PartnerID: "ptn_big", Mode: auth.Live}
	const n = 101
	var ids []string
	for i := range n {
		l := fullLead(fmt.Sprintf("lead_%03d", i), t0.Add(time.Duration(i)*time.Millisecond), true)
		if err := s.PutLead(ctx, tenant, l, false); err != nil {
			t.Fatalf("PutLead %d: %v", i, err)
		}
		ids = append(ids, l.ID)
	}
	tests := []struct {
		name      string
		q         lead.ListQuery
		wantIDs   []string
		wantMore  bool
		minQuerys int // Query calls: more than one proves the cap was hit
	}{
		{"full page, more follow", lead.ListQuery{Limit: 100}, ids[:100], true, 2},
		{"exactly the rest", lead.ListQuery{Limit: 100, After: &lead.Position{
			UpdatedAt: lead.FormatTime(t0.Add(99*time.Millisecond + time.Second)), LeadID: ids[99]}}, ids[100:], false, 1},
		{"page of all but one", lead.ListQuery{Limit: 99, After: &lead.Position{
			UpdatedAt: lead.FormatTime(t0.Add(time.Second)), LeadID: ids[0]}}, ids[1:100], true, 2},
		{"whole tenant on one page", lead.ListQuery{Limit: n}, ids, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.reset()
			got, more, err := s.ListLeads(ctx, tenant, tt.q)
			if err != nil {
				t.Fatalf("ListLeads: %v", err)
			}
			var gotIDs []string
			for _, l := range got {
				gotIDs = append(gotIDs, l.ID)
			}
			if !reflect.DeepEqual(gotIDs, tt.wantIDs) || more != tt.wantMore {
				t.Errorf("got %d leads (%s..), more %v; want %d (%s..), more %v",
					len(gotIDs), first(gotIDs), more, len(tt.wantIDs), first(tt.wantIDs), tt.wantMore)
			}
			if q := rec.count("Query"); q < tt.minQuerys {
				t.Errorf("%d Query calls; want at least %d (does DynamoDB Local still cap pages at 1 MB?)", q, tt.minQuerys)
			}
			if len(got) > 0 && !equalLead(got[0], fullLead(got[0].ID, got[0].CreatedAt, true)) {
				t.Errorf("listed lead %+v differs from the stored one", got[0])
			}
		})
	}
}

func first(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

func TestSetLeadStatus(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	tenant := auth.Tenant{PartnerID: "ptn_st", Mode: auth.Test}
	l := fullLead("lead_st", t0, false)
	if err := s.PutLead(ctx, tenant, l, false); err != nil {
		t.Fatal(err)
	}
	got, err := s.SetLeadStatus(ctx, tenant, l.ID, lead.Booked, t0.Add(time.Hour))
	if err != nil {
		t.Fatalf("SetLeadStatus: %v", err)
	}
	want := l
	want.Status, want.UpdatedAt = lead.Booked, t0.Add(time.Hour)
	if !equalLead(got, want) {
		t.Errorf("SetLeadStatus = %+v; want %+v", got, want)
	}
	_, err = s.SetLeadStatus(ctx, auth.Tenant{PartnerID: "ptn_st", Mode: auth.Live}, l.ID, lead.Booked, t0)
	wantCode(t, err, errcode.NotFound)
}
