package capturepage

import (
	"embed"
	"html/template"
	"sync"

	"github.com/moveleads/partnerapi/shared/htmlpage"
)

//go:embed assets/page.html assets/error.html assets/capture.css assets/capture.js
var assetFS embed.FS

// pageAssets are the page and error page templates and the inline
// stylesheet and script with their CSP hashes, parsed once on first use:
// lazily, so a cold start that answers no page pays nothing.
type pageAssets struct {
	page, errorPage *template.Template
	css             template.CSS // verbatim: its hash must match
	js              template.JS  // verbatim: its hash must match
	styleHash       string       // 'sha256-…' of css
	scriptHash      string       // 'sha256-…' of js
}

// loadAssets panics if an embedded asset is missing or does not parse: the
// assets are fixed at build time and the package's tests catch it.
var loadAssets = sync.OnceValue(func() *pageAssets {
	read := func(name string) string {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic("capturepage: " + err.Error())
		}
		return string(b)
	}
	css, js := read("capture.css"), read("capture.js")
	return &pageAssets{
		page:       template.Must(template.ParseFS(assetFS, "assets/page.html")),
		errorPage:  template.Must(template.ParseFS(assetFS, "assets/error.html")),
		css:        template.CSS(css),
		js:         template.JS(js),
		styleHash:  htmlpage.Hash(css),
		scriptHash: htmlpage.Hash(js),
	}
})
