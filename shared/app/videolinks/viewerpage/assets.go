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

// loadAssets are the pages' inline stylesheet and script with their CSP
// hashes, made once on first use. The only script is htmlpage.LocalTimeJS,
// which writes the link's expiry in the reader's time zone.
var loadAssets = sync.OnceValue(func() *htmlpage.Assets { return htmlpage.NewAssets(pageCSS, htmlpage.LocalTimeJS) })
