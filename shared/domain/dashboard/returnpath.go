package dashboard

import (
	"net/url"
	"path"
	"strings"
)

// Home is the dashboard's first page, where a step that knows no better
// place sends the person.
const Home = "/dashboard"

// maxReturnPath bounds a return path; a dashboard page's is far shorter.
const maxReturnPath = 1024

// ReturnPath is where a step the page asked for (a reauthentication)
// sends the person back to: raw when it is the path of a dashboard page
// on this origin, with an optional query, else Home. Anything that could
// leave the origin or the dashboard (a scheme, a host, "//", a backslash,
// a control or non-ASCII character, a dot segment, a fragment) is Home:
// the redirect is never an open one.
func ReturnPath(raw string) string {
	if len(raw) > maxReturnPath || !(raw == Home || strings.HasPrefix(raw, Home+"/") || strings.HasPrefix(raw, Home+"?")) {
		return Home
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f || c == '\\' || c == '#' {
			return Home
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		strings.Contains(u.Path, "//") || path.Clean(u.Path) != u.Path {
		return Home
	}
	return raw
}
