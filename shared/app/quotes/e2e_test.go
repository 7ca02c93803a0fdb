package quotes_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// The tests in this file go through the real stack (DynamoDB Local, MinIO,
// stripe-mock): quotes made and signed through the API, their pages read
// as the customer's browser gets them.

// TestMain runs the tests against DynamoDB Local, MinIO (surveys,
// signature images) and stripe-mock (the v1-quote function's deposits).
func TestMain(m *testing.M) { apitest.MainS3Stripe(m) }

// world is a partner with the quotes beta, and its test-mode key.
type world struct {
	env    *apitest.Env
	key    string
	tenant auth.Tenant
}

func newWorld(t *testing.T) *world {
	t.Helper()
	env := apitest.New(t, apitest.Options{S3: true})
	p := env.NewPartner(t, "Acme Movers")
	key, _ := env.NewKey(t, p, auth.Test)
	if _, err := env.Store.SetBeta(context.Background(), p, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	return &world{env: env, key: key, tenant: auth.Tenant{PartnerID: p, Mode: auth.Test}}
}

func (w *world) do(t *testing.T, method, path, body string) apitest.Result {
	t.Helper()
	return w.env.Do(t, method, path, w.key, body)
}

// page GETs the quote page at url (a quote_url) as a browser does, and
// returns its HTML.
func (w *world) page(t *testing.T, url string) string {
	t.Helper()
	path := url[strings.Index(url, "/v1-quote/"):]
	r := w.env.DoRaw(t, "GET", path, "", "")
	if r.Status != 200 {
		t.Fatalf("GET the quote page: %d %s", r.Status, r.Body)
	}
	return string(r.Body)
}

// signaturePNG is a 400×120 pad with a stroke, as the page exports one.
func signaturePNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 400, 120))
	for x := range 400 {
		for y := range 120 {
			img.Set(x, y, color.White)
		}
	}
	for x := 40; x < 360; x++ {
		img.Set(x, 60+(x%40-20), color.Black)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var signatureImg = regexp.MustCompile(`<img id="copy-signature"[^>]* src="data:image/png;base64,([A-Za-z0-9+/=]+)"`)

// shownSignature is the signature image the page's signed copy shows;
// nil when it shows none.
func shownSignature(t *testing.T, html string) []byte {
	t.Helper()
	m := signatureImg.FindStringSubmatch(html)
	if m == nil {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatalf("the signature image's data URL: %v", err)
	}
	return b
}

// TestSignedCopyShowsTheSignature signs a binding quote through
// acceptQuote; its page's signed copy then shows that very image, read
// back from the bucket. An image that is too large, not the one signed,
// or gone leaves the copy without it, and the page still opens.
func TestSignedCopyShowsTheSignature(t *testing.T) {
	w := newWorld(t)
	lead := apitest.Want(t, w.do(t, "POST", "/v1/leads", `{"customer_name":"Ada Lovelace","email":"ada@example.com"}`), 200, "")
	leadID := lead["lead_id"].(string)
	q := apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/quote", `{"estimate_type":"binding","price_cents":245000,"deposit_cents":0}`), 200, "")
	sig := signaturePNG(t)
	apitest.Want(t, w.do(t, "POST", "/v1/leads/"+leadID+"/accept", fmt.Sprintf(
		`{"signer_name":"Ada Lovelace","signer_email":"ada@example.com","signature_image_b64":%q,"liability_election":"full_value_protection","esign_consent_checked":true}`,
		base64.StdEncoding.EncodeToString(sig))), 200, "")
	url := q["quote_url"].(string)

	html := w.page(t, url)
	if !strings.Contains(html, "Your signed copy") {
		t.Fatalf("the signed quote's page has no signed copy:\n%s", html)
	}
	if got := shownSignature(t, html); !bytes.Equal(got, sig) {
		t.Fatalf("the signed copy shows a signature image of %d bytes; want the %d bytes signed", len(got), len(sig))
	}
	if !testing.Short() {
		// In Chromium too: the image loads under the page's CSP.
		ctx, _ := htmltest.StartPhone(t, url, "")
		wd, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const i = document.getElementById("copy-signature"); return i && i.complete ? i.naturalWidth : 0; })()`))
		if err != nil || wd != 400 {
			t.Errorf("signature image natural width %v, %v; want the 400 px signature, loaded", wd, err)
		}
		htmltest.Shot(t, ctx, "signed-copy-e2e-phone")
	}

	qr, err := w.env.Store.GetQuote(context.Background(), w.tenant, leadID, q["quote_id"].(string))
	if err != nil || qr.Acceptance == nil || qr.Acceptance.Evidence == nil {
		t.Fatalf("stored quote %+v, %v; want its evidence", qr, err)
	}
	key := qr.Acceptance.Evidence.SignatureKey
	other := signaturePNG(t)
	other[len(other)/2] ^= 1
	for _, tc := range []struct {
		name string
		body []byte // nil: the object is deleted
	}{
		{"over the read limit", bytes.Repeat([]byte{0x89}, 600<<10)},
		{"not the image signed", other},
		{"gone", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var err error
			if tc.body == nil {
				_, err = w.env.S3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &w.env.Bucket, Key: &key})
			} else {
				_, err = w.env.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: &w.env.Bucket, Key: &key, Body: bytes.NewReader(tc.body)})
			}
			if err != nil {
				t.Fatal(err)
			}
			html := w.page(t, url)
			if got := shownSignature(t, html); got != nil || !strings.Contains(html, "Your signed copy") {
				t.Errorf("page shows a %d-byte signature image (signed copy shown: %v); want the copy without one",
					len(got), strings.Contains(html, "Your signed copy"))
			}
		})
	}
}

// TestQuotePageListsTheSurveyInventory: a lead whose video survey counted
// its inventory gets a quote through createQuote, and the quote page lists
// that inventory by room with quantities, with the services and the cost
// of full value protection the quote was made with.
func TestQuotePageListsTheSurveyInventory(t *testing.T) {
	w := newWorld(t)
	sv := w.env.PlayableSurvey(t, w.key, apitest.MP4Clip)
	apitest.Want(t, w.env.Do(t, "PUT", sv.CapturePath+"/checklist", "",
		`{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":2}]},{"name":"Bedroom","items":[{"key":"bed_queen","count":1}]}]}`), 200, "")
	apitest.Want(t, w.env.Do(t, "POST", sv.CapturePath+"/finish", "", ""), 200, "")
	deadline := time.Now().Add(30 * time.Second)
	for {
		l := apitest.Want(t, w.do(t, "GET", "/v1/leads/"+sv.LeadID, ""), 200, "")
		st, _ := l["survey"].(map[string]any)["status"].(string)
		if st == "inventory_ready" {
			break
		}
		if st != "processing" || time.Now().After(deadline) {
			t.Fatalf("survey %q; want inventory_ready within 30 s; logs:\n%s", st, w.env.Logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	q := apitest.Want(t, w.do(t, "POST", "/v1/leads/"+sv.LeadID+"/quote",
		`{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"services":["Packing of fragile items"],"full_value_protection_cents":45000}`), 200, "")

	text := pageText(w.page(t, q["quote_url"].(string)))
	for _, want := range []string{
		"Your move", "From 1 Main St, New York, NY 10001", "To 9 Oak Ave, Boston, MA 02108",
		"Living room Sofa, 3 seats × 2", "Bedroom Bed, queen × 1",
		"Services included Packing of fragile items", "Cost: $450.00 on top of the price.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the quote page does not show %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "No inventory from a video survey") {
		t.Errorf("the quote page says it has no inventory:\n%s", text)
	}
}

var (
	tags   = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]*>`)
	spaces = regexp.MustCompile(`\s+`)
)

// pageText is html's text, tags dropped and spaces collapsed.
func pageText(html string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(tags.ReplaceAllString(html, " "), " "))
}
