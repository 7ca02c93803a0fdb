package viewerpage

import (
	"embed"
	"html/template"
	"sync"

	"github.com/moveleads/partnerapi/shared/htmlpage"
)

//go:embed assets/page.html assets/error.html assets/viewer.css
var assetFS embed.FS

// pageAssets are the page and error page templates and the inline
// stylesheet with its CSP hash, parsed once on first use: lazily, so a
// cold start that answers no page pays nothing.
type pageAssets struct {
	page, errorPage *template.Template
	css             template.CSS // the stylesheet, verbatim: its hash must match
	styleHash       string       // 'sha256-…' of css
}

// loadAssets panics if an embedded asset is missing or does not parse: the
// assets are fixed at build time and the package's tests catch it.
var loadAssets = sync.OnceValue(func() *pageAssets {
	css, err := assetFS.ReadFile("assets/viewer.css")
	if err != nil {
		panic("viewerpage: " + err.Error())
	}
	return &pageAssets{
		page:      template.Must(template.ParseFS(assetFS, "assets/page.html")),
		errorPage: template.Must(template.ParseFS(assetFS, "assets/error.html")),
		css:       template.CSS(css),
		styleHash: htmlpage.Hash(string(css)),
	}
})
