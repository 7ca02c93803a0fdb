package capturepage

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"sync"
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
	a.styleHash = cspHash(a.css)
	a.scriptHash = cspHash(a.js)
	return a
})

// cspHash is the CSP source expression that allows an inline element whose
// text is exactly s.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
