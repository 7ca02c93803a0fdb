package screenshots

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/repo"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

func TestMain(m *testing.M) { apitest.MainS3Stripe(m) }

// WriteVar, set to 1, makes TestScreenshots write docs/screenshots.
const WriteVar = "SCREENSHOTS_WRITE"

// TestShotsCoverEveryPage: each page package under shared/app (but the
// shared layout, htmlpage) has a state in Shots, so a new page cannot
// miss its screenshots.
func TestShotsCoverEveryPage(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	err = filepath.WalkDir(filepath.Join(root, "shared", "app"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.HasSuffix(d.Name(), "page") && d.Name() != "htmlpage" {
			pages = append(pages, d.Name())
		}
		return err
	})
	if err != nil || len(pages) < 3 {
		t.Fatalf("page packages %v, %v; want capture, viewer and quote pages at least", pages, err)
	}
	for _, p := range pages {
		if !slices.ContainsFunc(Shots, func(s Shot) bool { return s.Page == p }) {
			t.Errorf("page package %s has no screenshot in Shots", p)
		}
	}
}

// issueStates are the states issue 26 asks a screenshot of, each page's
// at both sizes: a person sees each, so none may go unlooked-at.
var issueStates = map[string]string{
	"capture-start":          "capture page, as a new link opens",
	"capture-uploaded":       "capture page with clips sent and checked",
	"capture-rejected":       "capture page naming a clip that could not be used, and why",
	"capture-counting":       "capture page's counting step, counts entered and the rest shown on request",
	"capture-finish-warning": "capture page warning before finishing with nothing usable",
	"capture-thanks":         "capture page's thank-you, saying what happens next",
	"viewer":                 "video viewer, playing",
	"viewer-expired":         "video viewer, link expired",
	"quote-open":             "quote page, open",
	"quote-errors":           "quote page, signing refused with each field's error",
	"quote-signed":           "quote page, signed",
	"quote-signed-copy":      "quote page's signed copy, printed",
	"dev-checkout":           "make dev's test checkout page",
}

// TestShotsCoverEveryState: Shots makes every state issueStates names
// (a page's rows stay with it: capture-… on capturepage, …).
func TestShotsCoverEveryState(t *testing.T) {
	for name, what := range issueStates {
		if !slices.ContainsFunc(Shots, func(s Shot) bool { return s.Name == name }) {
			t.Errorf("no screenshot %s (%s) in Shots", name, what)
		}
	}
}

// TestScreenshots writes docs/screenshots (make screenshots); make test
// skips it, so that it never rewrites them.
func TestScreenshots(t *testing.T) {
	if os.Getenv(WriteVar) != "1" {
		t.Skip("writes docs/screenshots: make screenshots")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	urls := pageStates(t)
	log := htmltest.NewConsole(t)
	ctx, cancel, err := browser.Start(context.Background(), browser.Logf(log.Logf))
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	for _, s := range Shots {
		for _, z := range Sizes {
			emulate := chromedp.EmulateViewport(z.Width, z.Height)
			if z.Name == "phone" {
				emulate = browser.Phone()
			}
			media := ""
			if strings.HasSuffix(s.Name, "-copy") {
				media = "print"
			}
			if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: media}); err != nil {
				t.Fatal(err)
			}
			u := urls[s.Name+"/"+z.Name]
			if u == "" {
				u = urls[s.Name]
			}
			step := htmltest.Within(t, ctx, 60*time.Second)
			if err := chromedp.Do(step, emulate, chromedp.Navigate(u)); err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			if act := actions[s.Name]; act != nil {
				if err := act(step); err != nil {
					t.Fatalf("%s at %s: %v", s.Name, z.Name, err)
				}
			}
			path := filepath.Join(root, Dir, s.Name+"-"+z.Name+".png")
			if err := htmltest.ScreenshotPage(ctx, path); err != nil {
				t.Fatal(err)
			}
			recompress(t, path)
		}
	}
}

// actions bring a page, once loaded, to the state its shot shows.
var actions = map[string]func(ctx context.Context) error{
	"capture-uploaded": func(ctx context.Context) error { return browser.WaitText(ctx, "Checked: we can use this clip.") },
	"capture-rejected": func(ctx context.Context) error { return browser.WaitText(ctx, "Could not be used.") },
	"capture-counting": func(ctx context.Context) error {
		if err := browser.Fill(ctx, browser.RoleSpinbutton, "Sofa, 3 seats", "1"); err != nil {
			return err
		}
		if err := browser.Fill(ctx, browser.RoleSpinbutton, "TV stand", "1"); err != nil {
			return err
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("more-items").click(), true`)); err != nil {
			return err
		}
		// Until the counts are saved the page asks before it is left
		// (beforeunload), and the next shot's navigation would wait on
		// that prompt until its deadline.
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("save-status").textContent === "Saved"`, chromedp.WithPollingInterval(50*time.Millisecond)))
		return err
	},
	"capture-finish-warning": func(ctx context.Context) error {
		if err := browser.Click(ctx, browser.RoleButton, "Finish survey"); err != nil {
			return err
		}
		return browser.WaitText(ctx, "If you finish now")
	},
	"capture-thanks": func(ctx context.Context) error {
		if err := browser.WaitText(ctx, "Checked: we can use this clip."); err != nil {
			return err
		}
		if err := browser.Click(ctx, browser.RoleButton, "Finish survey"); err != nil {
			return err
		}
		return browser.WaitText(ctx, "What happens next")
	},
	"quote-errors": func(ctx context.Context) error {
		if err := browser.Click(ctx, browser.RoleButton, "Sign and accept quote"); err != nil {
			return err
		}
		return browser.WaitText(ctx, "Tick the box to agree to sign electronically.")
	},
}

// recompress re-encodes a PNG at the best compression (Chromium's are
// about a third larger).
func recompress(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, img); err != nil {
		t.Fatal(err)
	}
	if out.Len() < len(b) {
		b = out.Bytes()
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pageStates makes each state of Shots on a fresh stack and returns its
// page's URL by name.
func pageStates(t *testing.T) map[string]string {
	t.Helper()
	env := apitest.New(t, apitest.Options{S3: true})
	pid := env.NewPartner(t, "Acme Movers")
	key, _ := env.NewKey(t, pid, auth.Test)
	ctx := context.Background()
	if _, err := env.Store.SetBeta(ctx, pid, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.SetDepositSettings(ctx, pid, partner.DepositSettings{
		CarrierLegalName: "Acme Moving LLC", USDOTNumber: "1234567", StripeAccount: "acct_1Screenshots",
	}); err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string, field string) string {
		m := apitest.Want(t, env.Do(t, method, path, key, body), 200, "")
		v, _ := m[field].(string)
		return v
	}
	page := func(link string) string {
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		return env.Server.URL + u.Path
	}
	lead := `{"customer_name":"Ada Lovelace","email":"ada@example.com","from_address":"1 Main St, New York, NY 10001",` +
		`"to_address":"9 Oak Ave, Boston, MA 02108","home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano"]}`
	fresh := do("POST", "/v1/leads", lead, "lead_id")
	urls := map[string]string{"capture-start": page(do("POST", "/v1/leads/"+fresh+"/video-survey", "", "capture_url"))}

	for _, z := range Sizes {
		// Counting saves and finishing closes a survey: one of each per size.
		urls["capture-counting/"+z.Name] = page(do("POST", "/v1/leads/"+do("POST", "/v1/leads", lead, "lead_id")+"/video-survey", "", "capture_url"))
		urls["capture-thanks/"+z.Name] = env.Server.URL + env.PlayableSurvey(t, key, apitest.MP4Clip).CapturePath
	}
	urls["capture-finish-warning"] = urls["capture-start"]

	sv := env.PlayableSurvey(t, key, apitest.MP4Clip, apitest.WebMClip)
	urls["capture-uploaded"] = env.Server.URL + sv.CapturePath
	urls["capture-rejected"] = env.Server.URL + env.PlayableSurvey(t, key, apitest.MP4Clip,
		apitest.Clip{Room: "Bedroom", File: "not-video.mp4", ContentType: "video/mp4"}).CapturePath
	urls["viewer"] = page(do("POST", "/v1/surveys/"+sv.SurveyID+"/video-access", `{"ttl_hours":24}`, "view_url"))
	urls["viewer-expired"] = page(do("POST", "/v1/surveys/"+sv.SurveyID+"/video-access", `{"ttl_hours":1}`, "view_url"))

	// The quotes are of surveyed leads, with services and the cost of full
	// value protection: the page shows what the customer signs for.
	quote := `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14,` +
		`"services":["Packing of fragile items","Disassembly and reassembly of the bed"],"full_value_protection_cents":45000}`
	quoted := surveyedLead(t, env, key, lead)
	urls["quote-open"] = page(do("POST", "/v1/leads/"+quoted+"/quote", quote, "quote_url"))
	signed := surveyedLead(t, env, key, lead)
	urls["quote-signed"] = page(do("POST", "/v1/leads/"+signed+"/quote", quote, "quote_url"))
	sig, err := os.ReadFile(filepath.Join("..", "..", "docs", "signature-example.png"))
	if err != nil {
		t.Fatal(err)
	}
	do("POST", "/v1/leads/"+signed+"/accept", `{"signer_name":"Ada Lovelace","signer_email":"ada@example.com","signature_image_b64":"`+
		base64.StdEncoding.EncodeToString(sig)+`","liability_election":"full_value_protection","esign_consent_checked":true}`, "status")
	urls["quote-signed-copy"] = urls["quote-signed"]
	urls["quote-errors"] = urls["quote-open"]
	urls["dev-checkout"] = devCheckout(t, env, pid)
	// The hour-long link expires; the quotes' 14 days do not.
	env.Clock.Advance(2 * time.Hour)
	return urls
}

// devCheckout serves make dev's test checkout page (stripelocal) in front
// of the binary's stripe-mock and returns the page of a $250 deposit's
// Checkout Session of partner pid.
func devCheckout(t *testing.T, env *apitest.Env, pid string) string {
	t.Helper()
	mux := http.NewServeMux()
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	co, err := stripelocal.NewCheckout(os.Getenv(stripepay.EnvAPIURL), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle(stripelocal.CheckoutPath, co.Page(env.Store, "whsec_screenshots", slog.New(slog.DiscardHandler)))
	api := httptest.NewServer(co.API())
	t.Cleanup(api.Close)
	client, err := stripepay.New(stripepay.Config{SecretKey: stripelocal.SecretKey, APIURL: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.CreateCheckout(context.Background(), stripepay.CheckoutRequest{
		ConnectedAccount: "acct_1Screenshots", DepositID: "dep_screenshots", LeadID: "lead_screenshots", PartnerID: pid,
		AmountCents: 25000, Currency: "usd", ProductName: "Moving date deposit", Description: "Acme Movers holds your moving date.",
		ExpiresAt: time.Now().Add(time.Hour), SuccessURL: site.URL + "/v1-quote/tok?checkout=done", CancelURL: site.URL + "/v1-quote/tok",
		IdempotencyKey: "deposit-screenshots",
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.URL
}

// surveyedLead makes a lead of body whose video survey is inventory_ready
// with a clip of the Living room and a counted checklist; it returns the
// lead's id.
func surveyedLead(t *testing.T, env *apitest.Env, key, body string) string {
	t.Helper()
	id, _ := apitest.Want(t, env.Do(t, "POST", "/v1/leads", key, body), 200, "")["lead_id"].(string)
	sv := env.PlayableSurveyOf(t, key, id, apitest.MP4Clip)
	apitest.Want(t, env.Do(t, "PUT", sv.CapturePath+"/checklist", "", `{"rooms":[`+
		`{"name":"Living room","items":[{"key":"sofa_3_seat","count":1},{"key":"tv_medium","count":1},{"key":"bookcase","count":2}]},`+
		`{"name":"Bedroom","items":[{"key":"bed_queen","count":1},{"key":"dresser","count":1},{"key":"nightstand","count":2}]},`+
		`{"name":"Kitchen","items":[{"key":"box_medium","count":10}]}]}`), 200, "")
	apitest.Want(t, env.Do(t, "POST", sv.CapturePath+"/finish", "", `{}`), 200, "")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		l := apitest.Want(t, env.Do(t, "GET", "/v1/leads/"+id, key, ""), 200, "")
		if sv, _ := l["survey"].(map[string]any); sv["status"] == "inventory_ready" {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("lead %s's survey is not inventory_ready after 30 s: %v", id, l["survey"])
		}
	}
}
