package clip_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

// readFixture returns testdata/name (see testdata/README.md).
func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
}

// within fails t unless got is want ± tol.
func within(t *testing.T, what string, got, want, tol time.Duration) {
	t.Helper()
	if d := got - want; d < -tol || d > tol {
		t.Errorf("%s: got %v; want %v ± %v", what, got, want, tol)
	}
}

func TestProbeFixtures(t *testing.T) {
	const frame15 = time.Second / 15
	tests := []struct {
		file      string
		container clip.Container
		codec     clip.Codec
		w, h      int
		duration  time.Duration
		tol       time.Duration
	}{
		{"h264.mp4", clip.ContainerMP4, clip.CodecH264, 64, 48, 2 * time.Second, 0},
		{"h264-faststart.mp4", clip.ContainerMP4, clip.CodecH264, 64, 48, 2 * time.Second, 0},
		{"hevc.mp4", clip.ContainerMP4, clip.CodecHEVC, 64, 48, 2 * time.Second, 0},
		{"vp9-fragmented.mp4", clip.ContainerMP4, clip.CodecVP9, 64, 48, 2 * time.Second, 0},
		{"h264-aac.mov", clip.ContainerMOV, clip.CodecH264, 64, 48, 2 * time.Second, 0},
		{"h264.mkv", clip.ContainerMatroska, clip.CodecH264, 64, 48, 2 * time.Second, 0},
		// Duration element present: taken as written.
		{"vp8-opus.webm", clip.ContainerWebM, clip.CodecVP8, 64, 48, 2008 * time.Millisecond, 0},
		// No Duration (ffmpeg to a pipe): audio's last block at 1.994 s + 20 ms.
		{"vp9-opus-noduration.webm", clip.ContainerWebM, clip.CodecVP9, 64, 48, 2 * time.Second, frame15},
		// Chromium's MediaRecorder: no Duration, unknown-size Segment and
		// Clusters. Opus ends at 1.92 s + 60 ms; VP9 at 1.899 s + 100 ms.
		{"mediarecorder-vp8-opus.webm", clip.ContainerWebM, clip.CodecVP8, 320, 240, 1980 * time.Millisecond, 0},
		{"mediarecorder-vp9.webm", clip.ContainerWebM, clip.CodecVP9, 320, 240, 1999 * time.Millisecond, 0},
		// Chromium's video/mp4: VP9 in fragmented MP4.
		{"mediarecorder-vp9-opus.mp4", clip.ContainerMP4, clip.CodecVP9, 320, 240, 1998700 * time.Microsecond, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b := readFixture(t, tt.file)
			got, err := clip.Probe(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("Probe: got error %v; want nil", err)
			}
			if got.Container != tt.container || got.Codec != tt.codec || got.Width != tt.w || got.Height != tt.h {
				t.Errorf("got %s %s %dx%d; want %s %s %dx%d", got.Container, got.Codec, got.Width, got.Height,
					tt.container, tt.codec, tt.w, tt.h)
			}
			within(t, "duration", got.Duration, tt.duration, tt.tol)
			if err := clip.Check(got, clip.DefaultRules); err != nil {
				t.Errorf("Check: got %v; want nil", err)
			}
		})
	}
}

func TestProbeRejects(t *testing.T) {
	tests := []struct {
		file string
		want error
	}{
		{"not-video.mp4", clip.ErrNotVideo},
		{"truncated.mp4", clip.ErrCorrupt},
		{"truncated.webm", clip.ErrCorrupt},
		{"corrupt.webm", clip.ErrCorrupt},
		{"audio-only.m4a", clip.ErrNoVideoTrack},
		{"audio-only.webm", clip.ErrNoVideoTrack},
		{"mpeg4.mp4", clip.ErrUnsupportedCodec},
		{"mpeg4.mkv", clip.ErrUnsupportedCodec},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b := readFixture(t, tt.file)
			_, err := clip.Probe(bytes.NewReader(b), int64(len(b)))
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v; want %v", err, tt.want)
			}
			if !clip.Rejected(err) {
				t.Errorf("Rejected(%v): got false; want true", err)
			}
		})
	}
}

func TestProbeRejectsOddInputs(t *testing.T) {
	mp4 := readFixture(t, "h264.mp4")
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, clip.ErrNotVideo},
		{"seven bytes", []byte("\x1aE\xdf\xa3abc"), clip.ErrNotVideo},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"), clip.ErrNotVideo},
		{"HEIF image", append([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), "\x00\x00\x00\x08mdat"...), clip.ErrNotVideo},
		{"EBML of another document type", []byte("\x1a\x45\xdf\xa3\x87\x42\x82\x84abcd\x18\x53\x80\x67\x80"), clip.ErrNotVideo},
		{"ftyp only", mp4[:32], clip.ErrCorrupt},
		{"trailing bytes after the last box", append(append([]byte{}, mp4...), 0, 0, 0), clip.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := clip.Probe(bytes.NewReader(tt.data), int64(len(tt.data)))
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v; want %v", err, tt.want)
			}
		})
	}
}

// failingReader fails every read with err after the first n bytes.
type failingReader struct {
	data []byte
	n    int64
	err  error
}

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.n {
		return 0, f.err
	}
	return copy(p, f.data[off:]), nil
}

func TestProbeReaderFailures(t *testing.T) {
	b := readFixture(t, "h264.mp4") // moov at the end: read last
	errS3 := errors.New("s3: connection reset")
	t.Run("reader error is passed on, not a rejection", func(t *testing.T) {
		_, err := clip.Probe(failingReader{data: b, n: 100, err: errS3}, int64(len(b)))
		if !errors.Is(err, errS3) {
			t.Fatalf("got %v; want it to wrap %v", err, errS3)
		}
		if clip.Rejected(err) {
			t.Errorf("Rejected(%v): got true; want false", err)
		}
	})
	t.Run("object shorter than its size is corrupt", func(t *testing.T) {
		_, err := clip.Probe(bytes.NewReader(b), int64(len(b))+1000)
		if !errors.Is(err, clip.ErrCorrupt) {
			t.Fatalf("got %v; want %v", err, clip.ErrCorrupt)
		}
	})
}

func TestCheck(t *testing.T) {
	ok := clip.Info{Container: clip.ContainerWebM, Codec: clip.CodecVP8, Duration: time.Minute, Width: 640, Height: 480}
	with := func(f func(*clip.Info)) clip.Info { i := ok; f(&i); return i }
	tests := []struct {
		name  string
		info  clip.Info
		rules clip.Rules
		want  error
	}{
		{"a minute", ok, clip.DefaultRules, nil},
		{"exactly ten minutes", with(func(i *clip.Info) { i.Duration = 10 * time.Minute }), clip.DefaultRules, nil},
		{"over ten minutes", with(func(i *clip.Info) { i.Duration = 10*time.Minute + time.Millisecond }), clip.DefaultRules, clip.ErrTooLong},
		{"zero duration", with(func(i *clip.Info) { i.Duration = 0 }), clip.DefaultRules, clip.ErrEmpty},
		{"negative duration", with(func(i *clip.Info) { i.Duration = -time.Second }), clip.DefaultRules, clip.ErrEmpty},
		{"no size", with(func(i *clip.Info) { i.Width = 0 }), clip.DefaultRules, clip.ErrCorrupt},
		{"no limit", with(func(i *clip.Info) { i.Duration = 5 * time.Hour }), clip.Rules{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := clip.Check(tt.info, tt.rules)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("got %v; want %v", err, tt.want)
			}
			if tt.want != nil && !clip.Rejected(err) {
				t.Errorf("Rejected(%v): got false; want true", err)
			}
		})
	}
}

func TestRejected(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("timeout"), false},
		{fmt.Errorf("probe: %w", clip.ErrTooComplex), true},
		{clip.ErrTooLong, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.err), func(t *testing.T) {
			if got := clip.Rejected(tt.err); got != tt.want {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}
