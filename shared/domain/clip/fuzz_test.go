package clip_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

// fuzzLimits are tight, so that the fuzz targets check Probe keeps to them.
var fuzzLimits = clip.Limits{MaxReads: 64, MaxBytes: 1 << 20, MaxElements: 10_000}

// fuzzProbe checks that Probe never panics, keeps to its limits, fails
// only with rejection errors (a bytes.Reader never fails otherwise) and,
// when it succeeds, returns an Info that makes sense.
func fuzzProbe(t *testing.T, b []byte) {
	c := &counting{r: bytes.NewReader(b)}
	info, usage, err := fuzzLimits.Probe(c, int64(len(b)))
	if c.reads > fuzzLimits.MaxReads || c.bytes > fuzzLimits.MaxBytes {
		t.Fatalf("read %d times, %d bytes; limits are %d, %d", c.reads, c.bytes, fuzzLimits.MaxReads, fuzzLimits.MaxBytes)
	}
	if c.largest > 64<<10 {
		t.Fatalf("largest read %d bytes; want at most 64 KiB", c.largest)
	}
	if usage.Reads != c.reads || usage.Bytes != c.bytes {
		t.Fatalf("Usage %+v; want {Reads:%d Bytes:%d}", usage, c.reads, c.bytes)
	}
	if err != nil {
		if !clip.Rejected(err) {
			t.Fatalf("error %v is not a rejection", err)
		}
		return
	}
	switch {
	case info.Container == "":
		t.Fatalf("no container in %+v", info)
	case info.Codec != clip.CodecH264 && info.Codec != clip.CodecHEVC && info.Codec != clip.CodecVP8 && info.Codec != clip.CodecVP9:
		t.Fatalf("codec %q in %+v", info.Codec, info)
	case info.Duration < 0 || info.Duration > 100*time.Hour:
		t.Fatalf("duration %v in %+v", info.Duration, info)
	case info.Width < 0 || info.Height < 0 || info.Rotation%90 != 0:
		t.Fatalf("geometry in %+v", info)
	}
}

func FuzzProbeMP4(f *testing.F) {
	for _, name := range []string{"h264.mp4", "h264-faststart.mp4", "hevc.mp4", "vp9-fragmented.mp4",
		"h264-aac.mov", "mediarecorder-vp9-opus.mp4", "mpeg4.mp4", "audio-only.m4a", "truncated.mp4"} {
		f.Add(readFixture(f, name))
	}
	f.Add(zeroDurations(readFixture(f, "vp9-fragmented.mp4")))
	f.Add(rename(zeroDurations(readFixture(f, "vp9-fragmented.mp4")), "tfdt", "free"))
	f.Fuzz(fuzzProbe)
}

func FuzzProbeWebM(f *testing.F) {
	for _, name := range []string{"vp8-opus.webm", "vp9-opus-noduration.webm", "mediarecorder-vp8-opus.webm",
		"mediarecorder-vp9.webm", "h264.mkv", "mpeg4.mkv", "audio-only.webm", "truncated.webm", "corrupt.webm"} {
		f.Add(readFixture(f, name))
	}
	vp8 := readFixture(f, "vp8-opus.webm")
	f.Add(stripDuration(f, vp8))
	f.Add(unknownSizes(f, stripDuration(f, vp8)))
	f.Fuzz(fuzzProbe)
}
