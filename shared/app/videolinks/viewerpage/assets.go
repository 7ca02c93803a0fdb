package viewerpage

import (
	_ "embed"
	"sync"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

// pageCSS is the pages' own stylesheet, after htmlpage's base.
//
//go:embed assets/viewer.css
var pageCSS string

// loadAssets are the pages' inline stylesheet (they run no script) with
// its CSP hash, made once on first use.
var loadAssets = sync.OnceValue(func() *htmlpage.Assets { return htmlpage.NewAssets(pageCSS, "") })
