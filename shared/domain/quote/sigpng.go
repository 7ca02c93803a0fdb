// This file checks the picture of a signature drawn on the quote page or
// sent to acceptQuote: a PNG of sensible dimensions that shows a
// signature, not a blank pad (ParseAccept takes CheckSignaturePNG).

package quote

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// Bounds of a signature image. They admit any sensible signature pad, from
// a narrow phone in portrait to a desktop canvas, and bound the memory a
// decode can take (2000 × 1000 × 8 bytes at 16-bit RGBA = 16 MB) before a
// pixel is read: they are checked from the PNG header first. The size in
// bytes is bounded by the caller (quote.MaxSignatureBytes).
const (
	SignatureMinWidth  = 50
	SignatureMaxWidth  = 2000
	SignatureMinHeight = 20
	SignatureMaxHeight = 1000
	// SignatureMinInk is how many pixels must differ from the background for
	// an image to count as a signature rather than a blank pad or a stray
	// tap.
	SignatureMinInk = 20
)

// CheckSignaturePNG checks that b is a complete PNG with dimensions within the bounds
// that holds at least SignatureMinInk pixels of ink. It returns a reason
// starting "must", or "" when b is acceptable.
//
// Ink is a pixel that is not fully transparent and differs from the
// background, the commonest colour of the image's border: that covers a
// transparent canvas with strokes and one filled white first, and a stroke
// that runs into a corner. A blank pad (all transparent, or one flat
// colour) has none.
func CheckSignaturePNG(b []byte) string {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return "must be a complete, valid PNG image (its header cannot be read)"
	}
	if cfg.Width < SignatureMinWidth || cfg.Width > SignatureMaxWidth || cfg.Height < SignatureMinHeight || cfg.Height > SignatureMaxHeight {
		return fmt.Sprintf("must be %d to %d pixels wide and %d to %d pixels high (got %d × %d)",
			SignatureMinWidth, SignatureMaxWidth, SignatureMinHeight, SignatureMaxHeight, cfg.Width, cfg.Height)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return "must be a complete, valid PNG image (it is truncated or corrupt)"
	}
	bg := signatureBackground(img)
	r := img.Bounds()
	ink := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := rgba64(img.At(x, y)); c[3] != 0 && c != bg {
				if ink++; ink >= SignatureMinInk {
					return ""
				}
			}
		}
	}
	return fmt.Sprintf("must show a signature: the image is blank (fewer than %d pixels differ from its background)", SignatureMinInk)
}

// signatureBackground returns the commonest colour of img's border pixels (the
// first seen of those equally common, going round from the top-left): the
// pad a signature is drawn on, which a stroke may touch but never covers.
func signatureBackground(img image.Image) [4]uint32 {
	r := img.Bounds()
	counts := map[[4]uint32]int{}
	var best [4]uint32
	see := func(x, y int) {
		c := rgba64(img.At(x, y))
		counts[c]++
		if counts[c] > counts[best] {
			best = c
		}
	}
	for x := r.Min.X; x < r.Max.X; x++ {
		see(x, r.Min.Y)
		see(x, r.Max.Y-1)
	}
	for y := r.Min.Y + 1; y < r.Max.Y-1; y++ {
		see(r.Min.X, y)
		see(r.Max.X-1, y)
	}
	return best
}

// rgba64 is c's alpha-premultiplied 16-bit components, comparable.
func rgba64(c color.Color) [4]uint32 {
	r, g, b, a := c.RGBA()
	return [4]uint32{r, g, b, a}
}
