package survey

import (
	"errors"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

func TestNewFrame(t *testing.T) {
	now := time.Now()
	f, err := NewFrame("c1", 5500*time.Millisecond, 1000, 640, 480, 0, now)
	if err != nil || f.Slot != 2 || f.Status != FrameAnnounced || f.Offset != 5500*time.Millisecond {
		t.Fatalf("NewFrame = %+v, %v; want slot 2 (4 s to 6 s), announced", f, err)
	}
	tests := []struct {
		name           string
		offset         time.Duration
		size           int64
		w, h, existing int
		wantField      string
	}{
		{"negative offset", -time.Millisecond, 1000, 640, 480, 0, "offset_ms"},
		{"offset past the longest clip", MaxClipDuration, 1000, 640, 480, 0, "offset_ms"},
		{"empty", 0, 0, 640, 480, 0, "size"},
		{"too large", 0, MaxFrameBytes + 1, 640, 480, 0, "size"},
		{"too narrow", 0, 1000, MinFrameSide - 1, 480, 0, "width"},
		{"too tall", 0, 1000, 640, MaxFrameSide + 1, 0, "height"},
		{"survey full", 0, 1000, 640, 480, MaxFrames, "frames"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewFrame("c1", tt.offset, tt.size, tt.w, tt.h, tt.existing, now)
			e := errcode.As(err)
			if e == nil || e.Code != errcode.ValidationFailed {
				t.Fatalf("err = %v; want validation_failed", err)
			}
			fields, _ := e.Details["fields"].(map[string]any)
			if _, ok := fields[tt.wantField]; !ok {
				t.Errorf("fields %v; want %s", e.Details["fields"], tt.wantField)
			}
		})
	}
}

func TestFrameKey(t *testing.T) {
	key := FrameKey("ptn_1", "test", "s1", "c1", 29)
	if key != "clips/ptn_1/test/s1/c1/frames/29.jpg" {
		t.Errorf("FrameKey = %s", key)
	}
	p, m, s, c, slot, err := ParseFrameKey(key)
	if err != nil || p != "ptn_1" || m != "test" || s != "s1" || c != "c1" || slot != 29 {
		t.Errorf("ParseFrameKey = %s %s %s %s %d %v", p, m, s, c, slot, err)
	}
	for _, bad := range []string{
		ObjectKey("ptn_1", "test", "s1", "c1"), // a clip
		"clips/ptn_1/test/s1/c1/frames/29.png", "clips/ptn_1/test/s1/c1/frames/.jpg", "clips/ptn_1/test/s1/c1/frames/029.jpg",
		"clips/ptn_1/test/s1/c1/frames/-1.jpg", "clips/ptn_1/test/s1/c1/frames/300.jpg", "clips/ptn_1/test/s1/frames/1.jpg",
		"clips/ptn_1/test/s1/c1/frames/1.jpg/x", "other/ptn_1/test/s1/c1/frames/1.jpg", "clips/ptn_1/test/s1/c1/frames/+1.jpg",
	} {
		if _, _, _, _, _, err := ParseFrameKey(bad); !errors.Is(err, ErrFrameKey) {
			t.Errorf("ParseFrameKey(%q) = %v; want ErrFrameKey", bad, err)
		}
	}
	if _, _, _, _, err := ParseObjectKey(key); err == nil {
		t.Error("a frame's key parses as a clip's")
	}
}

// FuzzParseFrameKey: object keys come from S3 events (outside input): any
// key either parses to one FrameKey gives back, or fails with ErrFrameKey.
func FuzzParseFrameKey(f *testing.F) {
	f.Add("clips/ptn_1/test/s1/c1/frames/29.jpg")
	f.Add("clips/a/b/c/d")
	f.Add("clips/a/b/c/d/frames/0.jpg/frames/1.jpg")
	f.Fuzz(func(t *testing.T, key string) {
		p, m, s, c, slot, err := ParseFrameKey(key)
		if err != nil {
			if !errors.Is(err, ErrFrameKey) {
				t.Fatalf("error %v is not ErrFrameKey", err)
			}
			return
		}
		if got := FrameKey(p, m, s, c, slot); got != key {
			t.Fatalf("ParseFrameKey(%q) → FrameKey %q", key, got)
		}
	})
}
