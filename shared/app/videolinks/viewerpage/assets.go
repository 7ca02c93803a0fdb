package viewerpage

import (
	_ "embed"
	"sync"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

// stylesheet is the pages' inline stylesheet, inserted verbatim (its hash
// must match).
//
//go:embed assets/viewer.css
var stylesheet string

// styleHash is the CSP source ('sha256-…') of stylesheet, computed on first
// use: lazily, so a cold start that answers no page pays nothing.
var styleHash = sync.OnceValue(func() string { return htmlpage.Hash(stylesheet) })
