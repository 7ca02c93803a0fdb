package s3store

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

// fixtures is shared/domain/clip's directory of real clips (and rejected files).
const fixtures = "../../domain/clip/testdata"

// maxProbeRequests is the most ranged GETs a fixture may take: a few per
// clip keeps the clip processor's latency and request cost small.
const maxProbeRequests = 6

// TestProbeOverS3 uploads every fixture of shared/domain/clip and probes it
// through a RangeReader: the result, the error and the reads must be
// those of probing the local file, one ranged GET per read.
func TestProbeOverS3(t *testing.T) {
	s := newStore(t)
	files, err := filepath.Glob(filepath.Join(fixtures, "*"))
	if err != nil {
		t.Fatal(err)
	}
	probed := 0
	for _, file := range files {
		name := filepath.Base(file)
		if filepath.Ext(name) == ".md" {
			continue
		}
		probed++
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			size := int64(len(data))
			put(t, s, "clips/"+name, "application/octet-stream", data)
			wantInfo, wantUsage, wantErr := clip.DefaultLimits.Probe(bytes.NewReader(data), size)

			r := s.ReaderAt(context.Background(), "clips/"+name, size)
			info, usage, err := clip.DefaultLimits.Probe(r, size)
			if info != wantInfo || errText(err) != errText(wantErr) {
				t.Fatalf("Probe over S3 = %+v, %v; want %+v, %v (the local file's)", info, err, wantInfo, wantErr)
			}
			got := r.Usage()
			if usage != wantUsage || got.Requests != wantUsage.Reads || got.Bytes != wantUsage.Bytes {
				t.Errorf("reads: Probe's usage %+v, the reader's %+v; want %+v as for the local file, one request per read", usage, got, wantUsage)
			}
			if got.Requests > maxProbeRequests {
				t.Errorf("%d requests; want at most %d", got.Requests, maxProbeRequests)
			}
			t.Logf("%d bytes: %d requests, %d bytes read; %v", size, got.Requests, got.Bytes, outcome(info, err))
		})
	}
	if probed < 10 {
		t.Errorf("probed %d fixtures in %s; want the whole directory", probed, fixtures)
	}
}

// padding is how much padClip inserts: enough that the probe's reads no
// longer fit in one 64 KiB window, as in a phone's clip.
const padding = 8 << 20

// TestProbeLargeClipsOverS3 probes clips padded to 8 MiB, the way a
// phone's larger clips are laid out (the header at one end, far from the
// other structures), so the probe must jump: the result must be the
// unpadded clip's, with the local file's reads.
func TestProbeLargeClipsOverS3(t *testing.T) {
	s := newStore(t)
	for _, name := range []string{"h264.mp4", "h264-faststart.mp4", "h264-aac.mov", "mediarecorder-vp8-opus.webm", "mediarecorder-vp9.webm"} {
		t.Run(name, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join(fixtures, name))
			if err != nil {
				t.Fatal(err)
			}
			want, err := clip.Probe(bytes.NewReader(orig), int64(len(orig)))
			if err != nil {
				t.Fatalf("Probe of the fixture: %v", err)
			}
			data := padClip(t, orig)
			size := int64(len(data))
			_, wantUsage, err := clip.DefaultLimits.Probe(bytes.NewReader(data), size)
			if err != nil {
				t.Fatalf("Probe of the padded clip: %v", err)
			}
			put(t, s, "clips/"+name, "application/octet-stream", data)

			r := s.ReaderAt(context.Background(), "clips/"+name, size)
			info, err := clip.Probe(r, size)
			if info != want || err != nil {
				t.Fatalf("Probe over S3 = %+v, %v; want %+v, nil", info, err, want)
			}
			got := r.Usage()
			if got.Requests != wantUsage.Reads || got.Bytes != wantUsage.Bytes {
				t.Errorf("reader's usage %+v; want one request per read of the local file's %+v", got, wantUsage)
			}
			if got.Requests < 2 || got.Requests > maxProbeRequests {
				t.Errorf("%d requests; want 2 (the padding must be jumped) to %d", got.Requests, maxProbeRequests)
			}
			t.Logf("%d bytes: %d requests, %d bytes read; %+v", size, got.Requests, got.Bytes, info)
		})
	}
}

// padClip inserts padding bytes that every reader skips: in MP4 and MOV a
// top-level free box after ftyp (chunk offsets go stale, but the probe
// reads no samples), in a MediaRecorder WebM (a Segment of unknown size) a
// Void element before the first Cluster.
func padClip(t testing.TB, b []byte) []byte {
	t.Helper()
	var at int
	var pad []byte
	switch {
	case bytes.HasPrefix(b, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		at = bytes.Index(b, []byte{0x1F, 0x43, 0xB6, 0x75}) // Cluster
		if at < 0 {
			t.Fatal("no Cluster to pad before")
		}
		pad = make([]byte, padding)
		pad[0] = 0xEC // Void, with an 8-byte size: marker 0x01, 7 bytes
		binary.BigEndian.PutUint64(pad[1:9], 1<<56|uint64(len(pad)-9))
	case len(b) > 8 && string(b[4:8]) == "ftyp":
		at = int(binary.BigEndian.Uint32(b))
		pad = make([]byte, padding)
		binary.BigEndian.PutUint32(pad, uint32(len(pad)))
		copy(pad[4:], "free")
	default:
		t.Fatal("neither MP4 nor WebM")
	}
	out := make([]byte, 0, len(b)+len(pad))
	return append(append(append(out, b[:at]...), pad...), b[at:]...)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// outcome describes a probe's result for the log.
func outcome(info clip.Info, err error) any {
	if err != nil {
		return err
	}
	return info
}
