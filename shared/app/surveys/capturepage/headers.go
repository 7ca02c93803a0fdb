package capturepage

import "github.com/moveleads/partnerapi/shared/app/htmlpage"

// Headers returns the headers of every capture page answer (the page and
// the error pages): a Content-Security-Policy that allows only the page's
// own inline script and style (by hash), media from the camera and blob:
// URLs, and connections to the page's own origin and to uploadOrigin;
// Referrer-Policy no-referrer (the token in the URL must not travel in a
// Referer header); Cache-Control no-store; X-Robots-Tag noindex;
// X-Content-Type-Options nosniff; a Permissions-Policy that lets only the
// page itself use the camera and microphone; and the HTML Content-Type.
//
// uploadOrigin is the scheme, host and optional port of the presigned
// upload URLs ("https://bucket.s3.us-east-1.amazonaws.com"). A value that
// is not such an origin (a path, a query, white space, a quote or a
// semicolon that would change the policy) is left out of the policy, so
// uploads are refused by the browser rather than the policy widened.
func Headers(uploadOrigin string) map[string]string {
	a := loadAssets()
	connect := "'self'"
	if o, ok := htmlpage.Origin(uploadOrigin); ok {
		connect += " " + o
	}
	return htmlpage.Headers([]string{
		"default-src 'none'",
		"script-src " + a.ScriptHash,
		"style-src " + a.StyleHash,
		"img-src 'self' data: blob:",
		"media-src 'self' blob: mediastream:",
		"connect-src " + connect,
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "camera=(self), microphone=(self), geolocation=(), payment=()")
}
