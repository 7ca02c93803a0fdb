package quotepage

import (
	_ "embed"
	"sync"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

// Layouts of the page: which sections it holds, by the quote's stage and
// estimate type (see layoutOf).
const (
	layoutSign   = "sign"   // open, binding: the signing form
	layoutAccept = "accept" // open, non-binding: the email form
	layoutDone   = "done"   // accepted or signed: the deposit
	layoutClosed = "closed" // expired, superseded or unknown: nothing to do
)

// The page's own stylesheet (after htmlpage's base) and script (after
// htmlpage.LocalTimeJS, which shows its times in the reader's zone).
var (
	//go:embed assets/quote.css
	pageCSS string
	//go:embed assets/quote.js
	pageJS string
)

// loadAssets are the page's inline stylesheet and script with their CSP
// hashes (the markup is the templ components of the .templ files), made
// once on first use.
var loadAssets = sync.OnceValue(func() *htmlpage.Assets { return htmlpage.NewAssets(pageCSS, htmlpage.LocalTimeJS+pageJS) })
