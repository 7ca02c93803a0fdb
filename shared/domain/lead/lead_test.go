package lead

import (
	"reflect"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
)

func TestBuild(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 30, 45, 123456789, time.UTC)
	rc := estimate.DefaultRateCard("usd")
	full := CreateInput{
		CustomerName: "Ada", Email: "ada@example.com", Phone: "+15551234567",
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "2 Elm St, Boston, MA 02108",
		HomeSize: "2 bedroom", MoveDate: "2027-01-15", SpecialItems: []string{"piano"}, Source: "web",
	}
	without := func(edit func(*CreateInput)) CreateInput {
		in := full
		edit(&in)
		return in
	}
	// Build must attach exactly what the estimate model gives for the move;
	// the model itself is tested in package estimate.
	fullEstimate := estimate.Compute(rc, estimate.Input{FromAddress: full.FromAddress, ToAddress: full.ToAddress, HomeSize: full.HomeSize})
	if fullEstimate == nil {
		t.Fatal("estimate.Compute of the full input is nil; the fixture must have a readable home size")
	}
	tests := []struct {
		name         string
		in           CreateInput
		rc           estimate.RateCard
		wantEstimate *estimate.Estimate
	}{
		{"all four present", full, rc, fullEstimate},
		{"no from_address", without(func(c *CreateInput) { c.FromAddress = "" }), rc, nil},
		{"no to_address", without(func(c *CreateInput) { c.ToAddress = "" }), rc, nil},
		{"no home_size", without(func(c *CreateInput) { c.HomeSize = "" }), rc, nil},
		{"no email (phone is not enough)", without(func(c *CreateInput) { c.Email = "" }), rc, nil},
		{"no name, phone or date still estimates", without(func(c *CreateInput) {
			c.CustomerName, c.Phone, c.MoveDate, c.SpecialItems, c.Source = "", "", "", nil, ""
		}), rc, fullEstimate},
		{"unreadable home size", without(func(c *CreateInput) { c.HomeSize = "a castle" }), rc, nil},
		{"invalid rate card", full, estimate.RateCard{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Build("lead-1", tt.in, tt.rc, now)
			if !reflect.DeepEqual(l.Estimate, tt.wantEstimate) {
				t.Errorf("Estimate = %+v; want %+v", l.Estimate, tt.wantEstimate)
			}
			if l.ID != "lead-1" || l.Status != New {
				t.Errorf("ID, Status = %q, %q; want lead-1, new", l.ID, l.Status)
			}
			if !l.CreatedAt.Equal(now) || !l.UpdatedAt.Equal(now) {
				t.Errorf("CreatedAt, UpdatedAt = %v, %v; want both %v", l.CreatedAt, l.UpdatedAt, now)
			}
			got := CreateInput{
				CustomerName: l.CustomerName, Email: l.Email, Phone: l.Phone,
				FromAddress: l.FromAddress, ToAddress: l.ToAddress, HomeSize: l.HomeSize,
				MoveDate: l.MoveDate, SpecialItems: l.SpecialItems, Source: l.Source,
			}
			if !reflect.DeepEqual(got, tt.in) {
				t.Errorf("lead fields %+v; want the input %+v", got, tt.in)
			}
		})
	}
	t.Run("estimate is positive and ordered", func(t *testing.T) {
		e := Build("lead-1", full, rc, now).Estimate
		if e == nil || e.Min <= 0 || e.Min > e.Max || e.Currency != "usd" {
			t.Errorf("Estimate = %+v; want 0 < min <= max in usd", e)
		}
	})
}

func TestFormatTime(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		want string
	}{
		{"utc with nanoseconds", time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC), "2026-03-01T12:00:00.123456Z"},
		{"whole second keeps six digits", time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), "2026-03-01T12:00:00.000000Z"},
		{"other zone converted to UTC", time.Date(2026, 3, 1, 14, 0, 0, 0, time.FixedZone("CET+2", 2*3600)), "2026-03-01T12:00:00.000000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatTime(tt.t); got != tt.want {
				t.Errorf("FormatTime(%v) = %q; want %q", tt.t, got, tt.want)
			}
		})
	}
	t.Run("string order is time order", func(t *testing.T) {
		a := time.Date(2026, 3, 1, 12, 0, 0, 999999000, time.UTC)
		b := a.Add(time.Microsecond)
		if !(FormatTime(a) < FormatTime(b)) {
			t.Errorf("FormatTime(%v) = %q is not < FormatTime(%v) = %q", a, FormatTime(a), b, FormatTime(b))
		}
	})
}
