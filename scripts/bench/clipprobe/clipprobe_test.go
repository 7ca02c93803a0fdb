package clipprobe

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/domain/clip"
	"github.com/moveleads/partnerapi/shared/local/s3local"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "domain", "clip", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPaddedClipsProbeAsTheFixture: a padded clip has the size asked for,
// reads as the fixture with the padding inserted, and probes exactly as
// the fixture does, at both sizes the benchmark uses.
func TestPaddedClipsProbeAsTheFixture(t *testing.T) {
	for _, c := range containers {
		src := fixture(t, c.fixture)
		want, err := clip.Probe(bytes.NewReader(src), int64(len(src)))
		if err != nil {
			t.Fatalf("%s: %v", c.fixture, err)
		}
		for _, size := range []int64{smallSize, largeSize} {
			pc, err := c.pad(src, size)
			if err != nil {
				t.Fatalf("%s to %d: %v", c.fixture, size, err)
			}
			if pc.Size() != size {
				t.Errorf("%s to %d: size %d", c.fixture, size, pc.Size())
			}
			if got, err := clip.Probe(pc, pc.Size()); got != want || err != nil {
				t.Errorf("%s to %d: Probe = %+v, %v; want %+v, nil", c.fixture, size, got, err, want)
			}
		}
	}
}

// TestPaddingLayout checks each padded file byte for byte at a small size:
// the fixture's bytes with the padding where the package says, and the
// sizes around it patched.
func TestPaddingLayout(t *testing.T) {
	const size = 1 << 20
	t.Run("mp4", func(t *testing.T) {
		src := fixture(t, "h264.mp4") // ftyp, free, mdat at 40 (1575 bytes), moov
		pc, err := padMP4(src, size)
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, pc)
		const mdatAt, mdatLen = 40, 1575
		if string(got[mdatAt+4:mdatAt+8]) != "mdat" || binary.BigEndian.Uint32(got[mdatAt:]) != uint32(mdatLen+size-len(src)) {
			t.Fatalf("mdat header % x; want mdat grown by %d", got[mdatAt:mdatAt+8], size-len(src))
		}
		end := mdatAt + mdatLen
		if !bytes.Equal(got[:mdatAt], src[:mdatAt]) || !bytes.Equal(got[mdatAt+4:end], src[mdatAt+4:end]) ||
			!bytes.Equal(got[len(got)-(len(src)-end):], src[end:]) || !allZero(got[end:len(got)-(len(src)-end)]) {
			t.Error("want the fixture with zeros inserted at the end of mdat")
		}
	})
	t.Run("webm", func(t *testing.T) {
		src := fixture(t, "mediarecorder-vp8-opus.webm")
		cluster := bytes.Index(src, []byte{0x1F, 0x43, 0xB6, 0x75})
		pc, err := padWebM(src, size)
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, pc)
		void := got[cluster:]
		if void[0] != idVoid || binary.BigEndian.Uint64(void[1:9]) != 1<<56|uint64(size-len(src)-9) {
			t.Fatalf("at the first Cluster % x; want a Void of %d bytes", void[:9], size-len(src)-9)
		}
		tail := len(src) - cluster
		if !bytes.Equal(got[:cluster], src[:cluster]) || !bytes.Equal(got[len(got)-tail:], src[cluster:]) ||
			!allZero(got[cluster+9:len(got)-tail]) {
			t.Error("want the fixture with a zeroed Void inserted before its first Cluster")
		}
	})
}

func TestPadRefuses(t *testing.T) {
	mp4, webm := fixture(t, "h264.mp4"), fixture(t, "mediarecorder-vp8-opus.webm")
	tests := []struct {
		name string
		pad  func([]byte, int64) (*paddedClip, error)
		src  []byte
		size int64
	}{
		{"mp4 smaller than the fixture", padMP4, mp4, 100},
		{"mp4 without moov", padMP4, mp4[:1615], 1 << 20},
		{"mp4 cut inside a box", padMP4, mp4[:2000], 1 << 20},
		{"webm given an mp4", padWebM, mp4, 1 << 20},
		{"webm of known-size Segment", padWebM, fixture(t, "vp8-opus.webm"), 1 << 20},
		{"webm without Cluster", padWebM, webm[:188], 1 << 20},
		{"webm smaller than the fixture", padWebM, webm, 100},
	}
	for _, tt := range tests {
		if _, err := tt.pad(tt.src, tt.size); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestPaddedClipReadAt(t *testing.T) {
	c := &paddedClip{head: []byte("head"), pad: 3, tail: []byte("tail")}
	var b [5]byte
	for _, tt := range []struct {
		off  int64
		want string
		n    int
		eof  bool
	}{
		{0, "head\x00", 5, false},
		{2, "ad\x00\x00\x00", 5, false},
		{6, "\x00tail", 5, false},
		{8, "ail", 3, true},
		{11, "", 0, true},
	} {
		b = [5]byte{}
		n, err := c.ReadAt(b[:], tt.off)
		if n != tt.n || string(b[:n]) != tt.want || (err == io.EOF) != tt.eof {
			t.Errorf("ReadAt at %d = %d %q %v; want %d %q eof %v", tt.off, n, b[:n], err, tt.n, tt.want, tt.eof)
		}
	}
}

// TestRun measures with a few probes against MinIO and checks the rows'
// shape, never a budget's verdict (make test never fails on a
// measurement). It uploads 2 × 500 MiB through loopback.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 1 GiB to MinIO")
	}
	srv, stop, err := s3local.ForTests()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	rows, err := Run(context.Background(), Options{S3: srv, Runs: 3, Warmup: 1, Log: t.Output()})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + report.Markdown(rows))
	if want := 5 * len(containers); len(rows) != want {
		t.Errorf("%d rows; want %d", len(rows), want)
	}
	budgets := 0
	for _, r := range rows {
		if r.Section != Section {
			t.Errorf("%s: section %q", r.Metric, r.Section)
		}
		if r.OK != nil {
			budgets++
		}
		if strings.Contains(r.Metric, "time") && !strings.Contains(r.Value, "n=3") {
			t.Errorf("%s: %s; want n=3", r.Metric, r.Value)
		}
	}
	if want := 3 * len(containers); budgets != want {
		t.Errorf("%d rows with a budget; want %d", budgets, want)
	}
}

func readAll(t *testing.T, c *paddedClip) []byte {
	t.Helper()
	b, err := io.ReadAll(io.NewSectionReader(c, 0, c.Size()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func allZero(b []byte) bool { return len(bytes.Trim(b, "\x00")) == 0 }
