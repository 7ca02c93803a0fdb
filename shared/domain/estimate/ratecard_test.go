package estimate

import (
	"strings"
	"testing"
)

func TestDefaultRateCard(t *testing.T) {
	got := DefaultRateCard(" USD ")
	want := RateCard{Currency: "usd", HourlyCents: 6500, Crew: 2, TravelCentsPerMile: 250, MinimumCents: 35000}
	if got != want {
		t.Errorf("DefaultRateCard(\" USD \") = %+v; want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("DefaultRateCard(\" USD \").Validate() = %v; want nil", err)
	}
}

func TestRateCardValidate(t *testing.T) {
	valid := DefaultRateCard("usd")
	tests := []struct {
		name   string
		modify func(*RateCard)
		want   []string // substrings of the error; none for a valid card
	}{
		{"default", func(*RateCard) {}, nil},
		{"all zero amounts", func(rc *RateCard) { rc.HourlyCents, rc.TravelCentsPerMile, rc.MinimumCents = 0, 0, 0 }, nil},
		{"upper bounds", func(rc *RateCard) {
			rc.HourlyCents, rc.Crew, rc.TravelCentsPerMile, rc.MinimumCents = 100_000, 10, 10_000, 10_000_000
		}, nil},
		{"other currency", func(rc *RateCard) { rc.Currency = "jpy" }, nil},
		{"upper-case currency", func(rc *RateCard) { rc.Currency = "USD" }, []string{`currency must be`, `got "USD"`}},
		{"short currency", func(rc *RateCard) { rc.Currency = "us" }, []string{`currency must be`}},
		{"empty currency", func(rc *RateCard) { rc.Currency = "" }, []string{`got ""`}},
		{"currency with digit", func(rc *RateCard) { rc.Currency = "us1" }, []string{`currency must be`}},
		{"negative hourly", func(rc *RateCard) { rc.HourlyCents = -1 }, []string{"hourly_cents must be between 0 and 100000", "got -1"}},
		{"hourly in dollars times 100", func(rc *RateCard) { rc.HourlyCents = 650_000 }, []string{"hourly_cents", "got 650000"}},
		{"no crew", func(rc *RateCard) { rc.Crew = 0 }, []string{"crew must be between 1 and 10 movers; got 0"}},
		{"crew too large", func(rc *RateCard) { rc.Crew = 11 }, []string{"crew must be between 1 and 10", "got 11"}},
		{"negative travel", func(rc *RateCard) { rc.TravelCentsPerMile = -5 }, []string{"travel_cents_per_mile", "got -5"}},
		{"travel too large", func(rc *RateCard) { rc.TravelCentsPerMile = 10_001 }, []string{"travel_cents_per_mile", "got 10001"}},
		{"negative minimum", func(rc *RateCard) { rc.MinimumCents = -1 }, []string{"minimum_cents", "got -1"}},
		{"minimum too large", func(rc *RateCard) { rc.MinimumCents = 10_000_001 }, []string{"minimum_cents", "got 10000001"}},
		{"every problem reported", func(rc *RateCard) { *rc = RateCard{} }, []string{"currency", "crew"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := valid
			tt.modify(&rc)
			err := rc.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Errorf("Validate() = %q; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil; want an error containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q; want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestMinorPerMajor(t *testing.T) {
	tests := []struct {
		currency string
		want     int64
	}{
		{"usd", 100},
		{"eur", 100},
		{"xyz", 100}, // unknown codes use ISO 4217's usual two decimals
		{"jpy", 1},
		{"krw", 1},
		{"kwd", 1000},
		{"clf", 10000},
	}
	for _, tt := range tests {
		t.Run(tt.currency, func(t *testing.T) {
			if got := minorPerMajor(tt.currency); got != tt.want {
				t.Errorf("minorPerMajor(%q) = %d; want %d", tt.currency, got, tt.want)
			}
		})
	}
}
