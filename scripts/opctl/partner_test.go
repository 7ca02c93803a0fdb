package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
)

var partnerIDPattern = regexp.MustCompile(`^ptn_[0-9a-f]{16}$`)

func TestPartnerCreate(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	long := strings.Repeat("é", maxNameLen)
	tests := []struct {
		name     string
		args     []string
		wantName string
		wantCard estimate.RateCard
	}{
		{"default currency", []string{"--name", "Acme Movers"}, "Acme Movers", estimate.DefaultRateCard("usd")},
		{"currency lowercased", []string{"--name", "Euro Moves", "--currency", "EUR"}, "Euro Moves", estimate.DefaultRateCard("eur")},
		{"name trimmed", []string{"--name", "  Padded  "}, "Padded", estimate.DefaultRateCard("usd")},
		{"longest name", []string{"--name=" + long}, long, estimate.DefaultRateCard("usd")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := opctl(t, s.Table(), append([]string{"partner", "create"}, tt.args...)...)
			if got, want := fields(t, r.stdout), []string{"partner_id"}; !slices.Equal(got, want) {
				t.Errorf("output fields %q; want %q", got, want)
			}
			out := ok[partnerCreated](t, r)
			if !partnerIDPattern.MatchString(out.PartnerID) {
				t.Errorf("partner_id %q; want ptn_<16 hex>", out.PartnerID)
			}
			p, err := s.GetPartner(context.Background(), out.PartnerID)
			if err != nil {
				t.Fatalf("GetPartner(%s): %v", out.PartnerID, err)
			}
			if p.Name != tt.wantName {
				t.Errorf("stored name %q; want %q", p.Name, tt.wantName)
			}
			if p.RateCard != tt.wantCard {
				t.Errorf("stored rate card %+v; want %+v", p.RateCard, tt.wantCard)
			}
		})
	}
}

func TestPartnerCreateUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no name", nil, "--name is required"},
		{"blank name", []string{"--name", "   "}, "--name is required"},
		{"name too long", []string{"--name", strings.Repeat("x", maxNameLen+1)}, "at most 200 characters"},
		{"control character", []string{"--name", "Acme\nMovers"}, "control characters"},
		{"invalid UTF-8", []string{"--name", "Acme \xff"}, "UTF-8"},
		{"short currency", []string{"--name", "A", "--currency", "us"}, "--currency"},
		{"long currency", []string{"--name", "A", "--currency", "usdd"}, "--currency"},
		{"digit in currency", []string{"--name", "A", "--currency", "u5d"}, "--currency"},
		{"positional", []string{"--name", "A", "extra"}, `unexpected argument "extra"`},
		{"unknown flag", []string{"--name", "A", "--colour", "red"}, "flag provided but not defined"},
		{"flag without value", []string{"--name"}, "flag needs an argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Usage errors are found before the table is needed.
			fails(t, opctl(t, "", append([]string{"partner", "create"}, tt.args...)...), exitUsage, tt.want)
		})
	}
}

func TestRateCard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	id := createPartner(t, s)
	card := func(args ...string) estimate.RateCard {
		t.Helper()
		r := opctl(t, s.Table(), append([]string{"partner", "rate-card", "--partner", id}, args...)...)
		want := []string{"crew", "currency", "hourly_cents", "minimum_cents", "travel_cents_per_mile"}
		if got := fields(t, r.stdout); !slices.Equal(got, want) {
			t.Errorf("output fields %q; want %q", got, want)
		}
		return ok[estimate.RateCard](t, r)
	}

	if got, want := card(), estimate.DefaultRateCard("usd"); got != want {
		t.Errorf("rate-card with no flags = %+v; want %+v", got, want)
	}

	want := estimate.DefaultRateCard("usd")
	want.HourlyCents, want.Crew = 7000, 3
	if got := card("--hourly-cents", "7000", "--crew", "3"); got != want {
		t.Errorf("rate-card --hourly-cents 7000 --crew 3 = %+v; want %+v", got, want)
	}
	want.TravelCentsPerMile, want.MinimumCents = 0, 50000
	if got := card("--travel-cents-per-mile=0", "--minimum-cents=50000"); got != want {
		t.Errorf("rate-card --travel-cents-per-mile=0 --minimum-cents=50000 = %+v; want %+v", got, want)
	}

	p, err := s.GetPartner(ctx, id)
	if err != nil {
		t.Fatalf("GetPartner: %v", err)
	}
	if p.RateCard != want {
		t.Errorf("stored rate card %+v; want %+v", p.RateCard, want)
	}
	if got := card(); got != want {
		t.Errorf("rate-card with no flags after update = %+v; want %+v", got, want)
	}
}

func TestRateCardInvalid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	id := createPartner(t, s)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"crew zero", []string{"--crew", "0"}, "crew must be between 1 and 10"},
		{"crew too large", []string{"--crew", "11"}, "crew must be between 1 and 10"},
		{"negative hourly", []string{"--hourly-cents", "-1"}, "hourly_cents"},
		{"negative travel", []string{"--travel-cents-per-mile", "-5"}, "travel_cents_per_mile"},
		{"negative minimum", []string{"--minimum-cents", "-100"}, "minimum_cents"},
		{"two problems", []string{"--crew", "0", "--minimum-cents", "-1"}, "crew must be between 1 and 10 movers; got 0; minimum_cents"},
		{"valid with invalid", []string{"--hourly-cents", "7000", "--crew", "0"}, "crew"},
		{"not a number", []string{"--crew", "two"}, `invalid value "two"`},
		{"overflow", []string{"--hourly-cents", "99999999999999999999"}, "invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails(t, opctl(t, s.Table(), append([]string{"partner", "rate-card", "--partner", id}, tt.args...)...), exitUsage, tt.want)
			p, err := s.GetPartner(ctx, id)
			if err != nil {
				t.Fatalf("GetPartner: %v", err)
			}
			if want := estimate.DefaultRateCard("usd"); p.RateCard != want {
				t.Errorf("stored rate card %+v; want it unchanged, %+v", p.RateCard, want)
			}
		})
	}
}

// TestRateCardStoredInvalid covers a stored card that is already invalid
// (the store does not validate): a change that leaves it invalid is refused
// with exit 1 and nothing is written.
func TestRateCardStoredInvalid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	id := createPartner(t, s)
	bad := estimate.DefaultRateCard("usd")
	bad.Currency = "US"
	if err := s.SetRateCard(ctx, id, bad); err != nil {
		t.Fatalf("SetRateCard: %v", err)
	}
	fails(t, opctl(t, s.Table(), "partner", "rate-card", "--partner", id, "--crew", "3"), exitFailure,
		"opctl: rate card of partner "+id+" would be invalid: currency must be")
	p, err := s.GetPartner(ctx, id)
	if err != nil {
		t.Fatalf("GetPartner: %v", err)
	}
	if p.RateCard != bad {
		t.Errorf("stored rate card %+v; want it unchanged, %+v", p.RateCard, bad)
	}
	if got := ok[estimate.RateCard](t, opctl(t, s.Table(), "partner", "rate-card", "--partner", id)); got != bad {
		t.Errorf("rate-card with no flags = %+v; want the stored card %+v", got, bad)
	}
}
