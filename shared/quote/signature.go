package quote

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
)

// Bounds of a signature image (signature_image_b64, decoded).
//
// MaxSignatureBytes is set by the request body limit, not by the image:
// acceptQuote's body is at most 64 KiB, and a 40 KiB PNG is 54,616
// characters of base64, which leaves room for the other fields. A
// signature drawn on a canvas and exported at 1× (the page scales its
// canvas down to at most 1000 px wide before export) is 4–20 KiB of PNG.
//
// The dimensions admit any sensible signature pad, from a narrow phone in
// portrait to a desktop canvas, and bound the memory a decode can take
// (2000 × 1000 × 8 bytes at 16-bit RGBA = 16 MB) before a pixel is read:
// they are checked from the PNG header first.
const (
	MaxSignatureBytes  = 40 << 10
	MinSignatureWidth  = 50
	MaxSignatureWidth  = 2000
	MinSignatureHeight = 20
	MaxSignatureHeight = 1000
	// MinInkPixels is how many pixels must differ from the background for
	// an image to count as a signature rather than a blank pad or a stray
	// tap.
	MinInkPixels = 20
)

// pngMagic is the signature every PNG file starts with.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// dataURLPrefix may start signature_image_b64: it is what a canvas's
// toDataURL("image/png") returns, so a client need not strip it.
const dataURLPrefix = "data:image/png;base64,"

// badBase64 is the reason for a value that is not base64 as accepted.
const badBase64 = "must be a PNG image in base64 (RFC 4648 standard alphabet, with padding, no line breaks), optionally after data:image/png;base64,"

// maxSignatureB64 is the length of MaxSignatureBytes in base64.
var maxSignatureB64 = base64.StdEncoding.EncodedLen(MaxSignatureBytes)

// decodeSignature decodes a signature_image_b64 value and checks it with
// checkSignature. It returns the PNG bytes, or a reason starting "must".
func decodeSignature(s string) ([]byte, string) {
	s = strings.TrimPrefix(s, dataURLPrefix)
	if strings.ContainsAny(s, "\r\n") {
		// encoding/base64 skips line breaks even in Strict mode.
		return nil, badBase64
	}
	if len(s) > maxSignatureB64 {
		return nil, fmt.Sprintf("must be at most %d bytes of PNG once decoded (%d characters of base64; got %d characters)", MaxSignatureBytes, maxSignatureB64, len(s))
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, badBase64
	}
	if reason := checkSignature(b); reason != "" {
		return nil, reason
	}
	return b, ""
}

// checkSignature checks that b is a complete PNG of at most
// MaxSignatureBytes, with dimensions within the bounds, that holds at
// least MinInkPixels pixels of ink. It returns a reason starting "must",
// or "" when b is acceptable.
//
// Ink is a pixel that is not fully transparent and differs from the
// background, the commonest colour of the image's border: that covers a
// transparent canvas with strokes and one filled white first, and a stroke
// that runs into a corner. A blank pad (all transparent, or one flat
// colour) has none.
func checkSignature(b []byte) string {
	if len(b) > MaxSignatureBytes {
		return fmt.Sprintf("must be at most %d bytes of PNG once decoded (got %d)", MaxSignatureBytes, len(b))
	}
	if !bytes.HasPrefix(b, pngMagic) {
		if kind := imageKind(b); kind != "" {
			return "must be a PNG image, not " + kind
		}
		return "must be a PNG image (it does not start with the PNG signature)"
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return "must be a complete, valid PNG image (its header cannot be read)"
	}
	if cfg.Width < MinSignatureWidth || cfg.Width > MaxSignatureWidth || cfg.Height < MinSignatureHeight || cfg.Height > MaxSignatureHeight {
		return fmt.Sprintf("must be %d to %d pixels wide and %d to %d pixels high (got %d × %d)",
			MinSignatureWidth, MaxSignatureWidth, MinSignatureHeight, MaxSignatureHeight, cfg.Width, cfg.Height)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return "must be a complete, valid PNG image (it is truncated or corrupt)"
	}
	bg := background(img)
	r := img.Bounds()
	ink := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := rgba(img.At(x, y)); c[3] != 0 && c != bg {
				if ink++; ink >= MinInkPixels {
					return ""
				}
			}
		}
	}
	return fmt.Sprintf("must show a signature: the image is blank (fewer than %d pixels differ from its background)", MinInkPixels)
}

// background returns the commonest colour of img's border pixels (the
// first seen of those equally common, going round from the top-left): the
// pad a signature is drawn on, which a stroke may touch but never covers.
func background(img image.Image) [4]uint32 {
	r := img.Bounds()
	counts := map[[4]uint32]int{}
	var best [4]uint32
	see := func(x, y int) {
		c := rgba(img.At(x, y))
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

// rgba is c's alpha-premultiplied 16-bit components, comparable.
func rgba(c color.Color) [4]uint32 {
	r, g, b, a := c.RGBA()
	return [4]uint32{r, g, b, a}
}

// imageKind names the image format b looks like, for a reason, or "".
func imageKind(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return "a JPEG"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "a GIF"
	case len(b) >= 12 && bytes.Equal(b[:4], []byte("RIFF")) && bytes.Equal(b[8:12], []byte("WEBP")):
		return "a WebP image"
	case bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("<")):
		return "SVG or other markup"
	}
	return ""
}

// signatureSHA256 is the lowercase hex SHA-256 of the PNG bytes as sent
// (decoded from base64, not re-encoded): the form evidence records.
func signatureSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
