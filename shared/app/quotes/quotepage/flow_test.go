package quotepage

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// signRequest is the body the signing form sends: exactly these fields.
type signRequest struct {
	SignerName          string `json:"signer_name"`
	SignerEmail         string `json:"signer_email"`
	SignatureImageB64   string `json:"signature_image_b64"`
	LiabilityElection   string `json:"liability_election"`
	ESignConsentChecked bool   `json:"esign_consent_checked"`
}

// decodeStrict decodes b into v, failing on any field v does not have.
func decodeStrict(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("body %s: %v", b, err)
	}
}

// checkSignaturePNG checks a signature_image_b64 as the server does: a
// data URL of a PNG that decodes, of at most 40 KiB, 50 to maxWidth px
// wide and 20 to 1000 px high, with at least 20 pixels of ink (not the
// background, the top-left pixel's colour). It returns the image's size.
func checkSignaturePNG(t *testing.T, dataURL string, maxWidth int) (int, int) {
	t.Helper()
	b64, ok := strings.CutPrefix(dataURL, "data:image/png;base64,")
	if !ok {
		t.Fatalf("signature %.40q… is not a PNG data URL", dataURL)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil {
		t.Fatalf("signature is not base64: %v", err)
	}
	if len(raw) > 40<<10 {
		t.Errorf("signature PNG is %d bytes; the server takes at most 40 KiB", len(raw))
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("signature does not decode as PNG: %v", err)
	}
	r := img.Bounds()
	if r.Dx() < 50 || r.Dx() > maxWidth || r.Dy() < 20 || r.Dy() > 1000 {
		t.Errorf("signature is %d × %d px; want 50–%d × 20–1000", r.Dx(), r.Dy(), maxWidth)
	}
	bg := img.At(r.Min.X, r.Min.Y)
	br, bgG, bb, ba := bg.RGBA()
	if br != 0xffff || bgG != 0xffff || bb != 0xffff || ba != 0xffff {
		t.Errorf("signature background %v; want opaque white", bg)
	}
	ink := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := img.At(x, y); c != bg {
				if _, _, _, a := c.RGBA(); a != 0 {
					ink++
				}
			}
		}
	}
	if ink < 200 {
		t.Errorf("signature has %d pixels of ink; want a drawn signature (at least 200)", ink)
	}
	return r.Dx(), r.Dy()
}

// TestSignAndPayOnAPhone signs a binding quote on a phone: an empty
// submission shows what is missing without sending anything; then the
// form is filled, a signature drawn with the mouse, and the quote signed;
// the page switches to "Quote signed" without a reload, and Pay goes to
// the checkout the deposit call answers.
func TestSignAndPayOnAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("bind", bindingPage())
	ctx := openPhone(t, f, "/v1-quote/bind")
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "Sign this quote"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "binding-open-phone")

	// Nothing filled in: every problem is named, next to its field and in
	// the summary, which takes the focus; nothing is sent.
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Sign and accept quote"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"There is a problem", "Enter your full name.", "Enter your email address.",
		"Choose how your belongings should be protected.", "Tick the box to agree to sign electronically.", "Draw your signature in the box."} {
		if err := browser.WaitText(htmltest.Within(t, ctx, 5*time.Second), w); err != nil {
			t.Error(err)
		}
	}
	if got := fieldError(t, ctx, "signature-error"); got != "Draw your signature in the box." {
		t.Errorf("next to the signature pad: %q", got)
	}
	if id := activeID(t, ctx); id != "error-summary" {
		t.Errorf("focus on #%s; want the error summary", id)
	}
	htmltest.Shot(t, ctx, "binding-missing-phone")
	if n := len(f.callsTo("/v1-quote/bind/accept")); n != 0 {
		t.Fatalf("%d accept calls for an empty form; want none", n)
	}

	fillSigningForm(t, ctx)
	if got := fieldError(t, ctx, "signature-error"); got != "" {
		t.Errorf("the signature's error %q stays after drawing", got)
	}
	htmltest.Shot(t, ctx, "binding-filled-phone")
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Sign and accept quote"); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "Quote signed"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(htmltest.Within(t, ctx, 5*time.Second), "Thank you. Demo Movers has your signed quote."); err != nil {
		t.Error(err)
	}
	if id := activeID(t, ctx); id != "done-title" {
		t.Errorf("focus on #%s; want the Quote signed heading", id)
	}
	if _, err := browser.Find(ctx, browser.RoleButton, "Sign and accept quote"); err == nil {
		t.Error("the form is still shown after signing")
	}
	if text, err := browser.Text(ctx); err != nil || strings.Contains(text, "Valid until") {
		t.Errorf("after signing the page still says until when the quote is valid (%v):\n%s", err, text)
	}
	htmltest.Shot(t, ctx, "binding-signed-phone")

	calls := f.callsTo("/v1-quote/bind/accept")
	if len(calls) != 1 {
		t.Fatalf("%d accept calls; want 1", len(calls))
	}
	if calls[0].ContentType != "application/json" {
		t.Errorf("accept Content-Type %q; want application/json", calls[0].ContentType)
	}
	var got signRequest
	decodeStrict(t, calls[0].Body, &got)
	if got.SignerName != "Ada Lovelace" || got.SignerEmail != "ada@example.com" || got.LiabilityElection != "full_value_protection" || !got.ESignConsentChecked {
		t.Errorf("accept body %+v", got)
	}
	w, h := checkSignaturePNG(t, got.SignatureImageB64, 1000)
	// Exported at 1 CSS pixel a pixel: a phone's pad, not its 2× canvas.
	if w > 390 || h > 300 {
		t.Errorf("signature %d × %d px on a 390 px wide phone; want it exported at 1×", w, h)
	}

	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Pay deposit of $250.00"); err != nil {
		t.Fatal(err)
	}
	if want, got := f.base+"/fake-checkout?session=cs_test_bind", htmltest.WaitLocation(t, ctx, f.base+"/fake-checkout?session=cs_test_bind"); got != want {
		t.Errorf("the browser went to %s; want %s", got, want)
	}
	deposits := f.callsTo("/v1-quote/bind/deposit")
	if len(deposits) != 1 || strings.TrimSpace(string(deposits[0].Body)) != "{}" || deposits[0].ContentType != "application/json" {
		t.Errorf("deposit calls %+v; want one POST of {}", deposits)
	}
}

// fieldError is the text of the error element id, "" when it is hidden.
func fieldError(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const e = document.getElementById(`+jsString(id)+`); return e && !e.hidden ? e.textContent : ""; })()`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// activeID is the id of the focused element.
func activeID(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.id : ""`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestAcceptNonBindingQuote accepts a non-binding quote without a deposit
// with an email address, after the page refused one that is not.
func TestAcceptNonBindingQuote(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("simple", nonBindingPage())
	ctx := openPhone(t, f, "/v1-quote/simple")
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "Accept this quote"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "nonbinding-open-phone")
	if err := browser.Fill(htmltest.Within(t, ctx, 5*time.Second), browser.RoleTextbox, "Email address", "ada@example"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Accept quote"); err != nil {
		t.Fatal(err)
	}
	if got := fieldError(t, ctx, "accepter-email-error"); got != "Enter an email address like name@example.com." {
		t.Errorf("next to the email: %q", got)
	}
	if invalid, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("accepter-email").getAttribute("aria-invalid") || ""`)); err != nil || invalid != "true" {
		t.Errorf("aria-invalid %q, %v; want true", invalid, err)
	}
	if err := browser.Fill(htmltest.Within(t, ctx, 5*time.Second), browser.RoleTextbox, "Email address", " ada@example.com "); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Accept quote"); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "Quote accepted"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Thank you. Demo Movers has your acceptance.", "No deposit is needed. Demo Movers will be in touch to confirm your moving date."} {
		if err := browser.WaitText(htmltest.Within(t, ctx, 5*time.Second), w); err != nil {
			t.Error(err)
		}
	}
	if _, err := browser.Find(ctx, browser.RoleButton, "Pay deposit"); err == nil {
		t.Error("a Pay button without a deposit")
	}
	htmltest.Shot(t, ctx, "nonbinding-accepted-phone")
	calls := f.callsTo("/v1-quote/simple/accept")
	if len(calls) != 1 {
		t.Fatalf("%d accept calls; want 1", len(calls))
	}
	var got struct {
		AccepterEmail string `json:"accepter_email"`
	}
	decodeStrict(t, calls[0].Body, &got)
	if got.AccepterEmail != "ada@example.com" || calls[0].ContentType != "application/json" {
		t.Errorf("accept body %s (%s); want the trimmed email as JSON", calls[0].Body, calls[0].ContentType)
	}
}

// TestServerRefusals: the server's 422 puts each field's reason next to
// the field; its 409 says what happened and offers a reload, which shows
// the quote as it now is.
func TestServerRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("tok", bindingPage())
	f.accept["tok"] = answer{422, apiError("validation_failed", "The request has invalid fields.", map[string]string{
		"signer_email":        "must be a valid email address",
		"signature_image_b64": "must show a signature: the image is blank (fewer than 20 pixels differ from its background)",
		"accepter_email":      "may only be sent if it equals signer_email",
	})}
	ctx := openPhone(t, f, "/v1-quote/tok")
	fillSigningForm(t, ctx)
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Sign and accept quote"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(htmltest.Within(t, ctx, 10*time.Second), "There is a problem"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"signer-email-error": "Email address must be a valid email address.",
		"signature-error":    "Signature must show a signature: the image is blank (fewer than 20 pixels differ from its background).",
		"signer-name-error":  "",
	} {
		if got := fieldError(t, ctx, id); got != want {
			t.Errorf("#%s says %q; want %q", id, got, want)
		}
	}
	// A field the page has no place for is still in the summary.
	if err := browser.WaitText(htmltest.Within(t, ctx, 5*time.Second), "May only be sent if it equals signer_email."); err != nil {
		t.Error(err)
	}
	// The summary's links take the focus to their fields.
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleLink, "Email address must be a valid email address."); err != nil {
		t.Fatal(err)
	}
	if id := activeID(t, ctx); id != "signer-email" {
		t.Errorf("focus on #%s; want the email field", id)
	}
	htmltest.Shot(t, ctx, "binding-422-phone")

	f.mu.Lock()
	f.accept["tok"] = answer{409, apiError("quote_expired", "This quote has expired and can no longer be accepted.", nil)}
	f.mu.Unlock()
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Sign and accept quote"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(htmltest.Within(t, ctx, 10*time.Second), "This quote has expired and can no longer be accepted. Reload the page to see the latest version of your quote."); err != nil {
		t.Fatal(err)
	}
	if got := fieldError(t, ctx, "signer-email-error"); got != "" {
		t.Errorf("the earlier field error %q stays", got)
	}
	if _, err := browser.Find(ctx, browser.RoleButton, "Sign and accept quote"); err == nil {
		t.Error("after a 409 the page still offers to sign, which cannot succeed")
	}
	htmltest.Shot(t, ctx, "binding-409-phone")
	p := bindingPage()
	p.Stage = StageExpired
	f.add("tok", p)
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Reload the page"); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "This quote has expired"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.callsTo("/v1-quote/tok/accept")); n != 2 {
		t.Errorf("%d accept calls; want 2", n)
	}
}

// TestAcceptedQuoteOnLoad opens quotes accepted earlier: a signed one
// whose deposit is due shows its Pay button, which answers a conflict
// inline; one whose checkout is open links straight to it; a paid one
// says the move is booked.
func TestAcceptedQuoteOnLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("signed", signedPage())
	f.deposit["signed"] = answer{409, apiError("quote_already_accepted", "A deposit is already being paid for this quote.", nil)}
	linked := signedPage()
	linked.DepositStatus = DepositPending
	linked.CheckoutURL = f.base + "/fake-checkout?session=direct"
	f.add("linked", linked)
	paid := signedPage()
	paid.DepositStatus = DepositPaid
	f.add("paid", paid)

	ctx := openPhone(t, f, "/v1-quote/signed")
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "Quote signed"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(htmltest.Within(t, ctx, 5*time.Second), "You signed this quote on"); err != nil {
		t.Error(err)
	}
	htmltest.Shot(t, ctx, "signed-deposit-due-phone")
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Pay deposit of $250.00"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(htmltest.Within(t, ctx, 10*time.Second), "A deposit is already being paid for this quote. Reload the page to see the latest."); err != nil {
		t.Error(err)
	}
	// The button is back for another try.
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Pay deposit of $250.00"); err != nil {
		t.Error(err)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(f.base+"/v1-quote/linked")); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(htmltest.Within(t, ctx, 10*time.Second), browser.RoleLink, "Pay deposit of $250.00"); err != nil {
		t.Fatal(err)
	}
	if want, got := f.base+"/fake-checkout?session=direct", htmltest.WaitLocation(t, ctx, f.base+"/fake-checkout?session=direct"); got != want {
		t.Errorf("the browser went to %s; want %s", got, want)
	}
	if n := len(f.callsTo("/v1-quote/linked/deposit")); n != 0 {
		t.Errorf("%d deposit calls; the link goes straight to the open checkout", n)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(f.base+"/v1-quote/paid")); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(htmltest.Within(t, ctx, 10*time.Second), "Deposit received — your move is booked"); err != nil {
		t.Error(err)
	}
	if _, err := browser.Find(ctx, browser.RoleButton, "Pay deposit of $250.00"); err == nil {
		t.Error("a paid deposit's page offers to pay")
	}
}

// TestSignatureExportIsBounded signs on a very wide screen, where the pad
// is wider than 1000 px: the image is scaled down to 1000 px wide, in
// proportion.
func TestSignatureExportIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("wide", bindingPage())
	ctx := openPhone(t, f, "/v1-quote/wide")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(2400, 1000), chromedp.Navigate(f.base+"/v1-quote/wide")); err != nil {
		t.Fatal(err)
	}
	// Let the page use the whole width, as a zoomed-out desktop might.
	pad, err := chromedp.Run(htmltest.Within(t, ctx, 5*time.Second), chromedp.Evaluate[[]float64](`(async () => {
		document.querySelector(".page").style.maxWidth = "none";
		await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		const r = document.getElementById("signature").getBoundingClientRect();
		return [r.width, r.height];
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	padW, padH := pad[0], pad[1]
	if padW < 1500 {
		t.Fatalf("the pad is %.0f px wide; the test needs one over 1000", padW)
	}
	fillSigningForm(t, ctx)
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Sign and accept quote"); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "Quote signed"); err != nil {
		t.Fatal(err)
	}
	calls := f.callsTo("/v1-quote/wide/accept")
	if len(calls) != 1 {
		t.Fatalf("%d accept calls; want 1", len(calls))
	}
	var got signRequest
	decodeStrict(t, calls[0].Body, &got)
	w, h := checkSignaturePNG(t, got.SignatureImageB64, 1000)
	if w != 1000 {
		t.Errorf("signature %d px wide from a %.0f px pad; want 1000", w, padW)
	}
	if want := math.Round(padH * 1000 / padW); math.Abs(float64(h)-want) > 1 {
		t.Errorf("signature %d × %d px from a %.0f × %.0f px pad; want %.0f px high, in proportion", w, h, padW, padH, want)
	}
}

// TestPadDrawsWithAFinger drags a finger across the signature pad of a
// phone: it draws, and the page does not scroll under the finger; Clear
// empties the pad again.
func TestPadDrawsWithAFinger(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeService(t)
	f.add("bind", bindingPage())
	ctx := openPhone(t, f, "/v1-quote/bind")
	if _, err := browser.WaitFor(htmltest.Within(t, ctx, 10*time.Second), browser.RoleHeading, "Sign this quote"); err != nil {
		t.Fatal(err)
	}
	box, err := chromedp.Run(ctx, chromedp.Evaluate[struct{ X, Y, W, H, Scroll float64 }](`(() => {
		const c = document.getElementById("signature");
		c.scrollIntoView({block: "center"});
		const r = c.getBoundingClientRect();
		return {X: r.left, Y: r.top, W: r.width, H: r.height, Scroll: scrollY};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	touch := func(typ input.DispatchTouchEventType, x, y float64) {
		t.Helper()
		p := input.DispatchTouchEventParams{Type: typ, TouchPoints: []*input.TouchPoint{}}
		if typ != input.DispatchTouchEventTypeTouchEnd {
			p.TouchPoints = []*input.TouchPoint{{X: x, Y: y}}
		}
		if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, p); err != nil {
			t.Fatal(err)
		}
	}
	// An upward drag: were the page to scroll with it, it would move down.
	x0, y0 := box.X+box.W*0.2, box.Y+box.H*0.8
	touch(input.DispatchTouchEventTypeTouchStart, x0, y0)
	for i := 1; i <= 20; i++ {
		touch(input.DispatchTouchEventTypeTouchMove, x0+box.W*0.6*float64(i)/20, y0-box.H*0.6*float64(i)/20)
	}
	touch(input.DispatchTouchEventTypeTouchEnd, 0, 0)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Ink    bool
		Scroll float64
	}](`({Ink: document.getElementById("pad").classList.contains("has-ink"), Scroll: scrollY})`))
	if err != nil {
		t.Fatal(err)
	}
	if !state.Ink {
		t.Error("a finger's drag left no ink on the pad")
	}
	if state.Scroll != box.Scroll {
		t.Errorf("the page scrolled from %.0f to %.0f under the finger", box.Scroll, state.Scroll)
	}
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Clear signature"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(htmltest.Within(t, ctx, 5*time.Second), "Sign here"); err != nil {
		t.Error(err)
	}
	if ink, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("pad").classList.contains("has-ink")`)); err != nil || ink {
		t.Errorf("after Clear the pad has ink: %v, %v", ink, err)
	}
}
