package quotepage

import (
	"embed"
	"sync"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

//go:embed assets/quote.css assets/quote.js
var assetFS embed.FS

// Layouts of the page: which sections it holds, by the quote's stage and
// estimate type (see layoutOf).
const (
	layoutSign   = "sign"   // open, binding: the signing form
	layoutAccept = "accept" // open, non-binding: the email form
	layoutDone   = "done"   // accepted or signed: the deposit
	layoutClosed = "closed" // expired, superseded or unknown: nothing to do
)

// pageAssets are the page's inline stylesheet and script with their CSP
// hashes (the markup is the templ components of the .templ files), read
// once on first use: lazily, so a cold start that answers no page pays
// nothing.
type pageAssets struct {
	css        string // verbatim: its hash must match
	js         string // verbatim: its hash must match
	styleHash  string // 'sha256-…' of css
	scriptHash string // 'sha256-…' of js
}

// loadAssets panics if an embedded asset is missing: the assets are fixed
// at build time and the package's tests catch it.
var loadAssets = sync.OnceValue(func() *pageAssets {
	read := func(name string) string {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic("quotepage: " + err.Error())
		}
		return string(b)
	}
	css, js := read("quote.css"), read("quote.js")
	return &pageAssets{
		css:        css,
		js:         js,
		styleHash:  htmlpage.Hash(css),
		scriptHash: htmlpage.Hash(js),
	}
})
