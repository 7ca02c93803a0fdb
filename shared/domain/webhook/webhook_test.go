package webhook

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

func TestCatalogue(t *testing.T) {
	seen := map[Type]bool{}
	for _, k := range Catalogue {
		if seen[k.Type] || k.When == "" || !strings.Contains(string(k.Type), ".") {
			t.Errorf("catalogue entry %+v: duplicate, undocumented or not dotted", k)
		}
		seen[k.Type] = true
	}
	for _, ty := range []Type{SurveyCompleted, SurveyFailed, EstimateReady, Test} {
		if !seen[ty] {
			t.Errorf("%s is not in the catalogue", ty)
		}
	}
	got, err := ParseTypes(" survey.completed,estimate.ready ")
	if err != nil || len(got) != 2 || got[1] != EstimateReady {
		t.Errorf("ParseTypes = %v, %v", got, err)
	}
	if got, err := ParseTypes(""); got != nil || err != nil {
		t.Errorf(`ParseTypes("") = %v, %v; want every type (nil)`, got, err)
	}
	if _, err := ParseTypes("survey.completed,lead.created"); err == nil || !strings.Contains(err.Error(), "survey.failed") {
		t.Errorf("ParseTypes(unknown) = %v; want an error naming the known types", err)
	}
}

func TestPayload(t *testing.T) {
	e := Event{ID: "evt_1", Type: SurveyCompleted, Mode: "test", At: time.Date(2026, 11, 23, 4, 0, 0, 5, time.UTC), Data: json.RawMessage(`{"lead_id":"l"}`)}
	p, err := e.Payload()
	if err != nil {
		t.Fatal(err)
	}
	if string(p) != `{"type":"survey.completed","timestamp":"2026-11-23T04:00:00.000000005Z","data":{"lead_id":"l"}}` {
		t.Errorf("payload %s", p)
	}
}

func TestSchedule(t *testing.T) {
	want := []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
	if len(Schedule) != len(want) {
		t.Fatalf("schedule %v", Schedule)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 2; i <= len(want); i++ {
		lo, _ := NextAttempt(i, at, 0)
		mid, _ := NextAttempt(i, at, 0.5)
		hi, _ := NextAttempt(i, at, 0.999999)
		d := want[i-1]
		if mid.Sub(at) != d || lo.Sub(at) != time.Duration(float64(d)*0.9) || hi.Sub(at) > time.Duration(float64(d)*1.1) || hi.Sub(at) < d {
			t.Errorf("attempt %d: %v, %v, %v after the failure; want %v ±10%%", i, lo.Sub(at), mid.Sub(at), hi.Sub(at), d)
		}
	}
	for _, n := range []int{0, 1, len(want) + 1} {
		if _, ok := NextAttempt(n, at, 0.5); ok {
			t.Errorf("NextAttempt(%d) ok; want none", n)
		}
	}
	if ShouldDisable(time.Time{}, at) || ShouldDisable(at, at.Add(DisableAfter-time.Second)) || !ShouldDisable(at, at.Add(DisableAfter)) {
		t.Error("ShouldDisable: want true only after 5 days of failing")
	}
}

func TestSealer(t *testing.T) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	s, err := NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := NewSecret()
	sealed, err := s.Seal(secret, "we_1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, secret[len(SecretPrefix):]) || !strings.HasPrefix(sealed, "v1:") {
		t.Errorf("sealed %q holds the secret or lacks the version", sealed)
	}
	if again, _ := s.Seal(secret, "we_1"); again == sealed {
		t.Error("two seals are equal; want a fresh nonce each time")
	}
	if got, err := s.Open(sealed, "we_1"); err != nil || got != secret {
		t.Errorf("Open = %v; want the secret back", err)
	}
	other := make([]byte, 32)
	o, _ := NewSealer(other)
	for name, f := range map[string]func() (string, error){
		"another endpoint": func() (string, error) { return s.Open(sealed, "we_2") },
		"another key":      func() (string, error) { return o.Open(sealed, "we_1") },
		"altered":          func() (string, error) { return s.Open(sealed[:len(sealed)-2]+"AA", "we_1") },
		"not sealed":       func() (string, error) { return s.Open(secret, "we_1") },
		"empty":            func() (string, error) { return s.Open("", "we_1") },
	} {
		if got, err := f(); err != ErrSealed || got != "" {
			t.Errorf("%s: Open = %q, %v; want ErrSealed", name, got, err)
		}
	}
	if _, err := NewSealer(key[:16]); err == nil {
		t.Error("NewSealer with 16 bytes: want an error")
	}
}

// FuzzOpen: Open never panics and opens nothing but what Seal made.
func FuzzOpen(f *testing.F) {
	s, _ := NewSealer(make([]byte, 32))
	sealed, _ := s.Seal("whsec_x", "we_1")
	f.Add(sealed, "we_1")
	f.Add("v1:", "")
	f.Add("v1:AAAA", "x")
	f.Fuzz(func(t *testing.T, v, ctx string) {
		// The only secret ever sealed under this key (in any fuzz worker:
		// each seals its own copy with its own nonce) is whsec_x for we_1;
		// anything else opening would be a forgery GCM must reject.
		got, err := s.Open(v, ctx)
		if err == nil && (ctx != "we_1" || got != "whsec_x") {
			t.Fatalf("Open(%q, %q) = %q; want ErrSealed", v, ctx, got)
		}
		if err != nil && err != ErrSealed {
			t.Fatalf("Open(%q, %q) = %v; want ErrSealed", v, ctx, err)
		}
	})
}

func TestSurveyEvents(t *testing.T) {
	at := time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)
	est := &estimate.Estimate{}
	inv := &inventory.Inventory{Rooms: []inventory.Room{{Name: "Kitchen", Items: []inventory.Item{
		{Key: "box_small", Name: "Box, small", Count: 3, CubicFeet: 1.5, Source: inventory.FromChecklist}}}}}
	evs, err := SurveyEvents("test", "lead_1", "srv_1", survey.InventoryReady, inv, est, at)
	if err != nil || len(evs) != 2 || evs[0].Type != SurveyCompleted || evs[1].Type != EstimateReady {
		t.Fatalf("inventory_ready with an estimate: %+v, %v; want survey.completed and estimate.ready", evs, err)
	}
	var d SurveyData
	if err := json.Unmarshal(evs[0].Data, &d); err != nil || d.LeadID != "lead_1" || d.Mode != "test" || d.Survey.Status != "inventory_ready" || d.RecommendedEstimate == nil {
		t.Errorf("data %s: %v", evs[0].Data, err)
	}
	if want := inv.Summary(); d.Inventory == nil || !reflect.DeepEqual(*d.Inventory, want) {
		t.Errorf("data inventory %+v; want the summary %+v", d.Inventory, want)
	}
	if string(evs[1].Data) != string(evs[0].Data) {
		t.Errorf("estimate.ready data %s; want survey.completed's %s", evs[1].Data, evs[0].Data)
	}
	again, _ := SurveyEvents("test", "lead_1", "srv_1", survey.InventoryReady, inv, est, at.Add(time.Hour))
	if again[0].ID != evs[0].ID || evs[0].ID == evs[1].ID {
		t.Errorf("event ids %s, %s, %s: want stable per survey and type, distinct per type", evs[0].ID, again[0].ID, evs[1].ID)
	}
	if evs, _ := SurveyEvents("live", "l", "s", survey.InventoryReady, inv, nil, at); len(evs) != 1 || evs[0].Type != SurveyCompleted || evs[0].Mode != "live" {
		t.Errorf("inventory_ready without an estimate: %+v", evs)
	}
	if evs, _ := SurveyEvents("test", "l", "s", survey.Failed, nil, nil, at); len(evs) != 1 || evs[0].Type != SurveyFailed ||
		!strings.Contains(string(evs[0].Data), `"inventory":null`) {
		t.Errorf("failed: %+v; want survey.failed with a null inventory", evs)
	}
	if evs, _ := SurveyEvents("test", "l", "s", survey.Failed, inv, nil, at); len(evs) != 1 || !strings.Contains(string(evs[0].Data), `"inventory":null`) {
		t.Errorf("failed with an inventory given: %s; want a null inventory", evs[0].Data)
	}
	for _, st := range []survey.Status{survey.Invited, survey.Recording, survey.Processing} {
		if evs, _ := SurveyEvents("test", "l", "s", st, inv, nil, at); len(evs) != 0 {
			t.Errorf("%s owes %+v; want none", st, evs)
		}
	}
}
