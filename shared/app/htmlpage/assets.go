package htmlpage

import (
	_ "embed"
	"strings"
)

// baseCSS is the stylesheet every page starts with: colours, box model,
// body text; a page's own stylesheet follows it.
//
//go:embed assets/base.css
var baseCSS string

// Assets are a page's inline stylesheet and script, verbatim, with the CSP
// sources ('sha256-…') that allow exactly them.
type Assets struct {
	CSS, JS               string
	StyleHash, ScriptHash string // ScriptHash is "" when JS is
}

// NewAssets returns the assets of a page whose own stylesheet is css
// (after the base stylesheet) and whose script is js ("" for none). Pages
// build them once, on first use, so a cold start that answers no page
// pays nothing.
func NewAssets(css, js string) *Assets {
	a := &Assets{CSS: baseCSS + css, JS: js}
	a.StyleHash = Hash(a.CSS)
	if js != "" {
		a.ScriptHash = Hash(js)
	}
	return a
}

// Headers returns the headers of a page answer: the Content-Security-Policy
// of directives (joined by "; "), the given Permissions-Policy, and what
// every page sends: Referrer-Policy no-referrer (a token in the URL must
// not travel in a Referer header), Cache-Control no-store, X-Robots-Tag
// noindex, X-Content-Type-Options nosniff and the HTML Content-Type.
func Headers(directives []string, permissions string) map[string]string {
	return map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": strings.Join(directives, "; "),
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-store",
		"X-Robots-Tag":            "noindex",
		"X-Content-Type-Options":  "nosniff",
		"Permissions-Policy":      permissions,
	}
}
