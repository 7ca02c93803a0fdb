package capturepage

import (
	"embed"
	"sync"

	"github.com/a-h/templ"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

//go:embed assets/capture.css assets/capture.js
var assetFS embed.FS

// pageAssets are the inline stylesheet and script with their CSP hashes,
// read once on first use: lazily, so a cold start that answers no page
// pays nothing.
type pageAssets struct {
	css, js    string          // verbatim: their hashes must match
	style      templ.Component // <style>css</style>
	script     templ.Component // <script>js</script>
	styleHash  string          // 'sha256-…' of css
	scriptHash string          // 'sha256-…' of js
}

// loadAssets panics if an embedded asset is missing: the assets are fixed
// at build time and the package's tests catch it.
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
		css: css,
		js:  js,
		// templ.Raw only for these embedded build-time files, never for
		// data: the CSP hashes allow exactly their bytes, and
		// TestAssetsCannotBreakOutOfTheirElements checks neither ends its
		// element early.
		style:      templ.Raw("<style>" + css + "</style>"),
		script:     templ.Raw("<script>" + js + "</script>"),
		styleHash:  htmlpage.Hash(css),
		scriptHash: htmlpage.Hash(js),
	}
})

// inlineStyle is the page's <style> element (page.templ, error.templ).
func inlineStyle() templ.Component { return loadAssets().style }

// inlineScript is the page's <script> element (page.templ).
func inlineScript() templ.Component { return loadAssets().script }
