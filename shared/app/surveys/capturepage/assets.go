package capturepage

import (
	_ "embed"
	"sync"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

// The page's own stylesheet (after htmlpage's base) and script.
var (
	//go:embed assets/capture.css
	pageCSS string
	//go:embed assets/capture.js
	pageJS string
)

// loadAssets are the page's inline stylesheet and script with their CSP
// hashes, made once on first use (TestAssetsCannotBreakOutOfTheirElements
// checks neither ends its element early).
var loadAssets = sync.OnceValue(func() *htmlpage.Assets { return htmlpage.NewAssets(pageCSS, htmlpage.LocalTimeJS+pageJS) })
