package dashboardapp

import (
	"bytes"
	"context"
	_ "embed"
	"sort"
	"strings"

	"github.com/a-h/templ"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
)

//go:embed assets/dashboard.js
var scriptJS string

//go:embed assets/dashboard.css
var styleCSS string

// Headers are every dashboard page's: a CSP that allows only the
// dashboard's own script and stylesheet (no inline code), same-origin
// fetches and forms, and no framing. Referrer-Policy is same-origin, not
// the token pages' no-referrer: under no-referrer a browser sends
// "Origin: null" with a form's POST, which the Origin check refuses; no
// referrer leaves the dashboard's origin either way.
func Headers() map[string]string {
	return map[string]string{
		"Content-Type": "text/html; charset=utf-8",
		"Content-Security-Policy": strings.Join([]string{
			"default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src data:",
			"connect-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
		}, "; "),
		"Referrer-Policy":        "same-origin",
		"Cache-Control":          "no-store",
		"X-Robots-Tag":           "noindex",
		"X-Content-Type-Options": "nosniff",
		"X-Frame-Options":        "DENY",
		"Permissions-Policy":     "camera=(), microphone=(), geolocation=(), payment=()",
	}
}

// page renders c. The pages are templ components, not html/template:
// its executor links reflect.Value.MethodByName, which keeps every
// exported method of every linked type (the AWS SDK's too) in the binary.
func page(status int, c templ.Component) (pipeline.Document, error) {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		return pipeline.Document{}, err
	}
	return pipeline.Document{Status: status, Header: Headers(), Body: b.Bytes()}, nil
}

// shell is what every signed-in page's frame shows.
type shell struct {
	Title, CSRF, Email, Role string
	Admin, Live              bool
}

func newShell(title string, v *pipeline.Viewer) shell {
	return shell{Title: title, CSRF: v.CSRF(), Email: v.Person.Email, Role: string(v.Person.Role),
		Admin: v.Person.Role == "admin", Live: v.Session.Mode == "live"}
}

// mode is the mode shown, "live" or "test"; other is the one the switch
// goes to.
func (s shell) mode() string {
	if s.Live {
		return "live"
	}
	return "test"
}

func (s shell) other() string {
	if s.Live {
		return "test"
	}
	return "live"
}

func (s shell) modeTitle() string {
	if s.Live {
		return "Live"
	}
	return "Test"
}

func (s shell) modeLabel() string { return s.modeTitle() + " data" }

func (s shell) liveClass() string {
	if s.Live {
		return " live"
	}
	return ""
}

// invitationView is the invitation page.
type invitationView struct{ Email, Role, Expires, Path string }

// sortedKeys are m's keys in order, as html/template ranged over a map.
func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// asset serves the dashboard's script and stylesheet.
func asset(name string) (pipeline.Document, bool) {
	h := map[string]string{"Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff"}
	switch name {
	case "dashboard.js":
		h["Content-Type"] = "text/javascript; charset=utf-8"
		return pipeline.Document{Status: 200, Header: h, Body: []byte(scriptJS)}, true
	case "dashboard.css":
		h["Content-Type"] = "text/css; charset=utf-8"
		return pipeline.Document{Status: 200, Header: h, Body: []byte(styleCSS)}, true
	}
	return pipeline.Document{}, false
}
