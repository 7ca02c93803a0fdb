package quotepage

import "github.com/moveleads/partnerapi/shared/app/htmlpage"

// Headers returns the headers of every quote page answer (the page and the
// error pages): a Content-Security-Policy that allows only the page's own
// inline script and style (by hash), data: images (the empty favicon) and
// connections to the page's own origin (its accept and deposit calls), and
// nothing else: no frame, no font, no form submission (the script sends
// the forms as JSON); Referrer-Policy no-referrer (the token in the URL
// must not travel to the payment page in a Referer header); Cache-Control
// no-store (the page shows the quote's current stage); X-Robots-Tag
// noindex; X-Content-Type-Options nosniff; a Permissions-Policy that denies
// the camera, microphone, geolocation and the Payment Request API (payment
// happens on the checkout page, after a navigation); and the HTML
// Content-Type.
func Headers() map[string]string {
	a := loadAssets()
	return htmlpage.Headers([]string{
		"default-src 'none'",
		"script-src " + a.ScriptHash,
		"style-src " + a.StyleHash,
		"img-src data:",
		"connect-src 'self'",
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "camera=(), microphone=(), geolocation=(), payment=()")
}
