// Package screenshots makes the pages' screenshots in docs/screenshots,
// each page state at a phone's and a laptop's size, against the real stack
// (apitest: DynamoDB Local, MinIO) in headless Chromium: `make
// screenshots` runs its test with SCREENSHOTS_WRITE=1. Without it the
// test only checks that Shots covers every page package; scripts/docgen's
// tests check that docs/screenshots holds exactly Files and that docs
// show each.
package screenshots

// Shot is one page state.
type Shot struct {
	// Page is the page's package under shared/app (e.g. quotepage).
	Page string
	// Name names the file: Name-phone.png and Name-desktop.png.
	Name string
}

// Shots are the states shot, in the order the test makes them: every
// state a person sees that issue 26 names (TestShotsCoverEveryState).
var Shots = []Shot{
	{"capturepage", "capture-start"},
	{"capturepage", "capture-uploaded"},
	{"capturepage", "capture-rejected"},
	{"capturepage", "capture-counting"},
	{"capturepage", "capture-finish-warning"},
	{"capturepage", "capture-thanks"},
	{"viewerpage", "viewer"},
	{"viewerpage", "viewer-expired"},
	{"quotepage", "quote-open"},
	{"quotepage", "quote-errors"},
	{"quotepage", "quote-signed"},
	{"quotepage", "quote-signed-copy"},
	{CheckoutPage, "dev-checkout"},
}

// CheckoutPage names make dev's test checkout page (shared/local/stripelocal),
// the one page a developer sees outside shared/app.
const CheckoutPage = "stripelocal"

// Sizes are the viewports, by file suffix: a phone (390×844) and a
// laptop (1280×800).
var Sizes = []struct {
	Name          string
	Width, Height int64
}{{"phone", 390, 844}, {"desktop", 1280, 800}}

// Dir is where the files go, relative to the repository root.
const Dir = "docs/screenshots"

// Files are the files of Shots at Sizes, relative to Dir.
func Files() []string {
	var out []string
	for _, s := range Shots {
		for _, z := range Sizes {
			out = append(out, s.Name+"-"+z.Name+".png")
		}
	}
	return out
}
