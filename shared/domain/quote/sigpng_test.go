package quote

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
func signaturePNGOf(t testing.TB, w, h int, bg color.Color, ink int) []byte {
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

func TestCheckSignaturePNG(t *testing.T) {
	white := color.NRGBA{255, 255, 255, 255}
	ok := signaturePNGOf(t, 300, 100, color.Transparent, SignatureMinInk)
	for _, tt := range []struct {
		name string
		b    []byte
		want string // "" accepted, else part of the reason
	}{
		{"ink on transparent", ok, ""},
		{"ink on white", signaturePNGOf(t, 300, 100, white, SignatureMinInk), ""},
		{"one pixel short of ink", signaturePNGOf(t, 300, 100, white, SignatureMinInk-1), "blank"},
		{"blank transparent", signaturePNGOf(t, 300, 100, color.Transparent, 0), "blank"},
		{"smallest", signaturePNGOf(t, SignatureMinWidth, SignatureMinHeight, white, SignatureMinInk), ""},
		{"too narrow", signaturePNGOf(t, SignatureMinWidth-1, 100, white, SignatureMinInk), "got 49 × 100"},
		{"too high", signaturePNGOf(t, 300, SignatureMaxHeight+1, white, SignatureMinInk), "got 300 × 1001"},
		{"truncated", ok[:len(ok)-20], "truncated or corrupt"},
		{"not a PNG", []byte("GIF89a"), "header cannot be read"},
	} {
		got := CheckSignaturePNG(tt.b)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: CheckSignaturePNG = %q; want %q", tt.name, got, tt.want)
		}
		if got != "" && !strings.HasPrefix(got, "must") {
			t.Errorf("%s: reason %q does not start with must", tt.name, got)
		}
	}
}

// FuzzCheckSignaturePNG: the image is outside input: any bytes give a verdict without
// panicking, and only a decodable PNG within the bounds is accepted.
func FuzzCheckSignaturePNG(f *testing.F) {
	f.Add(signaturePNGOf(f, 60, 30, color.Transparent, SignatureMinInk))
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if CheckSignaturePNG(b) != "" {
			return
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("accepted bytes that do not decode: %v", err)
		}
		if r := img.Bounds(); r.Dx() < SignatureMinWidth || r.Dx() > SignatureMaxWidth || r.Dy() < SignatureMinHeight || r.Dy() > SignatureMaxHeight {
			t.Fatalf("accepted a %v image", r)
		}
	})
}
