package sigpng

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// pngOf returns a w × h PNG on background bg with ink pixels of a dark
// colour along its diagonal.
func pngOf(t testing.TB, w, h int, bg color.Color, ink int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, bg)
		}
	}
	for i := range ink {
		img.Set(1+i%(w-2), 1+i/(w-2), color.NRGBA{R: 10, G: 20, B: 90, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheck(t *testing.T) {
	white := color.NRGBA{255, 255, 255, 255}
	ok := pngOf(t, 300, 100, color.Transparent, MinInkPixels)
	for _, tt := range []struct {
		name string
		b    []byte
		want string // "" accepted, else part of the reason
	}{
		{"ink on transparent", ok, ""},
		{"ink on white", pngOf(t, 300, 100, white, MinInkPixels), ""},
		{"one pixel short of ink", pngOf(t, 300, 100, white, MinInkPixels-1), "blank"},
		{"blank transparent", pngOf(t, 300, 100, color.Transparent, 0), "blank"},
		{"smallest", pngOf(t, MinWidth, MinHeight, white, MinInkPixels), ""},
		{"too narrow", pngOf(t, MinWidth-1, 100, white, MinInkPixels), "got 49 × 100"},
		{"too high", pngOf(t, 300, MaxHeight+1, white, MinInkPixels), "got 300 × 1001"},
		{"truncated", ok[:len(ok)-20], "truncated or corrupt"},
		{"not a PNG", []byte("GIF89a"), "header cannot be read"},
	} {
		got := Check(tt.b)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: Check = %q; want %q", tt.name, got, tt.want)
		}
		if got != "" && !strings.HasPrefix(got, "must") {
			t.Errorf("%s: reason %q does not start with must", tt.name, got)
		}
	}
}

// FuzzCheck: the image is outside input: any bytes give a verdict without
// panicking, and only a decodable PNG within the bounds is accepted.
func FuzzCheck(f *testing.F) {
	f.Add(pngOf(f, 60, 30, color.Transparent, MinInkPixels))
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if Check(b) != "" {
			return
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("accepted bytes that do not decode: %v", err)
		}
		if r := img.Bounds(); r.Dx() < MinWidth || r.Dx() > MaxWidth || r.Dy() < MinHeight || r.Dy() > MaxHeight {
			t.Fatalf("accepted a %v image", r)
		}
	})
}
