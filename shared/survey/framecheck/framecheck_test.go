package framecheck

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/survey"
)

func jpegOf(t testing.TB, w, h int) []byte {
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

func TestCheck(t *testing.T) {
	data := jpegOf(t, 320, 240)
	f, err := survey.NewFrame("c1", 0, int64(len(data)), 320, 240, 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if reason := Check(f, data); reason != "" {
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
		f    survey.Frame
		data []byte
		want string
	}{
		{"size differs", f, data[:len(data)-1], "size"},
		{"dimensions differ", other, data, "320×240 pixels, announced 640×240"},
		{"cut short", cut, data[:len(data)-2], "cut short"},
		{"not a JPEG", png, []byte("\x89PNG\r\n\x1a\n"), "not a JPEG"},
		{"header over random bytes", f, garbled(data), CorruptReason},
	} {
		if reason := Check(tt.f, tt.data); !strings.Contains(reason, tt.want) {
			t.Errorf("%s: reason %q; want %q", tt.name, reason, tt.want)
		}
	}
}

// garbled keeps data's JPEG header (up to its scan's start) and
// end-of-image marker, with random bytes between, to data's length: what
// a customer's broken frame looks like.
func garbled(data []byte) []byte {
	sos := bytes.Index(data, []byte{0xff, 0xda})
	start := sos + 2 + (int(data[sos+2])<<8 | int(data[sos+3]))
	out := bytes.Clone(data)
	r := rand.New(rand.NewPCG(1, 2))
	for i := start; i < len(out)-2; i++ {
		out[i] = byte(r.UintN(256))
	}
	return out
}

// FuzzCheck: uploaded bytes are outside input: any bytes give a
// verdict without panicking, and only a decodable JPEG as announced
// passes.
func FuzzCheck(f *testing.F) {
	valid := jpegOf(f, 64, 64)
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte{0xff, 0xd8, 0xff, 0xd9})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := survey.Frame{AnnouncedSize: int64(len(data)), Width: 64, Height: 64}
		if Check(fr, data) != "" {
			return
		}
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 64 {
			t.Fatalf("accepted a frame that is not a decodable 64×64 JPEG: %v", err)
		}
	})
}
