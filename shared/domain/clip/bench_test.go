package clip_test

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

// BenchmarkProbe probes generated 5 MB and 500 MB clips of each kind. Next
// to ns/op and B/op (which must not grow with the clip) it reports ns/MB
// of clip, and read-B/op and reads/op: what the io.ReaderAt (S3 ranged
// GETs in the clip processor) was asked for.
func BenchmarkProbe(b *testing.B) {
	for _, tc := range synthCases {
		for _, size := range []struct {
			name  string
			bytes int64
		}{{"5MB", 5 << 20}, {"500MB", 500 << 20}} {
			b.Run(tc.slug+"/"+size.name, func(b *testing.B) {
				syn, want := tc.clip(b, size.bytes)
				c := &counting{r: syn}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					info, err := clip.Probe(c, syn.size)
					if err != nil || info.Duration != want {
						b.Fatalf("Probe: got %v, %v; want %v, nil", info.Duration, err, want)
					}
				}
				b.StopTimer()
				n := float64(b.N)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/(float64(syn.size)/1e6), "ns/MB")
				b.ReportMetric(float64(c.bytes)/n, "read-B/op")
				b.ReportMetric(float64(c.reads)/n, "reads/op")
			})
		}
	}
}
