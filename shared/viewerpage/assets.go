package viewerpage

import (
	"embed"
	"sync"

	"github.com/moveleads/partnerapi/shared/htmlpage"
)

//go:embed assets/page.html assets/error.html assets/viewer.css
var assetFS embed.FS

// pageAssets are the page and error page markup (with %%NAME%% placeholders
// that Render and ErrorPage fill in) and the inline stylesheet with its CSP
// hash, built once on first use.
type pageAssets struct {
	page, errorPage string
	css             string
	styleHash       string // 'sha256-…' of css
}

// loadAssets panics if an embedded asset is missing: the assets are fixed at
// build time and the package's tests catch it.
var loadAssets = sync.OnceValue(func() *pageAssets {
	read := func(name string) string {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic("viewerpage: " + err.Error())
		}
		return string(b)
	}
	a := &pageAssets{page: read("page.html"), errorPage: read("error.html"), css: read("viewer.css")}
	a.styleHash = htmlpage.Hash(a.css)
	return a
})
