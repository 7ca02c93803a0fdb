package dashboard

import (
	"net/url"
	"strings"

	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

// CookieName is the session cookie: __Host- makes the browser keep it to
// this origin, Secure and Path=/ only.
const CookieName = "__Host-dashboard_session"

// CSRFField is the form field (and CSRFHeader the header of a script's
// call) that carries the CSRF token of a state-changing request.
const (
	CSRFField  = "csrf_token"
	CSRFHeader = "X-CSRF-Token"
)

// ParseSessionCookie returns the session token in the Cookie headers
// given (as a browser sends them: "a=1; b=2", possibly several) and its
// hash. ok is false when there is none, or more than one, or its value is
// not a well-formed token.
func ParseSessionCookie(headers []string) (token, hash string, ok bool) {
	found := 0
	for _, h := range headers {
		for part := range strings.SplitSeq(h, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
			if name == CookieName {
				found++
				token = value
			}
		}
	}
	if found != 1 {
		return "", "", false
	}
	hash, err := linktoken.Parse(token)
	if err != nil {
		return "", "", false
	}
	return token, hash, true
}

// SessionCookie is the Set-Cookie value that hands a browser token.
func SessionCookie(token string) string {
	return CookieName + "=" + token + "; Path=/; Secure; HttpOnly; SameSite=Lax"
}

// ClearCookie is the Set-Cookie value that removes the session cookie.
func ClearCookie() string {
	return CookieName + "=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0"
}

// maxFormFields bounds what ParseForm reads: the dashboard's forms have a
// handful of fields.
const maxFormFields = 32

// ParseForm parses an application/x-www-form-urlencoded body strictly: a
// field given twice, a bad escape or more than 32 fields is an error
// (false).
func ParseForm(body []byte) (map[string]string, bool) {
	out := map[string]string{}
	if len(body) == 0 {
		return out, true
	}
	for part := range strings.SplitSeq(string(body), "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			return nil, false
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, false
		}
		if _, dup := out[name]; dup || len(out) >= maxFormFields {
			return nil, false
		}
		out[name] = val
	}
	return out, true
}

// SiteURL is the dashboard's base URL for the public base URL base: the
// same, except that a loopback address (make dev's http://127.0.0.1:PORT)
// becomes localhost, since a passkey's relying party must be a domain
// name, never an IP address (WebAuthn), and browsers treat
// http://localhost as secure. Every dashboard link, the passkeys' relying
// party and the Origin a state change must carry use it.
func SiteURL(base string) string {
	u, err := url.Parse(strings.TrimSuffix(base, "/"))
	if err != nil {
		return base
	}
	if h, port := u.Hostname(), u.Port(); h == "127.0.0.1" || h == "::1" {
		u.Host = "localhost"
		if port != "" {
			u.Host += ":" + port
		}
	}
	return u.String()
}
