package quotepage

import (
	"embed"
	"strings"
	"sync"

	"github.com/moveleads/partnerapi/shared/htmlpage"
)

//go:embed assets/page.html assets/error.html assets/done.html assets/closed.html assets/sign.html assets/accept.html assets/quote.css assets/quote.js
var assetFS embed.FS

// Layouts of the page: which sections it holds, by the quote's stage and
// estimate type (see layoutOf).
const (
	layoutSign   = "sign"   // open, binding: the signing form
	layoutAccept = "accept" // open, non-binding: the email form
	layoutDone   = "done"   // accepted or signed: the deposit
	layoutClosed = "closed" // expired, superseded or unknown: nothing to do
)

// pageAssets are the markup skeletons of each layout and of the error page
// (with %%NAME%% placeholders that Render and ErrorPage fill in) and the
// inline stylesheet and script with their CSP hashes, built once on first
// use.
type pageAssets struct {
	layouts    map[string]string
	errorPage  string
	css, js    string
	styleHash  string // 'sha256-…' of css
	scriptHash string // 'sha256-…' of js
}

// loadAssets panics if an embedded asset is missing: the assets are fixed at
// build time and the package's tests catch it.
//
// A layout is page.html with its sections put in place before any value
// is: the sections are assets, so the one pass that fills values in never
// searches a value for placeholders.
var loadAssets = sync.OnceValue(func() *pageAssets {
	read := func(name string) string {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic("quotepage: " + err.Error())
		}
		return string(b)
	}
	a := &pageAssets{css: read("quote.css"), js: read("quote.js"), errorPage: read("error.html")}
	page, done, closed := read("page.html"), read("done.html"), read("closed.html")
	layout := func(top, form string) string {
		return strings.NewReplacer("%%TOP%%", top, "%%FORM%%", form).Replace(page)
	}
	a.layouts = map[string]string{
		layoutSign:   layout(done, read("sign.html")),
		layoutAccept: layout(done, read("accept.html")),
		layoutDone:   layout(done, ""),
		layoutClosed: layout(closed, ""),
	}
	a.styleHash = htmlpage.Hash(a.css)
	a.scriptHash = htmlpage.Hash(a.js)
	return a
})
