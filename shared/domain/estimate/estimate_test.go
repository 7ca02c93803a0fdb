package estimate

import (
	"strings"
	"testing"
)

// Addresses whose ZIPs are in the table. 10001 -> 10002 is 2.95 road miles,
// billed as 3; 10001 -> 90001 is 2,938.05, billed as 2,938.
const (
	addrNY1 = "350 W 31st St, New York, NY 10001"
	addrNY2 = "100 Delancey St, New York, NY 10002-1234"
	addrLA  = "8000 S Central Ave, Los Angeles, CA 90001"
)

func TestCompute(t *testing.T) {
	usd := DefaultRateCard("usd") // 6500/mover-hour, crew 2, 250/mile, minimum 35000
	tests := []struct {
		name string
		rc   RateCard
		in   Input
		want Estimate
	}{
		{
			// crew 2, 4–7 h: 6500×2×4 = 52,000 and 6500×2×7 = 91,000 cents.
			name: "two bedrooms without zips",
			rc:   usd,
			in:   Input{FromAddress: "1 Main St", ToAddress: "2 Oak Ave", HomeSize: "2 bedroom"},
			want: Estimate{Min: 520, Max: 910, Currency: "usd"},
		},
		{
			// + 3 miles × 250 = 750: 52,750 and 91,750 cents, which round half up.
			name: "two bedrooms across town",
			rc:   usd,
			in:   Input{FromAddress: addrNY1, ToAddress: addrNY2, HomeSize: "2 bedrooms"},
			want: Estimate{Min: 528, Max: 918, Currency: "usd"},
		},
		{
			// + 2,938 miles × 250 = 734,500: 786,500 and 825,500 cents.
			name: "two bedrooms coast to coast",
			rc:   usd,
			in:   Input{FromAddress: addrNY1, ToAddress: addrLA, HomeSize: "two bedroom apartment"},
			want: Estimate{Min: 7865, Max: 8255, Currency: "usd"},
		},
		{
			name: "only one address has a zip",
			rc:   usd,
			in:   Input{FromAddress: addrNY1, ToAddress: "somewhere in Ohio", HomeSize: "2 bedroom"},
			want: Estimate{Min: 520, Max: 910, Currency: "usd"},
		},
		{
			// crew 2+1, 6–9 h: 6500×3×6 = 117,000 and 6500×3×9 = 175,500.
			name: "three bedrooms add a mover",
			rc:   usd,
			in:   Input{HomeSize: "3br"},
			want: Estimate{Min: 1170, Max: 1755, Currency: "usd"},
		},
		{
			// crew 2+2, 10–14 h: 6500×4×10 = 260,000 and 6500×4×14 = 364,000.
			name: "large home counts as five bedrooms",
			rc:   usd,
			in:   Input{HomeSize: "8 bedroom estate"},
			want: Estimate{Min: 2600, Max: 3640, Currency: "usd"},
		},
		{
			// crew 2, 2–4 h: 26,000 is below the 35,000 minimum; 52,000 is not.
			name: "minimum raises the low end",
			rc:   usd,
			in:   Input{HomeSize: "studio"},
			want: Estimate{Min: 350, Max: 520, Currency: "usd"},
		},
		{
			name: "minimum raises both ends",
			rc:   RateCard{Currency: "usd", HourlyCents: 6500, Crew: 2, MinimumCents: 100_000},
			in:   Input{HomeSize: "studio"},
			want: Estimate{Min: 1000, Max: 1000, Currency: "usd"},
		},
		{
			// crew 1, 2–4 h: 12,450 and 24,900 cents; 124.50 rounds half up.
			name: "rounds half up",
			rc:   RateCard{Currency: "usd", HourlyCents: 6225, Crew: 1},
			in:   Input{HomeSize: "studio"},
			want: Estimate{Min: 125, Max: 249, Currency: "usd"},
		},
		{
			name: "currency is lowercased",
			rc:   RateCard{Currency: "USD", HourlyCents: 6500, Crew: 2, TravelCentsPerMile: 250, MinimumCents: 35000},
			in:   Input{HomeSize: "2 bedroom"},
			want: Estimate{Min: 520, Max: 910, Currency: "usd"},
		},
		{
			// The yen has no minor unit: 5000×2×2 = 20,000 and 40,000 yen,
			// floored at 35,000.
			name: "zero-decimal currency",
			rc:   RateCard{Currency: "jpy", HourlyCents: 5000, Crew: 2, MinimumCents: 35000},
			in:   Input{HomeSize: "studio"},
			want: Estimate{Min: 35000, Max: 40000, Currency: "jpy"},
		},
		{
			// 1,800 sq ft is three bedroom-equivalents.
			name: "square feet",
			rc:   usd,
			in:   Input{HomeSize: "1,800 sq ft"},
			want: Estimate{Min: 1170, Max: 1755, Currency: "usd"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compute(tt.rc, tt.in)
			if got == nil {
				t.Fatalf("Compute(%+v, %+v) = nil; want %+v", tt.rc, tt.in, tt.want)
			}
			if *got != tt.want {
				t.Errorf("Compute(%+v, %+v) = %+v; want %+v", tt.rc, tt.in, *got, tt.want)
			}
		})
	}
}

func TestComputeNil(t *testing.T) {
	usd := DefaultRateCard("usd")
	tests := []struct {
		name string
		rc   RateCard
		in   Input
	}{
		{"unreadable size", usd, Input{FromAddress: addrNY1, ToAddress: addrLA, HomeSize: "big house"}},
		{"empty size", usd, Input{FromAddress: addrNY1, ToAddress: addrLA}},
		{"absurd size", usd, Input{HomeSize: "50 bedrooms"}},
		{"zero rate card", RateCard{}, Input{HomeSize: "2 bedroom"}},
		{"negative hourly", RateCard{Currency: "usd", HourlyCents: -6500, Crew: 2}, Input{HomeSize: "2 bedroom"}},
		{"crew too large", RateCard{Currency: "usd", HourlyCents: 6500, Crew: 1000}, Input{HomeSize: "2 bedroom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Compute(tt.rc, tt.in); got != nil {
				t.Errorf("Compute(%+v, %+v) = %+v; want nil", tt.rc, tt.in, *got)
			}
		})
	}
}

func TestComputeMinNotAboveMax(t *testing.T) {
	rcs := []RateCard{
		DefaultRateCard("usd"),
		{Currency: "usd", Crew: 1},
		{Currency: "usd", HourlyCents: 100_000, Crew: 10, TravelCentsPerMile: 10_000, MinimumCents: 10_000_000},
		{Currency: "kwd", HourlyCents: 1, Crew: 1, TravelCentsPerMile: 1, MinimumCents: 1},
	}
	sizes := []string{"studio", "1 bedroom", "2 bedroom", "3 bedroom", "4 bedroom", "5 bedroom", "12 bedroom"}
	for _, rc := range rcs {
		for _, size := range sizes {
			t.Run(rc.Currency+"/"+size, func(t *testing.T) {
				got := Compute(rc, Input{FromAddress: addrNY1, ToAddress: addrLA, HomeSize: size})
				if got == nil {
					t.Fatalf("Compute(%+v, %q) = nil; want an estimate", rc, size)
				}
				if got.Min > got.Max {
					t.Errorf("Compute(%+v, %q) = %+v; want Min <= Max", rc, size, *got)
				}
			})
		}
	}
}

func FuzzCompute(f *testing.F) {
	f.Add(addrNY1, addrLA, "2 bedrooms", "usd", int64(6500), 2, int64(250), int64(35000))
	f.Add("12345 Main St", "", "studio", "USD", int64(0), 1, int64(0), int64(0))
	f.Add(addrNY2, addrNY1, "20,000 sq ft", "jpy", int64(100_000), 10, int64(10_000), int64(10_000_000))
	f.Add("", "", "lots", "", int64(-1), 0, int64(-1), int64(-1))
	f.Fuzz(func(t *testing.T, from, to, size, currency string, hourly int64, crew int, travel, minimum int64) {
		rc := RateCard{Currency: currency, HourlyCents: hourly, Crew: crew, TravelCentsPerMile: travel, MinimumCents: minimum}
		got := Compute(rc, Input{FromAddress: from, ToAddress: to, HomeSize: size})
		if got == nil {
			return
		}
		if got.Min > got.Max {
			t.Errorf("Compute = %+v; want Min <= Max", *got)
		}
		if got.Min < 0 {
			t.Errorf("Compute = %+v; want Min >= 0", *got)
		}
		if got.Currency != strings.ToLower(currency) {
			t.Errorf("Compute(...).Currency = %q; want %q", got.Currency, strings.ToLower(currency))
		}
	})
}

func BenchmarkCompute(b *testing.B) {
	rc := DefaultRateCard("usd")
	in := Input{FromAddress: addrNY1, ToAddress: addrLA, HomeSize: "3 bedroom house, about 1,800 sq ft"}
	b.ReportAllocs()
	for b.Loop() {
		if Compute(rc, in) == nil {
			b.Fatal("Compute = nil; want an estimate")
		}
	}
}
