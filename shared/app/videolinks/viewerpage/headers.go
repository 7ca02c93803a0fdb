package viewerpage

import "github.com/moveleads/partnerapi/shared/app/htmlpage"

// Headers returns the headers of every viewer page answer (the page and the
// error pages): a Content-Security-Policy that allows the page's own inline
// stylesheet and script (by hash: htmlpage.LocalTimeJS, which writes times
// in the reader's zone), data: images (the empty favicon) and media from
// mediaOrigin only, and nothing else (no connection, no frame, no form); Referrer-Policy no-referrer (the token in the page's URL must
// not travel to the media origin in a Referer header); Cache-Control
// no-store (the page holds short-lived clip addresses, and a link that was
// turned off must not keep working from a cache); X-Robots-Tag noindex;
// X-Content-Type-Options nosniff; a Permissions-Policy that denies the
// camera, microphone, geolocation and payment; and the HTML Content-Type.
//
// mediaOrigin is the scheme, host and optional port of the presigned clip
// addresses ("https://bucket.s3.us-east-1.amazonaws.com"). A value that is
// not exactly such an origin (a path, a query, white space, a quote, a
// comma or a semicolon that would change the policy) is left out, so the
// videos fail to load rather than the policy widen. The error pages pass "":
// they play nothing.
func Headers(mediaOrigin string) map[string]string {
	directives := []string{
		"default-src 'none'",
		"script-src " + loadAssets().ScriptHash,
		"style-src " + loadAssets().StyleHash,
		"img-src data:",
	}
	if o, ok := htmlpage.Origin(mediaOrigin); ok {
		directives = append(directives, "media-src "+o)
	}
	directives = append(directives,
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	)
	return htmlpage.Headers(directives, "camera=(), microphone=(), geolocation=(), payment=()")
}
