package quote

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// MaxSignatureBytes bounds a signature image (signature_image_b64,
// decoded). It is set by the request body limit, not by the image:
// acceptQuote's body is at most 64 KiB, and a 40 KiB PNG is 54,616
// characters of base64, which leaves room for the other fields. A
// signature drawn on a canvas and exported at 1× (the page scales its
// canvas down to at most 1000 px wide before export) is 4–20 KiB of PNG.
// The image's own rules (dimensions, ink) are the SignatureCheck's.
const MaxSignatureBytes = 40 << 10

// SignatureCheck checks a signature image's bytes, a PNG of at most
// MaxSignatureBytes, returning a reason starting "must", or "" when it is
// acceptable. ParseAccept takes one: CheckSignaturePNG decodes the image;
// tests may pass another.
type SignatureCheck func(png []byte) string

// pngMagic is the signature every PNG file starts with.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// dataURLPrefix may start signature_image_b64: it is what a canvas's
// toDataURL("image/png") returns, so a client need not strip it.
const dataURLPrefix = "data:image/png;base64,"

// badBase64 is the reason for a value that is not base64 as accepted.
const badBase64 = "must be a PNG image in base64 (RFC 4648 standard alphabet, with padding, no line breaks), optionally after data:image/png;base64,"

// maxSignatureB64 is the length of MaxSignatureBytes in base64.
var maxSignatureB64 = base64.StdEncoding.EncodedLen(MaxSignatureBytes)

// decodeSignature decodes a signature_image_b64 value, checks its size
// and that it is a PNG, and then checks it with check. It returns the PNG
// bytes, or a reason starting "must".
func decodeSignature(s string, check SignatureCheck) ([]byte, string) {
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
	if len(b) > MaxSignatureBytes {
		return nil, fmt.Sprintf("must be at most %d bytes of PNG once decoded (got %d)", MaxSignatureBytes, len(b))
	}
	if !bytes.HasPrefix(b, pngMagic) {
		if kind := imageKind(b); kind != "" {
			return nil, "must be a PNG image, not " + kind
		}
		return nil, "must be a PNG image (it does not start with the PNG signature)"
	}
	if reason := check(b); reason != "" {
		return nil, reason
	}
	return b, ""
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
