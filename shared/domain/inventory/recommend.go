package inventory

import (
	"math"
	"strings"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
)

// The labor model of Recommend: mover-minutes per 100 cubic feet of
// inventory, a fast and a slow end, covering loading, unloading and the
// work between (wrapping, stairs, carrying), but not the drive, which
// travel prices. See the package documentation for where they come from.
const (
	fastMinutesPer100 = 64
	slowMinutesPer100 = 112
	// maxExtraCrew is how many movers Recommend may add to the rate card's
	// crew, as the instant estimate does for the largest homes.
	maxExtraCrew = 2
	// workdayMinutes is the longest a crew should work a move: Recommend
	// adds movers (up to maxExtraCrew) until the slow end fits in it.
	workdayMinutes = 8 * 60
)

// Recommendation is the recommended estimate of a surveyed move and how it
// was reached, for the operator.
type Recommendation struct {
	Estimate     estimate.Estimate
	Volume       Volume
	Crew         int      // movers
	MoverMinutes [2]int64 // fast and slow end
	ClockMinutes [2]int64 // how long the crew works, fast and slow end
	Miles        int64    // road miles charged (0 without both ZIPs)
}

// Recommend prices the move of inv under the partner's rate card rc, from
// fromAddress to toAddress, in the spec's Estimate shape:
//
//	volume        = inv.Volume(), in cubic feet
//	mover-minutes = ceil(volume × 64 / 100) fast, ceil(volume × 112 / 100) slow
//	crew          = rc.Crew, plus one mover at a time (at most two) while
//	                the slow end would take the crew more than 8 hours
//	clock minutes = ceil(mover-minutes / crew)
//	labor         = rc.HourlyCents × crew × clock minutes / 60, rounded half up
//	travel        = whole road miles × rc.TravelCentsPerMile, exactly as the
//	                instant estimate (0 unless both addresses hold a known ZIP)
//	cents         = max(rc.MinimumCents, labor + travel)
//	Min, Max      = cents of the fast and the slow end in whole major units,
//	                rounded half up
//
// Currency is rc's, lowercased. The same arguments always give the same
// recommendation. It returns false, and no recommendation, when inv holds
// nothing (an inventory of no volume says nothing about the move) or when rc
// is invalid (see estimate.RateCard.Validate).
func Recommend(rc estimate.RateCard, inv Inventory, fromAddress, toAddress string) (Recommendation, bool) {
	rc.Currency = strings.ToLower(rc.Currency)
	vol := inv.Volume()
	if vol <= 0 || rc.Validate() != nil {
		return Recommendation{}, false
	}
	r := Recommendation{Volume: vol, Crew: rc.Crew, Miles: travelMiles(fromAddress, toAddress)}
	// vol is in tenths of a cubic foot: × minutes per 100 cu ft / 1000.
	r.MoverMinutes = [2]int64{ceilDiv(int64(vol)*fastMinutesPer100, 1000), ceilDiv(int64(vol)*slowMinutesPer100, 1000)}
	for extra := 0; extra < maxExtraCrew && ceilDiv(r.MoverMinutes[1], int64(r.Crew)) > workdayMinutes; extra++ {
		r.Crew++
	}
	unit := minorPerMajor(rc.Currency)
	travel := r.Miles * rc.TravelCentsPerMile
	var major [2]int64
	for i, mm := range r.MoverMinutes {
		r.ClockMinutes[i] = ceilDiv(mm, int64(r.Crew))
		labor := (rc.HourlyCents*int64(r.Crew)*r.ClockMinutes[i] + 30) / 60
		major[i] = (max(rc.MinimumCents, labor+travel) + unit/2) / unit
	}
	r.Estimate = estimate.Estimate{Min: major[0], Max: major[1], Currency: rc.Currency}
	return r, true
}

// ceilDiv returns ⌈a / b⌉ for a >= 0 and b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// travelMiles returns the road miles between the ZIPs of two addresses as
// the instant estimate charges them: estimate.DistanceMiles rounded to the
// nearest whole mile, or 0 when either address has no known ZIP.
// (estimate.Compute does the same with an unexported helper; see the
// package documentation.)
func travelMiles(from, to string) int64 {
	fromZIP, ok := estimate.FindZIP(from)
	if !ok {
		return 0
	}
	toZIP, ok := estimate.FindZIP(to)
	if !ok {
		return 0
	}
	miles, ok := estimate.DistanceMiles(fromZIP, toZIP)
	if !ok {
		return 0
	}
	return int64(math.Round(miles))
}

// minorPerMajor returns how many minor units make one major unit of
// currency (100 for usd, 1 for jpy, 1000 for kwd), as estimate.Compute
// converts them. Package estimate keeps that ISO 4217 table unexported, so
// rather than copy it, this asks Compute: a card whose minimum is the only
// charge prices a studio at exactly its minimum, 10,000 minor units, which
// Compute returns as 10,000 / minorPerMajor (rounded half up; exact for the
// exponents 0 to 4 that exist). currency must be valid (three lowercase
// letters); an invalid one gives 100.
func minorPerMajor(currency string) int64 {
	probe := estimate.RateCard{Currency: currency, Crew: 1, MinimumCents: 10_000}
	est := estimate.Compute(probe, estimate.Input{HomeSize: "studio"})
	if est == nil || est.Min <= 0 {
		return 100
	}
	return 10_000 / est.Min
}
