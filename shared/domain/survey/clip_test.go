package survey

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

var t0 = time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)

func TestAdvanceClip(t *testing.T) {
	tests := []struct {
		name          string
		current, next ClipStatus
		want          ClipStatus
		changed       bool
	}{
		{"upload begins", ClipAnnounced, ClipUploading, ClipUploading, true},
		{"object arrives", ClipUploading, ClipProcessing, ClipProcessing, true},
		{"object arrives without an upload report", ClipAnnounced, ClipProcessing, ClipProcessing, true},
		{"duplicate S3 event", ClipProcessing, ClipProcessing, ClipProcessing, false},
		{"late upload report", ClipProcessing, ClipUploading, ClipProcessing, false},
		{"accepted", ClipProcessing, ClipPlayable, ClipPlayable, true},
		{"refused", ClipProcessing, ClipRejected, ClipRejected, true},
		{"duplicate event after acceptance", ClipPlayable, ClipProcessing, ClipPlayable, false},
		{"rejected stays rejected", ClipRejected, ClipPlayable, ClipRejected, false},
		{"playable stays playable", ClipPlayable, ClipRejected, ClipPlayable, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := AdvanceClip(tt.current, tt.next)
			if err != nil || got != tt.want || changed != tt.changed {
				t.Errorf("AdvanceClip(%q, %q) = %q, %v, %v; want %q, %v, nil", tt.current, tt.next, got, changed, err, tt.want, tt.changed)
			}
		})
	}
	for _, bad := range [][2]ClipStatus{{"", ClipProcessing}, {ClipAnnounced, "deleted"}} {
		if _, _, err := AdvanceClip(bad[0], bad[1]); !errors.Is(err, ErrUnknownClipStatus) {
			t.Errorf("AdvanceClip(%q, %q) error %v; want ErrUnknownClipStatus", bad[0], bad[1], err)
		}
	}
}

func TestParseContentType(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"video/mp4", "video/mp4", true},
		{"video/webm;codecs=vp8,opus", "video/webm", true},
		{`video/webm; codecs="vp9"`, "video/webm", true},
		{"VIDEO/QuickTime", "video/quicktime", true},
		{`video/mp4; codecs="avc1.42E01E, mp4a.40.2"`, "video/mp4", true},
		{"video/x-matroska", "", false},
		{"text/plain;charset=utf-8", "", false},
		{";codecs=vp8", "", false},
		{"text/plain", "", false},
		{"video", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseContentType(tt.in)
			if got != tt.want || (err == nil) != tt.ok {
				t.Errorf("ParseContentType(%q) = %q, %v; want %q, ok = %v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestNewClip(t *testing.T) {
	c, err := NewClip("c1", "  kitchen ", 5<<20, "video/webm;codecs=vp8,opus", MaxClips-1, t0)
	if err != nil {
		t.Fatalf("NewClip(20th clip) error %v", err)
	}
	want := Clip{ID: "c1", Room: "Kitchen", Status: ClipAnnounced, AnnouncedSize: 5 << 20, ContentType: "video/webm", AnnouncedAt: t0, UpdatedAt: t0}
	if c != want {
		t.Errorf("NewClip = %+v; want %+v", c, want)
	}
	if _, err := NewClip("c", "Kitchen", MaxClipBytes, "video/mp4", 0, t0); err != nil {
		t.Errorf("NewClip(exactly %d bytes) error %v; want nil", MaxClipBytes, err)
	}
}

func TestNewClipRefuses(t *testing.T) {
	tests := []struct {
		name        string
		room        string
		size        int64
		contentType string
		existing    int
		fields      []string
	}{
		{"21st clip", "Kitchen", 1, "video/mp4", MaxClips, []string{"clips"}},
		{"too large", "Kitchen", MaxClipBytes + 1, "video/mp4", 0, []string{"size"}},
		{"empty", "Kitchen", 0, "video/mp4", 0, []string{"size"}},
		{"negative size", "Kitchen", -1, "video/mp4", 0, []string{"size"}},
		{"text file", "Kitchen", 10, "text/plain", 0, []string{"content_type"}},
		{"blank room", " ", 10, "video/mp4", 0, []string{"room"}},
		{"everything wrong", strings.Repeat("x", 61), 0, "image/png", 3, []string{"room", "size", "content_type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClip("c", tt.room, tt.size, tt.contentType, tt.existing, t0)
			e := errcode.As(err)
			if e == nil || e.Code != errcode.ValidationFailed {
				t.Fatalf("NewClip error %v; want validation_failed", err)
			}
			fields, _ := e.Details["fields"].(map[string]any)
			if len(fields) != len(tt.fields) {
				t.Errorf("details.fields = %v; want exactly %v", fields, tt.fields)
			}
			for _, f := range tt.fields {
				if _, ok := fields[f]; !ok {
					t.Errorf("details.fields = %v; want %q in it", fields, f)
				}
			}
			if tt.name == "21st clip" && e.Details["max_clips"] != MaxClips {
				t.Errorf("details.max_clips = %v; want %d", e.Details["max_clips"], MaxClips)
			}
		})
	}
}

func TestNormalizeCodec(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"avc1", "avc1", true}, {"avc1.42E01E", "avc1", true}, {"V_MPEG4/ISO/AVC", "avc1", true},
		{"hvc1", "hvc1", true}, {"hev1.1.6.L93.B0", "hvc1", true},
		// The names shared/domain/clip.Probe reports.
		{"h264", "avc1", true}, {"hevc", "hvc1", true},
		{"vp8", "vp8", true}, {"V_VP8", "vp8", true}, {"vp08.00.10.08", "vp8", true},
		{"vp09", "vp9", true}, {"V_VP9", "vp9", true},
		{"av01", "", false}, {"mp4v", "", false}, {"V_AV1", "", false}, {"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := NormalizeCodec(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("NormalizeCodec(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestInspect(t *testing.T) {
	webm := Clip{AnnouncedSize: 5000, ContentType: "video/webm"}
	mp4 := Clip{AnnouncedSize: 5000, ContentType: "video/mp4"}
	mov := Clip{AnnouncedSize: 5000, ContentType: "video/quicktime"}
	good := Media{Container: "webm", Codec: "V_VP8", Size: 5000, Duration: 12 * time.Second, Width: 640, Height: 480}
	with := func(f func(*Media)) Media { m := good; f(&m); return m }
	tests := []struct {
		name   string
		clip   Clip
		media  Media
		want   ClipStatus
		code   RejectCode
		reason string // a substring of the reason
	}{
		{"MediaRecorder WebM", webm, good, ClipPlayable, "", ""},
		{"VP9 in fragmented MP4", mp4, with(func(m *Media) { m.Container, m.Codec = "mp4", "vp09" }), ClipPlayable, "", ""},
		{"iPhone HEVC MOV", mov, with(func(m *Media) { m.Container, m.Codec = "mov", "hvc1" }), ClipPlayable, "", ""},
		{"MOV labelled video/mp4", mp4, with(func(m *Media) { m.Container, m.Codec = "mov", "avc1" }), ClipPlayable, "", ""},
		{"exactly ten minutes", webm, with(func(m *Media) { m.Duration = MaxClipDuration }), ClipPlayable, "", ""},
		{"larger than announced", webm, with(func(m *Media) { m.Size = 5001 }), ClipRejected, RejectSizeMismatch, "does not match the 5000 announced"},
		{"smaller than announced", webm, with(func(m *Media) { m.Size = 10 }), ClipRejected, RejectSizeMismatch, "does not match"},
		{"over the size limit", Clip{AnnouncedSize: MaxClipBytes + 1, ContentType: "video/webm"}, with(func(m *Media) { m.Size = MaxClipBytes + 1 }), ClipRejected, RejectTooLarge, "over the"},
		{"over ten minutes", webm, with(func(m *Media) { m.Duration = MaxClipDuration + time.Second }), ClipRejected, RejectTooLong, "over the 10m0s limit"},
		{"no duration", webm, with(func(m *Media) { m.Duration = 0 }), ClipRejected, RejectEmpty, "no playable video"},
		{"audio only", webm, with(func(m *Media) { m.Width, m.Height = 0, 0 }), ClipRejected, RejectNoPicture, "no video picture"},
		{"AV1", webm, with(func(m *Media) { m.Codec = "V_AV1" }), ClipRejected, RejectUnsupportedCodec, "not one of avc1, hvc1, vp8, vp9"},
		{"Matroska", webm, with(func(m *Media) { m.Container = "mkv" }), ClipRejected, RejectNotAVideo, "not MP4, MOV or WebM"},
		{"WebM uploaded as MP4", mp4, good, ClipRejected, RejectTypeMismatch, "a WEBM file was uploaded as video/mp4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, r := Inspect(tt.clip, tt.media)
			if got != tt.want || r.Code != tt.code || (tt.reason == "") != (r.Reason == "") || !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("Inspect = %q, %+v; want %q with code %q and a reason containing %q", got, r, tt.want, tt.code, tt.reason)
			}
		})
	}
}

func TestFinished(t *testing.T) {
	clip := func(s ClipStatus, announced time.Duration, reason string) Clip {
		return Clip{Status: s, AnnouncedAt: t0.Add(-announced), RejectReason: reason}
	}
	tests := []struct {
		name   string
		clips  []Clip
		want   Status
		reason string
	}{
		{"no clips", nil, Failed, "no clip was uploaded"},
		{"one playable", []Clip{clip(ClipPlayable, time.Hour, "")}, InventoryReady, ""},
		{"playable and rejected", []Clip{clip(ClipRejected, time.Hour, "x"), clip(ClipPlayable, time.Hour, "")}, InventoryReady, ""},
		{"one still processing", []Clip{clip(ClipPlayable, time.Hour, ""), clip(ClipProcessing, 5*time.Hour, "")}, Processing, ""},
		{"one uploading within the window", []Clip{clip(ClipPlayable, 0, ""), clip(ClipUploading, UploadWindow, "")}, Processing, ""},
		{"one announced within the window", []Clip{clip(ClipAnnounced, time.Minute, "")}, Processing, ""},
		{"abandoned upload does not hold it up", []Clip{clip(ClipPlayable, 0, ""), clip(ClipAnnounced, UploadWindow+time.Second, "")}, InventoryReady, ""},
		{"only abandoned", []Clip{clip(ClipUploading, 3*time.Hour, "")}, Failed, "no playable clip: 1 never uploaded"},
		{"all rejected", []Clip{
			clip(ClipRejected, time.Hour, "duration 11m0s is over the 10m0s limit"),
			clip(ClipRejected, time.Hour, "not a video"),
			clip(ClipRejected, time.Hour, "duration 11m0s is over the 10m0s limit"),
			clip(ClipAnnounced, 3*time.Hour, ""),
		}, Failed, "no playable clip: 2 duration 11m0s is over the 10m0s limit; 1 not a video; 1 never uploaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := Finished(tt.clips, t0)
			if got != tt.want || reason != tt.reason {
				t.Errorf("Finished = %q, %q; want %q, %q", got, reason, tt.want, tt.reason)
			}
		})
	}
}
