package webhook

import (
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestEventsNameTheirLead: the events a lead's changes owe carry its id,
// by which listEvents filters; a webhook.test carries none.
func TestEventsNameTheirLead(t *testing.T) {
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	evs, err := SurveyEvents("test", "lead_1", "srv_1", survey.Failed, nil, nil, at)
	if err != nil || len(evs) != 1 || evs[0].LeadID != "lead_1" {
		t.Errorf("SurveyEvents = %+v, %v; want one event with LeadID lead_1", evs, err)
	}
	d := deposit.Deposit{ID: "dep_1", LeadID: "lead_2", Status: deposit.Paid}
	evs, err = DepositEvents("test", d, deposit.Transition{From: deposit.CheckoutOpen, To: deposit.Paid}, "booked", at)
	if err != nil || len(evs) == 0 {
		t.Fatalf("DepositEvents = %+v, %v; want events", evs, err)
	}
	for _, e := range evs {
		if e.LeadID != "lead_2" {
			t.Errorf("%s: LeadID %q; want lead_2", e.Type, e.LeadID)
		}
		if w, err := e.WithLeadStatus("lost"); err != nil || w.LeadID != "lead_2" {
			t.Errorf("WithLeadStatus: %+v, %v; want the lead kept", w, err)
		}
	}
	if e := TestEvent("evt_test_1", Endpoint{ID: "ep"}, at); e.LeadID != "" {
		t.Errorf("webhook.test LeadID %q; want none", e.LeadID)
	}
}

func TestListedAndOldest(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		e    Event
		want bool
	}{
		{"new", Event{At: now}, true},
		{"exactly 30 days", Event{At: now.Add(-Retention)}, true},
		{"30 days and a microsecond", Event{At: now.Add(-Retention - time.Microsecond)}, false},
		{"a test to one endpoint", Event{At: now, Endpoint: "ep"}, false},
	} {
		if got := tc.e.Listed(now); got != tc.want {
			t.Errorf("%s: Listed = %v; want %v", tc.name, got, tc.want)
		}
	}
	recent, ancient := now.Add(-time.Hour), now.Add(-40*24*time.Hour)
	for _, tc := range []struct {
		since *time.Time
		want  time.Time
	}{{nil, now.Add(-Retention)}, {&recent, recent}, {&ancient, now.Add(-Retention)}} {
		if got := (ListQuery{Now: now, Since: tc.since}).Oldest(); !got.Equal(tc.want) {
			t.Errorf("Oldest(since %v) = %v; want %v", tc.since, got, tc.want)
		}
	}
}

func FuzzValidID(f *testing.F) {
	for _, s := range []string{"evt_0b9f1f4e-7c5a-4a43-9d55-0a8d2a0c3e11_survey.completed", "evt_test_0123456789abcdef", "evt_", "", "evt_A", "evt_a/b", "evt_é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if !ValidID(id) {
			return
		}
		// A valid id is short, starts with evt_, and has nothing a key or
		// a path could split on.
		if !strings.HasPrefix(id, "evt_") || len(id) > maxIDLen || len(id) <= 4 || strings.ContainsAny(id, "#/ %?&") {
			t.Errorf("ValidID(%q) = true", id)
		}
		if strings.ToLower(id) != id {
			t.Errorf("ValidID(%q) = true for upper case", id)
		}
	})
}
