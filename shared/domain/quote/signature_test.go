package quote

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
)

// withIHDRSize returns the PNG b with its header claiming w × h pixels (and
// the header's CRC fixed), leaving the pixel data as it was.
func withIHDRSize(t *testing.T, b []byte, w, h uint32) []byte {
	t.Helper()
	out := bytes.Clone(b)
	// 8-byte signature, 4-byte length, "IHDR", then width and height.
	if string(out[12:16]) != "IHDR" {
		t.Fatalf("test PNG has no IHDR at offset 12")
	}
	binary.BigEndian.PutUint32(out[16:20], w)
	binary.BigEndian.PutUint32(out[20:24], h)
	binary.BigEndian.PutUint32(out[29:33], crc32.ChecksumIEEE(out[12:29]))
	return out
}

// noisePNG is a w × h PNG of random opaque pixels: it compresses badly, so
// it is large for its dimensions.
func noisePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.IntN(256))
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeSignature(t *testing.T) {
	valid := validSignature(t)
	var jpg bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 300, 100))
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	big := noisePNG(t, 200, 200)
	if len(big) <= MaxSignatureBytes {
		t.Fatalf("noise PNG is %d bytes; want more than %d", len(big), MaxSignatureBytes)
	}
	// A few ink pixels: a 3-pixel dot on a transparent pad.
	dot := image.NewNRGBA(image.Rect(0, 0, 300, 100))
	for x := 10; x < 13; x++ {
		dot.Set(x, 10, color.Black)
	}
	var dotPNG bytes.Buffer
	if err := png.Encode(&dotPNG, dot); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		value  string
		reason string // a part of the reason; "" when it must be accepted
	}{
		{"valid transparent PNG", b64(valid), ""},
		{"valid with a data URL prefix", "data:image/png;base64," + b64(valid), ""},
		{"white background with strokes", b64(signaturePNG(t, 400, 150, color.White, true)), ""},
		{"smallest dimensions", b64(signaturePNG(t, SignatureMinWidth, SignatureMinHeight, color.Transparent, true)), ""},
		{"largest dimensions", b64(signaturePNG(t, SignatureMaxWidth, SignatureMaxHeight, color.Transparent, true)), ""},
		{"JPEG bytes", b64(jpg.Bytes()), "must be a PNG image, not a JPEG"},
		{"GIF bytes", b64([]byte("GIF89a\x01\x00\x01\x00")), "not a GIF"},
		{"SVG", b64([]byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)), "not SVG"},
		{"text", b64([]byte("hello")), "does not start with the PNG signature"},
		{"empty after decoding", "data:image/png;base64,", "does not start with the PNG signature"},
		{"truncated PNG", b64(valid[:len(valid)/2]), "truncated or corrupt"},
		{"header only", b64(valid[:33]), "truncated or corrupt"},
		{"signature only", b64(valid[:8]), "header cannot be read"},
		{"corrupt header CRC", b64(append(append(bytes.Clone(valid[:29]), 0, 0, 0, 0), valid[33:]...)), "header cannot be read"},
		{"huge dimensions in the header", b64(withIHDRSize(t, valid, 100_000, 100_000)), "got 100000 × 100000"},
		{"too wide", b64(signaturePNG(t, SignatureMaxWidth+1, 100, color.Transparent, true)), "got 2001 × 100"},
		{"too high", b64(signaturePNG(t, 300, SignatureMaxHeight+1, color.Transparent, true)), "got 300 × 1001"},
		{"too narrow", b64(signaturePNG(t, SignatureMinWidth-1, 100, color.Transparent, true)), "got 49 × 100"},
		{"too low", b64(signaturePNG(t, 300, SignatureMinHeight-1, color.Transparent, true)), "got 300 × 19"},
		{"too many bytes", b64(big), "at most 40960 bytes"},
		{"too many bytes by one", b64(append(bytes.Clone(valid), make([]byte, MaxSignatureBytes+1-len(valid))...)), "at most 40960 bytes of PNG once decoded (got 40961)"},
		{"blank transparent", b64(signaturePNG(t, 300, 100, color.Transparent, false)), "the image is blank"},
		{"blank white", b64(signaturePNG(t, 300, 100, color.White, false)), "the image is blank"},
		{"a stray tap", b64(dotPNG.Bytes()), "the image is blank"},
		{"bad base64", "!!!not base64!!!", "must be a PNG image in base64"},
		{"base64 without padding", strings.TrimRight(b64(valid), "="), "must be a PNG image in base64"},
		{"base64 with line breaks", b64(valid)[:60] + "\n" + b64(valid)[60:], "must be a PNG image in base64"},
		{"URL-safe base64", strings.NewReplacer("+", "-", "/", "_").Replace(b64(bytes.Repeat([]byte{0xfb, 0xff}, 30))), "must be a PNG image in base64"},
		{"a JPEG data URL", "data:image/jpeg;base64," + b64(jpg.Bytes()), "must be a PNG image in base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, reason := decodeSignature(tt.value, CheckSignaturePNG)
			switch {
			case tt.reason == "" && reason != "":
				t.Fatalf("decodeSignature = %q; want accepted", reason)
			case tt.reason == "":
				want, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(tt.value, dataURLPrefix))
				if !bytes.Equal(b, want) {
					t.Errorf("decodeSignature returned %d bytes; want the %d decoded", len(b), len(want))
				}
			case !strings.Contains(reason, tt.reason):
				t.Errorf("decodeSignature = %q; want a reason containing %q", reason, tt.reason)
			case b != nil:
				t.Errorf("decodeSignature returned %d bytes with reason %q; want nil", len(b), reason)
			case !strings.HasPrefix(reason, "must"):
				t.Errorf("reason %q; want it to start with \"must\"", reason)
			}
		})
	}
}

func TestMaxSignatureFitsTheBody(t *testing.T) {
	// The whole Accept body must fit acceptQuote's 64 KiB body limit with
	// the largest signature and the longest other fields.
	other := 200*4 + 254*4 + 254*4 + 64 + 200 // worst-case UTF-8 and escaping allowance, names, punctuation
	if n := len(dataURLPrefix) + maxSignatureB64 + other; n > 64<<10 {
		t.Errorf("largest Accept body is %d bytes; want at most %d", n, 64<<10)
	}
}

func BenchmarkCheckSignatureLargestBlank(b *testing.B) {
	img := signaturePNG(b, SignatureMaxWidth, SignatureMaxHeight, color.Transparent, false)
	b.ResetTimer()
	for b.Loop() {
		if CheckSignaturePNG(img) == "" {
			b.Fatal("blank accepted")
		}
	}
}
