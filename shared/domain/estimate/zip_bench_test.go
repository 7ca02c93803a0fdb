package estimate

import (
	"fmt"
	"testing"
)

// benchZIPs returns 1,024 five-digit strings spread over the whole ZIP range
// (a stride coprime with 100,000), so that a benchmark touches every part of
// the table rather than one cached neighbourhood. With hitsOnly it keeps
// stepping until it has 1,024 ZIPs that are in the table. The keys depend
// only on lookupZIP's answers, not on the table's layout, so that figures
// taken before and after a change of layout compare like with like.
func benchZIPs(hitsOnly bool) []string {
	zips := make([]string, 0, 1024)
	for i := 0; len(zips) < cap(zips); i++ {
		z := fmt.Sprintf("%05d", i*7919%100000)
		if _, _, ok := lookupZIP(z); ok || !hitsOnly {
			zips = append(zips, z)
		}
	}
	return zips
}

// BenchmarkLookupZIP measures a lookup of a known ZIP, the common case of
// pricing a move.
func BenchmarkLookupZIP(b *testing.B) {
	zips := benchZIPs(true)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, ok := lookupZIP(zips[i%len(zips)]); !ok {
			b.Fatal("lookupZIP: known ZIP not found")
		}
	}
}

// BenchmarkLookupZIPMixed measures lookups of which about two thirds miss,
// as FindZIP's do when it tries every five-digit run in an address.
func BenchmarkLookupZIPMixed(b *testing.B) {
	zips := benchZIPs(false)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		lookupZIP(zips[i%len(zips)])
	}
}

// BenchmarkDistanceMiles measures the whole distance of a move: two lookups
// and the haversine formula.
func BenchmarkDistanceMiles(b *testing.B) {
	zips := benchZIPs(true)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, ok := DistanceMiles(zips[i%len(zips)], zips[(i+512)%len(zips)]); !ok {
			b.Fatal("DistanceMiles: known ZIP not found")
		}
	}
}
