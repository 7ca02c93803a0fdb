package clip_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

func probeBytes(t *testing.T, b []byte) (clip.Info, error) {
	t.Helper()
	return clip.Probe(bytes.NewReader(b), int64(len(b)))
}

// TestWebMDurationFromClusters removes Duration from ffmpeg's files (and
// makes their sizes unknown, as MediaRecorder does) and checks that the
// duration found from the clusters is ffmpeg's Duration within one frame.
func TestWebMDurationFromClusters(t *testing.T) {
	const frame = time.Second / 15 // the fixtures' frame rate
	variants := []struct {
		name string
		edit func(testing.TB, []byte) []byte
	}{
		{"without Duration", stripDuration},
		{"without Duration, unknown sizes", func(t testing.TB, b []byte) []byte { return unknownSizes(t, stripDuration(t, b)) }},
	}
	for _, file := range []string{"vp8-opus.webm", "h264.mkv"} {
		orig := readFixture(t, file)
		want := time.Duration(webmDuration(t, orig) * float64(time.Millisecond))
		for _, v := range variants {
			t.Run(file+"/"+v.name, func(t *testing.T) {
				b := v.edit(t, orig)
				if bytes.Contains(b, []byte{0x44, 0x89, 0x88}) || bytes.Contains(b, []byte{0x44, 0x89, 0x84}) {
					t.Fatal("the edit left a Duration element")
				}
				got, err := probeBytes(t, b)
				if err != nil {
					t.Fatalf("Probe: got error %v; want nil", err)
				}
				within(t, "duration", got.Duration, want, frame)
			})
		}
	}
}

// TestWebMUnknownSizeClusterEndsAtNextTopLevel checks that an unknown-size
// cluster ends where the next Segment-level element starts: there the walk
// stops, so that element's size is never read, even when it is unknown.
func TestWebMUnknownSizeClusterEndsAtNextTopLevel(t *testing.T) {
	orig := readFixture(t, "vp8-opus.webm") // clusters, then Cues
	b := unknownSizes(t, stripDuration(t, orig))
	cues := bytes.LastIndex(b, []byte{0x1C, 0x53, 0xBB, 0x6B})
	if cues < len(b)-300 {
		t.Fatal("fixture has no Cues at its end")
	}
	unknownTags := append(bytes.Clone(b[:cues]), 0x12, 0x54, 0xC3, 0x67, 0xFF, 0x73, 0x73, 0x80)
	for name, data := range map[string][]byte{"Cues": b, "Tags of unknown size": unknownTags} {
		t.Run(name, func(t *testing.T) {
			got, err := probeBytes(t, data)
			if err != nil {
				t.Fatalf("Probe: got error %v; want nil", err)
			}
			within(t, "duration", got.Duration, 2008*time.Millisecond, time.Second/15)
		})
	}
}

func TestWebMRejectsEditedFiles(t *testing.T) {
	mr := readFixture(t, "mediarecorder-vp8-opus.webm")
	vp8 := readFixture(t, "vp8-opus.webm")
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"AV1 track", bytes.Replace(vp8, []byte("V_VP8"), []byte("V_AV1"), 1), clip.ErrUnsupportedCodec},
		{"last cluster cut mid-block", mr[:len(mr)-100], clip.ErrCorrupt},
		{"cluster without a timestamp", bytes.ReplaceAll(mr, []byte{0xE7, 0x82}, []byte{0xEC, 0x82}), clip.ErrCorrupt},
		{"garbage after the last cluster", append(bytes.Clone(mr), 0x00, 0x01, 0x02), clip.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := probeBytes(t, tt.data)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v; want %v", err, tt.want)
			}
		})
	}
}

// TestMP4FragmentedDuration checks the duration of fragmented MP4 when
// moov does not give it: from the mfra jump, from walking every fragment,
// and from fragments without tfdt.
func TestMP4FragmentedDuration(t *testing.T) {
	tests := []struct {
		file string
		want time.Duration
	}{
		{"vp9-fragmented.mp4", 2 * time.Second},
		{"mediarecorder-vp9-opus.mp4", 1998700 * time.Microsecond},
	}
	variants := []struct {
		name string
		edit func([]byte) []byte
	}{
		{"durations zeroed", zeroDurations},
		{"durations zeroed, no mfra", func(b []byte) []byte { return rename(zeroDurations(b), "mfra", "free") }},
		{"durations zeroed, no tfdt", func(b []byte) []byte { return rename(zeroDurations(b), "tfdt", "free") }},
	}
	for _, tt := range tests {
		orig := readFixture(t, tt.file)
		if n := len(mp4Boxes(orig, 0, len(orig), "mehd")); n != 0 {
			t.Fatalf("%s has %d mehd boxes; the test needs none", tt.file, n)
		}
		for _, v := range variants {
			t.Run(tt.file+"/"+v.name, func(t *testing.T) {
				got, err := probeBytes(t, v.edit(orig))
				if err != nil {
					t.Fatalf("Probe: got error %v; want nil", err)
				}
				within(t, "duration", got.Duration, tt.want, time.Millisecond)
			})
		}
	}
}

func TestMP4Rotation(t *testing.T) {
	orig := readFixture(t, "h264-aac.mov")
	for _, deg := range []int{0, 90, 180, 270} {
		t.Run(time.Duration(deg).String(), func(t *testing.T) {
			got, err := probeBytes(t, rotate(orig, deg))
			if err != nil {
				t.Fatalf("Probe: got error %v; want nil", err)
			}
			if got.Rotation != deg {
				t.Errorf("got rotation %d; want %d", got.Rotation, deg)
			}
			if got.Width != 64 || got.Height != 48 {
				t.Errorf("got %dx%d; want the coded size 64x48", got.Width, got.Height)
			}
		})
	}
}

func TestMP4RejectsEditedFiles(t *testing.T) {
	h264 := readFixture(t, "h264.mp4")
	frag := readFixture(t, "vp9-fragmented.mp4")
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"AV1 sample entry", replaceIn(h264, "stsd", "avc1", "av01"), clip.ErrUnsupportedCodec},
		{"no moov", rename(h264, "moov", "free"), clip.ErrCorrupt},
		{"no mvhd", rename(h264, "mvhd", "free"), clip.ErrCorrupt},
		{"video handler renamed", replaceIn(h264, "hdlr", "vide", "text"), clip.ErrNoVideoTrack},
		{"last fragment cut", frag[:len(frag)-300], clip.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := probeBytes(t, tt.data)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v; want %v", err, tt.want)
			}
		})
	}
}
