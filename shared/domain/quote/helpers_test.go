package quote

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/png"
	"slices"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// now is the fixed "now" of the tests.
var now = time.Date(2025, 6, 2, 15, 4, 5, 123456789, time.UTC)

// signaturePNG returns a w × h PNG with background bg and, when strokes is
// true, a dark diagonal stroke three pixels thick across it.
func signaturePNG(t testing.TB, w, h int, bg color.Color, strokes bool) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, bg)
		}
	}
	if strokes {
		ink := color.NRGBA{R: 10, G: 20, B: 90, A: 255}
		for x := 0; x < w; x++ {
			y := x * h / w
			for d := -1; d <= 1; d++ {
				if y+d >= 0 && y+d < h {
					img.Set(x, y+d, ink)
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatalf("encode test PNG: %v", err)
	}
	return buf.Bytes()
}

// validSignature is a transparent 300 × 100 signature with a stroke.
func validSignature(t testing.TB) []byte {
	t.Helper()
	return signaturePNG(t, 300, 100, color.Transparent, true)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// testQuote returns an open quote of type typ made at now, open 30 days,
// for testMove.
func testQuote(typ EstimateType) Quote {
	in := CreateInput{EstimateType: typ, PriceCents: 245_000, DepositCents: 25_000, ExpiresInDays: 30}
	return Build("q-1", "lead-1", "6f1c2a8e-2b44-4d4e-9a57-3c1f5b2d7e90", in, testMove(), Issuer{CompanyName: "Ada Movers LLC", Currency: "usd"}, now)
}

// testMove is a surveyed move with special items, services and a price
// for full value protection.
func testMove() Move {
	fv := int64(45_000)
	return Move{
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108", MoveDate: "2025-07-15",
		Inventory: []Line{
			{Room: "Living room", Name: "Sofa, 3 seats", Count: 1},
			{Room: "Living room", Name: "Armchair", Count: 2},
			{Room: "Bedroom", Name: "Bed, queen", Count: 1},
		},
		SpecialItems: []string{"piano"}, Services: []string{"Packing", "Disassembly and reassembly of beds"},
		FullValueCents: &fv,
	}
}

// codeOf returns err's *errcode.Error, failing t when there is none.
func codeOf(t *testing.T, err error) *errcode.Error {
	t.Helper()
	if err == nil {
		t.Fatal("error = nil; want an *errcode.Error")
	}
	e := errcode.As(err)
	if e == nil {
		t.Fatalf("error %v; want an *errcode.Error", err)
	}
	if !errors.Is(err, e) {
		t.Fatalf("error %v is not its *errcode.Error", err)
	}
	return e
}

// fieldNames returns the sorted keys of a validation_failed error's
// details.fields, failing t when err is not one.
func fieldNames(t *testing.T, err error) []string {
	t.Helper()
	e := codeOf(t, err)
	if e.Code != errcode.ValidationFailed {
		t.Fatalf("code %q (%s); want validation_failed", e.Code, e.Message)
	}
	fields, _ := e.Details["fields"].(map[string]any)
	if len(fields) == 0 {
		t.Fatalf("validation_failed without details.fields: %v", e.Details)
	}
	out := make([]string, 0, len(fields))
	for k := range fields {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// reasonOf returns details.fields[field] of a validation_failed error.
func reasonOf(t *testing.T, err error, field string) string {
	t.Helper()
	fields, _ := codeOf(t, err).Details["fields"].(map[string]any)
	s, _ := fields[field].(string)
	return s
}

// parseAcceptBody is ParseAccept with the signature check in use.
func parseAcceptBody(body []byte) (AcceptRequest, error) { return ParseAccept(body, CheckSignaturePNG) }
