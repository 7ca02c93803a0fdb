// Package htmlpage holds what the service's HTML pages (the capture page,
// shared/app/surveys/capturepage, and the viewer page, shared/app/videolinks/viewerpage) share: the
// CSP origin check and CSP hashes of inline elements.
//
// The pages are templ components, which escape every value for its
// context; every inline <style> and <script> is allowed by its Hash, never
// by 'unsafe-inline'. The package does no I/O.
// Its tests' helpers, for the pages' tests, are in htmlpage/htmltest.
package htmlpage

import (
	"crypto/sha256"
	"encoding/base64"
)

// Hash is the CSP source expression ("'sha256-…'", quotes included) that
// allows an inline <style> or <script> whose text is exactly s.
func Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
