package inventory

import (
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
)

const (
	addrNY1 = "350 W 31st St, New York, NY 10001"
	addrNY2 = "100 Delancey St, New York, NY 10002" // 3 road miles from addrNY1
	addrLA  = "8000 S Central Ave, Los Angeles, CA 90001"
)

// of returns an inventory of cubicFeet in one item.
func of(cubicFeet float64) Inventory {
	return Inventory{Rooms: []Room{{Name: "Storage", Items: []Item{{Key: "x", Count: 1, CubicFeet: cubicFeet}}}}}
}

func TestRecommend(t *testing.T) {
	usd := estimate.DefaultRateCard("usd") // 6500/mover-hour, crew 2, 250/mile, minimum 35000
	tests := []struct {
		name     string
		rc       estimate.RateCard
		inv      Inventory
		from, to string
		want     estimate.Estimate
		crew     int
		mover    [2]int64
		clock    [2]int64
		miles    int64
	}{
		{
			// The calibration point: 480 and 840 mover-minutes, crew 2, 4–7 h:
			// 52,000 and 91,000 cents, as the instant estimate's "2 bedroom".
			name: "typical two-bedroom", rc: usd, inv: of(750),
			want: estimate.Estimate{Min: 520, Max: 910, Currency: "usd"}, crew: 2, mover: [2]int64{480, 840}, clock: [2]int64{240, 420},
		},
		{
			// The worked example of the package documentation.
			name: "light two-bedroom across town", rc: usd, inv: of(479), from: addrNY1, to: addrNY2,
			want: estimate.Estimate{Min: 350, Max: 590, Currency: "usd"}, crew: 2, mover: [2]int64{307, 537}, clock: [2]int64{154, 269}, miles: 3,
		},
		{
			// 1120 slow mover-minutes take 2 movers 560 > 480 minutes: a third
			// mover. 6500×3×214/60 = 69,550 and 6500×3×374/60 = 121,550.
			name: "small three-bedroom gets a third mover", rc: usd, inv: of(1000),
			want: estimate.Estimate{Min: 696, Max: 1216, Currency: "usd"}, crew: 3, mover: [2]int64{640, 1120}, clock: [2]int64{214, 374},
		},
		{
			// 3360 slow mover-minutes: even 4 movers need 840 minutes, but the
			// crew stops at rc.Crew + 2.
			name: "crew capped at two extra movers", rc: usd, inv: of(3000),
			want: estimate.Estimate{Min: 2080, Max: 3640, Currency: "usd"}, crew: 4, mover: [2]int64{1920, 3360}, clock: [2]int64{480, 840},
		},
		{
			// 1 cu ft: 1 and 2 mover-minutes, far under the minimum.
			name: "minimum", rc: usd, inv: of(1),
			want: estimate.Estimate{Min: 350, Max: 350, Currency: "usd"}, crew: 2, mover: [2]int64{1, 2}, clock: [2]int64{1, 1},
		},
		{
			// + 2,938 miles × 250 = 734,500 cents, as the instant estimate.
			name: "coast to coast", rc: usd, inv: of(750), from: addrNY1, to: addrLA,
			want: estimate.Estimate{Min: 7865, Max: 8255, Currency: "usd"}, crew: 2, mover: [2]int64{480, 840}, clock: [2]int64{240, 420}, miles: 2938,
		},
		{
			name: "only one ZIP", rc: usd, inv: of(750), from: addrNY1, to: "somewhere in Ohio",
			want: estimate.Estimate{Min: 520, Max: 910, Currency: "usd"}, crew: 2, mover: [2]int64{480, 840}, clock: [2]int64{240, 420},
		},
		{
			// The yen has no minor unit: 5000×2×240/60 = 40,000 and 70,000 yen.
			name: "zero-decimal currency, uppercase", rc: estimate.RateCard{Currency: "JPY", HourlyCents: 5000, Crew: 2, MinimumCents: 35000}, inv: of(750),
			want: estimate.Estimate{Min: 40000, Max: 70000, Currency: "jpy"}, crew: 2, mover: [2]int64{480, 840}, clock: [2]int64{240, 420},
		},
		{
			// A crew of 1 works 480 fast minutes alone but not 840: crew 2.
			name: "one-mover card", rc: estimate.RateCard{Currency: "usd", HourlyCents: 6225, Crew: 1}, inv: of(750),
			want: estimate.Estimate{Min: 498, Max: 872, Currency: "usd"}, crew: 2, mover: [2]int64{480, 840}, clock: [2]int64{240, 420},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Recommend(tt.rc, tt.inv, tt.from, tt.to)
			if !ok {
				t.Fatalf("Recommend = no recommendation; want %+v", tt.want)
			}
			if got.Estimate != tt.want {
				t.Errorf("Recommend().Estimate = %+v; want %+v", got.Estimate, tt.want)
			}
			if got.Crew != tt.crew || got.MoverMinutes != tt.mover || got.ClockMinutes != tt.clock || got.Miles != tt.miles {
				t.Errorf("Recommend() = crew %d, mover-minutes %v, clock %v, miles %d; want %d, %v, %v, %d",
					got.Crew, got.MoverMinutes, got.ClockMinutes, got.Miles, tt.crew, tt.mover, tt.clock, tt.miles)
			}
		})
	}
}

// TestRecommendAgreesWithInstantEstimate: for the typical two-bedroom home
// the recommendation equals the instant estimate, with and without travel.
func TestRecommendAgreesWithInstantEstimate(t *testing.T) {
	for _, addrs := range [][2]string{{"", ""}, {addrNY1, addrNY2}, {addrNY1, addrLA}} {
		rc := estimate.DefaultRateCard("usd")
		instant := estimate.Compute(rc, estimate.Input{FromAddress: addrs[0], ToAddress: addrs[1], HomeSize: "2 bedroom"})
		got, ok := Recommend(rc, of(750), addrs[0], addrs[1])
		if instant == nil || !ok || got.Estimate != *instant {
			t.Errorf("%v: Recommend(750 cu ft) = %+v; want the instant estimate %+v", addrs, got.Estimate, instant)
		}
	}
}

func TestRecommendNone(t *testing.T) {
	usd := estimate.DefaultRateCard("usd")
	tests := []struct {
		name string
		rc   estimate.RateCard
		inv  Inventory
	}{
		{"empty inventory", usd, Inventory{}},
		{"nothing counted", usd, Inventory{Rooms: []Room{{Name: "Garage", Items: []Item{{Key: "washer", CubicFeet: 25}}}}}},
		{"zero rate card", estimate.RateCard{}, of(750)},
		{"crew too large", estimate.RateCard{Currency: "usd", HourlyCents: 6500, Crew: 1000}, of(750)},
		{"bad currency", estimate.RateCard{Currency: "us dollars", HourlyCents: 6500, Crew: 2}, of(750)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := Recommend(tt.rc, tt.inv, addrNY1, addrNY2); ok {
				t.Errorf("Recommend(%+v) = %+v; want no recommendation", tt.rc, got)
			}
		})
	}
}

func TestRecommendMinNotAboveMax(t *testing.T) {
	rcs := []estimate.RateCard{
		estimate.DefaultRateCard("usd"),
		{Currency: "usd", Crew: 1},
		{Currency: "usd", HourlyCents: 100_000, Crew: 10, TravelCentsPerMile: 10_000, MinimumCents: 10_000_000},
		{Currency: "kwd", HourlyCents: 1, Crew: 1, TravelCentsPerMile: 1, MinimumCents: 1},
	}
	for _, rc := range rcs {
		for _, cf := range []float64{0.1, 1.5, 100, 479, 750, 1000, 2500, 10_000, float64(MaxChecklistRooms * MaxCount * 150)} {
			got, ok := Recommend(rc, of(cf), addrNY1, addrLA)
			if !ok || got.Estimate.Min > got.Estimate.Max || got.Estimate.Min < 0 {
				t.Errorf("Recommend(%+v, %v cu ft) = %+v, %v; want 0 <= Min <= Max", rc, cf, got.Estimate, ok)
			}
			if got.Crew < rc.Crew || got.Crew > rc.Crew+maxExtraCrew {
				t.Errorf("Recommend(%+v, %v cu ft) crew %d; want %d to %d", rc, cf, got.Crew, rc.Crew, rc.Crew+maxExtraCrew)
			}
		}
	}
}

func TestMinorPerMajor(t *testing.T) {
	for currency, want := range map[string]int64{"usd": 100, "eur": 100, "jpy": 1, "krw": 1, "kwd": 1000, "bhd": 1000, "clf": 10000, "zzz": 100} {
		if got := minorPerMajor(currency); got != want {
			t.Errorf("minorPerMajor(%q) = %d; want %d (as estimate.Compute converts)", currency, got, want)
		}
	}
}

func FuzzRecommend(f *testing.F) {
	f.Add(479.0, "usd", int64(6500), 2, int64(250), int64(35000))
	f.Add(0.1, "JPY", int64(0), 1, int64(0), int64(0))
	f.Add(1e6, "kwd", int64(100_000), 10, int64(10_000), int64(10_000_000))
	f.Fuzz(func(t *testing.T, cubicFeet float64, currency string, hourly int64, crew int, travel, minimum int64) {
		if !(cubicFeet >= 0 && cubicFeet <= 1e7) {
			return // beyond any checklist: 30 rooms × 62 keys × 99 × 150 cu ft is under 3e7
		}
		rc := estimate.RateCard{Currency: currency, HourlyCents: hourly, Crew: crew, TravelCentsPerMile: travel, MinimumCents: minimum}
		got, ok := Recommend(rc, of(cubicFeet), addrNY1, addrNY2)
		if !ok {
			return
		}
		e := got.Estimate
		if e.Min > e.Max || e.Min < 0 || e.Currency != strings.ToLower(currency) {
			t.Errorf("Recommend(%v cu ft, %+v) = %+v; want 0 <= Min <= Max in %q", cubicFeet, rc, e, strings.ToLower(currency))
		}
	})
}
