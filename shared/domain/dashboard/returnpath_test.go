package dashboard

import (
	"net/url"
	"strings"
	"testing"
)

func TestReturnPath(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/dashboard/developers/keys", "/dashboard/developers/keys"},
		{"/dashboard/developers/webhooks/we_123", "/dashboard/developers/webhooks/we_123"},
		{"/dashboard/developers/events?type=lead.created&cursor=abc", "/dashboard/developers/events?type=lead.created&cursor=abc"},
		{"/dashboard", "/dashboard"},
		{"", Home},
		{"https://evil.example/dashboard", Home},
		{"//evil.example/dashboard", Home},
		{"/\\evil.example", Home},
		{"/dashboard\\..\\x", Home},
		{"/dashboardx", Home},
		{"/dashboard/../v1/leads", Home},
		{"/dashboard/./keys", Home},
		{"/dashboard//evil.example", Home},
		{"/dashboard/keys/", Home},
		{"/dashboard/keys#frag", Home},
		{"/dashboard/keys\r\nSet-Cookie: x=1", Home},
		{"/dashboard/\u00e9", Home},
		{"javascript:alert(1)", Home},
		{"/dashboard?" + strings.Repeat("a", maxReturnPath), Home},
	} {
		if got := ReturnPath(tt.in); got != tt.want {
			t.Errorf("ReturnPath(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// A return path, resolved against the dashboard's origin as a browser
// resolves a Location, stays on that origin and under /dashboard.
func FuzzReturnPath(f *testing.F) {
	for _, s := range []string{"/dashboard/developers/keys", "//evil.example", "/dashboard/../x", "/dashboard?a=b", "/dashboard/%2e%2e/x", "/dashboard/\t/x"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://dash.example/dashboard/leads")
	f.Fuzz(func(t *testing.T, raw string) {
		got := ReturnPath(raw)
		if got != Home && got != raw {
			t.Fatalf("ReturnPath(%q) = %q: neither the input nor Home", raw, got)
		}
		u, err := base.Parse(got)
		if err != nil {
			t.Fatalf("ReturnPath(%q) = %q does not parse: %v", raw, got, err)
		}
		if u.Scheme != base.Scheme || u.Host != base.Host || !(u.Path == Home || strings.HasPrefix(u.Path, Home+"/")) {
			t.Errorf("ReturnPath(%q) = %q leads to %s", raw, got, u)
		}
	})
}
