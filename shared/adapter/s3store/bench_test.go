package s3store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

// BenchmarkPresignUpload measures signing an upload: local CPU work, no
// request.
func BenchmarkPresignUpload(b *testing.B) {
	s := mustNew(b, loadConfig(b), "clips")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.PresignUpload(ctx, "surveys/s1/clips/c1.webm", "video/webm", 5<<20, 15*time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProbeOverS3 probes a clip in MinIO through a RangeReader:
// MediaRecorder's WebM as recorded (no Duration: the probe scans back for
// the last cluster) and H.264 MP4 with its moov after 8 MiB, as phones
// write it. It reports requests/op and read-B/op next to ns/op, which is
// mostly loopback round trips to MinIO.
func BenchmarkProbeOverS3(b *testing.B) {
	s := newStore(b)
	for _, bc := range []struct {
		name, file string
		pad        bool
	}{
		{"mediarecorder-vp8-opus.webm", "mediarecorder-vp8-opus.webm", false},
		{"h264.mp4+8MiB", "h264.mp4", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(fixtures, bc.file))
			if err != nil {
				b.Fatal(err)
			}
			if bc.pad {
				data = padClip(b, data)
			}
			put(b, s, bc.name, "application/octet-stream", data)
			size := int64(len(data))
			ctx := context.Background()
			var total Usage
			b.ReportAllocs()
			for b.Loop() {
				r := s.ReaderAt(ctx, bc.name, size)
				if _, err := clip.Probe(r, size); err != nil {
					b.Fatal(err)
				}
				u := r.Usage()
				total.Requests += u.Requests
				total.Bytes += u.Bytes
			}
			b.ReportMetric(float64(total.Requests)/float64(b.N), "requests/op")
			b.ReportMetric(float64(total.Bytes)/float64(b.N), "read-B/op")
		})
	}
}
