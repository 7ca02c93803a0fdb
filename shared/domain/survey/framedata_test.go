package survey

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func frameJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFrameCheckData(t *testing.T) {
	data := frameJPEG(t, 320, 240)
	f, err := NewFrame("c1", 0, int64(len(data)), 320, 240, 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if reason := f.CheckData(data); reason != "" {
		t.Errorf("valid frame rejected: %s", reason)
	}
	other := f
	other.Width = 640
	cut := f
	cut.AnnouncedSize = int64(len(data) - 2)
	png := f
	png.AnnouncedSize = 8
	for _, tt := range []struct {
		name string
		f    Frame
		data []byte
		want string
	}{
		{"size differs", f, data[:len(data)-1], "size"},
		{"dimensions differ", other, data, "320×240 pixels, announced 640×240"},
		{"cut short", cut, data[:len(data)-2], "cut short"},
		{"not a JPEG", png, []byte("\x89PNG\r\n\x1a\n"), "not a JPEG"},
		{"header over random bytes", f, garbledJPEG(data), FrameCorruptReason},
	} {
		if reason := tt.f.CheckData(tt.data); !strings.Contains(reason, tt.want) {
			t.Errorf("%s: reason %q; want %q", tt.name, reason, tt.want)
		}
	}
}

// garbledJPEG keeps data's JPEG header (up to its scan's start) and
// end-of-image marker, with random bytes between, to data's length: what
// a customer's broken frame looks like.
func garbledJPEG(data []byte) []byte {
	sos := bytes.Index(data, []byte{0xff, 0xda})
	start := sos + 2 + (int(data[sos+2])<<8 | int(data[sos+3]))
	out := bytes.Clone(data)
	r := rand.New(rand.NewPCG(1, 2))
	for i := start; i < len(out)-2; i++ {
		out[i] = byte(r.UintN(256))
	}
	return out
}

// FuzzFrameCheckData: uploaded bytes are outside input: any bytes give a
// verdict without panicking, and only a decodable JPEG as announced
// passes.
func FuzzFrameCheckData(f *testing.F) {
	valid := frameJPEG(f, 64, 64)
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte{0xff, 0xd8, 0xff, 0xd9})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := Frame{AnnouncedSize: int64(len(data)), Width: 64, Height: 64}
		if fr.CheckData(data) != "" {
			return
		}
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 64 {
			t.Fatalf("accepted a frame that is not a decodable 64×64 JPEG: %v", err)
		}
	})
}
