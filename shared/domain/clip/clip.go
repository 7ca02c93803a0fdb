package clip

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// Container is a clip's file format.
type Container string

// The containers Probe recognises.
const (
	ContainerMP4      Container = "mp4"
	ContainerMOV      Container = "mov"
	ContainerWebM     Container = "webm"
	ContainerMatroska Container = "matroska"
)

// Codec is the video track's coding format.
type Codec string

// The video codecs Probe accepts.
const (
	CodecH264 Codec = "h264"
	CodecHEVC Codec = "hevc"
	CodecVP8  Codec = "vp8"
	CodecVP9  Codec = "vp9"
)

// Info is what Probe learns about a clip.
type Info struct {
	Container Container
	Codec     Codec
	// Duration is the video's length: see the package documentation for
	// how each container's is found.
	Duration time.Duration
	// Width and Height are the video track's coded size in pixels.
	Width, Height int
	// Rotation is how many degrees clockwise (0, 90, 180 or 270) a player
	// turns the picture, from an MP4 or MOV track matrix; 0 for WebM.
	Rotation int
}

// The errors a clip is rejected with. Errors from Probe and Check wrap one
// of them with what was wrong; test with errors.Is or Rejected.
var (
	// ErrNotVideo: the file is not in a container Probe knows (MP4, MOV,
	// WebM, Matroska), or is an image in an ISO container (HEIF, AVIF).
	ErrNotVideo = errors.New("clip: not a video file")
	// ErrCorrupt: the container is known but its structure is broken or
	// cut short.
	ErrCorrupt = errors.New("clip: truncated or corrupt")
	// ErrUnsupportedCodec: the video track is coded in a format other than
	// H.264, HEVC, VP8 or VP9.
	ErrUnsupportedCodec = errors.New("clip: unsupported video codec")
	// ErrNoVideoTrack: the container holds no video track (audio only).
	ErrNoVideoTrack = errors.New("clip: no video track")
	// ErrTooComplex: reading the clip would pass Limits.
	ErrTooComplex = errors.New("clip: needs too many reads")
	// ErrEmpty: Check found a zero duration.
	ErrEmpty = errors.New("clip: zero duration")
	// ErrTooLong: Check found a duration over Rules.MaxDuration.
	ErrTooLong = errors.New("clip: too long")
)

var rejections = []error{ErrNotVideo, ErrCorrupt, ErrUnsupportedCodec, ErrNoVideoTrack, ErrTooComplex, ErrEmpty, ErrTooLong}

// Rejections returns the errors a clip is rejected with, the ones
// Rejected tests for, so that a caller mapping them (to codes, to words)
// can check it knows each.
func Rejections() []error { return slices.Clone(rejections) }

// Rejected reports whether err says the clip itself is unacceptable (so
// reading it again cannot help), as opposed to a failure of the
// io.ReaderAt. It is false for nil.
func Rejected(err error) bool {
	for _, r := range rejections {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}

// Limits bounds the work of one Probe. A zero field takes DefaultLimits'.
type Limits struct {
	// MaxReads is the most ReadAt calls (ranged GETs).
	MaxReads int
	// MaxBytes is the most bytes read in all.
	MaxBytes int64
	// MaxElements is the most boxes, EBML elements and scan candidates
	// looked at; it bounds CPU on files made of tiny elements.
	MaxElements int
}

// DefaultLimits fits any clip a phone or a browser records in ten minutes:
// a fragmented MP4 without mfra reads once per fragment, and a WebM without
// Duration reads its last cluster (at most ~32 s of video) about twice.
var DefaultLimits = Limits{MaxReads: 4096, MaxBytes: 64 << 20, MaxElements: 1 << 20}

// Usage is what one Probe read.
type Usage struct {
	Reads int   // ReadAt calls
	Bytes int64 // bytes asked for in all
}

// Probe reads the clip of size bytes behind r with DefaultLimits and
// returns what it found. On failure the error wraps one of the rejection
// errors (see Rejected), or is r's own error wrapped with the offset read.
func Probe(r io.ReaderAt, size int64) (Info, error) {
	info, _, err := DefaultLimits.Probe(r, size)
	return info, err
}

// Probe is the package-level Probe under limits l; it also reports how
// much it read, on success and on failure.
func (l Limits) Probe(r io.ReaderAt, size int64) (Info, Usage, error) {
	s := newSource(r, size, l.withDefaults())
	info, err := probe(s)
	return info, Usage{Reads: s.reads, Bytes: s.bytes}, err
}

func (l Limits) withDefaults() Limits {
	if l.MaxReads <= 0 {
		l.MaxReads = DefaultLimits.MaxReads
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxElements <= 0 {
		l.MaxElements = DefaultLimits.MaxElements
	}
	return l
}

func probe(s *source) (Info, error) {
	if s.size < 8 {
		return Info{}, fmt.Errorf("%w: only %d bytes", ErrNotVideo, s.size)
	}
	head, err := s.at(0, 8)
	if err != nil {
		return Info{}, err
	}
	switch {
	case head[0] == 0x1A && head[1] == 0x45 && head[2] == 0xDF && head[3] == 0xA3:
		return probeMatroska(s)
	case isTopLevelBox(boxType(head[4:8])):
		return probeMP4(s)
	}
	return Info{}, fmt.Errorf("%w: unknown signature % x", ErrNotVideo, head)
}

// Rules are what Check accepts.
type Rules struct {
	// MaxDuration is the longest clip accepted; 0 accepts any length.
	MaxDuration time.Duration
}

// DefaultRules accepts clips up to ten minutes long.
var DefaultRules = Rules{MaxDuration: 10 * time.Minute}

// Check returns nil when info is acceptable under rules: it fails with
// ErrEmpty for a zero (or negative) duration, ErrTooLong for one over
// rules.MaxDuration, and ErrCorrupt for a zero width or height. Whether the
// object's size matches the size announced at upload is the caller's check.
func Check(info Info, rules Rules) error {
	switch {
	case info.Duration <= 0:
		return fmt.Errorf("%w: %s", ErrEmpty, info.Duration)
	case rules.MaxDuration > 0 && info.Duration > rules.MaxDuration:
		return fmt.Errorf("%w: %s is over %s", ErrTooLong, info.Duration.Round(time.Millisecond), rules.MaxDuration)
	case info.Width <= 0 || info.Height <= 0:
		return fmt.Errorf("%w: video size %dx%d", ErrCorrupt, info.Width, info.Height)
	}
	return nil
}

// errCorrupt wraps ErrCorrupt with a formatted detail.
func errCorrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// maxDuration is the longest duration Probe believes; anything longer is a
// corrupt header, not a long clip (and would overflow time.Duration).
const maxDuration = 100 * time.Hour

// ticks converts n units of 1/timescale second to a duration; it fails with
// ErrCorrupt for a zero timescale or a duration over maxDuration.
func ticks(n, timescale uint64) (time.Duration, error) {
	if timescale == 0 {
		return 0, errCorrupt("timescale 0")
	}
	secs, rem := n/timescale, n%timescale
	if secs > uint64(maxDuration/time.Second) {
		return 0, errCorrupt("duration %d/%d s is implausible", n, timescale)
	}
	// rem < timescale, so rem*1e9 overflows only for timescales over
	// 1.8e10, where nanoseconds lose nothing by dividing first.
	var frac uint64
	if timescale < 1<<34 {
		frac = rem * uint64(time.Second) / timescale
	} else {
		frac = rem / (timescale / uint64(time.Second))
	}
	return time.Duration(secs)*time.Second + time.Duration(frac), nil
}
