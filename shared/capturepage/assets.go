package capturepage

import (
	"embed"
	"sync"

	"github.com/moveleads/partnerapi/shared/htmlpage"
)

//go:embed assets/page.html assets/error.html assets/capture.css assets/capture.js
var assetFS embed.FS

// pageAssets are the page and error page markup (with %%NAME%% placeholders
// that Render and ErrorPage fill in) and the inline stylesheet and script
// with their CSP hashes, built once on first use.
type pageAssets struct {
	page, errorPage string
	css, js         string
	styleHash       string // 'sha256-…' of css
	scriptHash      string // 'sha256-…' of js
}

// loadAssets panics if an embedded asset is missing: the assets are fixed at
// build time and the package's tests catch it.
var loadAssets = sync.OnceValue(func() *pageAssets {
	read := func(name string) string {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic("capturepage: " + err.Error())
		}
		return string(b)
	}
	a := &pageAssets{css: read("capture.css"), js: read("capture.js")}
	a.page = read("page.html")
	a.errorPage = read("error.html")
	a.styleHash = htmlpage.Hash(a.css)
	a.scriptHash = htmlpage.Hash(a.js)
	return a
})
