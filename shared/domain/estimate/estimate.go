package estimate

import (
	"math"
	"strings"
)

// Estimate is the price range returned to partners, in whole major units of
// Currency (e.g. dollars), with Min <= Max.
type Estimate struct {
	Min      int64  `json:"min"`
	Max      int64  `json:"max"`
	Currency string `json:"currency"`
}

// Input is what a lead says about the move.
type Input struct {
	FromAddress, ToAddress, HomeSize string
}

// workload is the labor one bedroom-equivalent takes.
type workload struct {
	minHours, maxHours int64
	extraCrew          int // movers added to RateCard.Crew
}

// workloads is indexed by Size.Bedrooms. Homes of three bedrooms and more get
// extra movers because furniture a pair cannot carry safely (sofas, dressers,
// appliances) grows with the home; the hours still grow because loading and
// unloading do not parallelise perfectly.
var workloads = [maxBedroomEquivalents + 1]workload{
	{minHours: 2, maxHours: 4, extraCrew: 0},   // studio
	{minHours: 3, maxHours: 5, extraCrew: 0},   // 1 bedroom
	{minHours: 4, maxHours: 7, extraCrew: 0},   // 2 bedrooms
	{minHours: 6, maxHours: 9, extraCrew: 1},   // 3 bedrooms
	{minHours: 8, maxHours: 11, extraCrew: 1},  // 4 bedrooms
	{minHours: 10, maxHours: 14, extraCrew: 2}, // 5 bedrooms or more
}

// Compute returns the estimate for in under rc, or nil when the home size
// cannot be read (see ParseHomeSize) or rc is invalid (see RateCard.Validate;
// the currency's case does not matter, it is lowercased first). Distance is
// added only when both addresses contain a known US ZIP code; otherwise the
// estimate covers labor alone. The same arguments always give the same
// estimate.
func Compute(rc RateCard, in Input) *Estimate {
	rc.Currency = strings.ToLower(rc.Currency)
	if rc.Validate() != nil {
		return nil
	}
	size, ok := ParseHomeSize(in.HomeSize)
	if !ok {
		return nil
	}
	w := workloads[size.Bedrooms]
	perHour := rc.HourlyCents * int64(rc.Crew+w.extraCrew)
	travel := travelMiles(in.FromAddress, in.ToAddress) * rc.TravelCentsPerMile
	unit := minorPerMajor(rc.Currency)
	return &Estimate{
		Min:      toMajor(max(rc.MinimumCents, perHour*w.minHours+travel), unit),
		Max:      toMajor(max(rc.MinimumCents, perHour*w.maxHours+travel), unit),
		Currency: rc.Currency,
	}
}

// travelMiles returns the road miles between the ZIPs of two addresses,
// rounded to the nearest whole mile, or 0 when either has no known ZIP.
// Rounding makes the rest of Compute integer arithmetic, so floating point
// touches a price only through this one whole number.
func travelMiles(from, to string) int64 {
	fromZIP, ok := FindZIP(from)
	if !ok {
		return 0
	}
	toZIP, ok := FindZIP(to)
	if !ok {
		return 0
	}
	miles, ok := DistanceMiles(fromZIP, toZIP)
	if !ok {
		return 0
	}
	return int64(math.Round(miles))
}

// toMajor converts a non-negative amount in minor units to whole major
// units, rounding half up.
func toMajor(minor, perMajor int64) int64 {
	return (minor + perMajor/2) / perMajor
}
