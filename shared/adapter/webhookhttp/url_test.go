package webhookhttp

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		live      bool
		wantError string // "" when accepted; else a fragment of the message
	}{
		{"https live", "https://hooks.example.com/moveleads", true, ""},
		{"https test", "https://hooks.example.com/moveleads", false, ""},
		{"http test", "http://hooks.example.com/moveleads", false, ""},
		{"port and query", "https://hooks.example.com:8443/in?token=abc", true, ""},
		{"upper-case scheme", "HTTPS://hooks.example.com/", true, ""},
		{"IP literal", "http://10.0.0.1/", false, ""},        // refused when connecting, not here
		{"IPv6 literal", "https://[2001:db8::1]/", true, ""}, // likewise
		{"international name", "https://bücher.example/", true, ""},

		{"http live", "http://hooks.example.com/", true, "live-mode endpoints must use https"},
		{"empty", "", false, "absolute http or https"},
		{"relative", "/hooks", false, "absolute http or https"},
		{"no scheme", "hooks.example.com/in", false, "absolute http or https"},
		{"ftp", "ftp://hooks.example.com/", false, "absolute http or https"},
		{"javascript", "javascript:alert(1)", false, "absolute http or https"},
		{"opaque", "https:hooks.example.com", true, "no host"},
		{"no host", "https:///in", true, "no host"},
		{"port only", "https://:443/", true, "no host"},
		{"userinfo", "https://user:pass@hooks.example.com/", true, "user name or password"},
		{"user only", "https://user@hooks.example.com/", true, "user name or password"},
		{"fragment", "https://hooks.example.com/#frag", true, "fragment"},
		{"empty fragment", "https://hooks.example.com/#", true, "fragment"},
		{"zone", "http://[fe80::1%25eth0]/", false, "IPv6 zone"},
		{"port zero", "https://hooks.example.com:0/", true, "port"},
		{"port too large", "https://hooks.example.com:65536/", true, "port"},
		{"empty port", "https://hooks.example.com:/", true, "port"},
		{"bad port", "https://hooks.example.com:https/", true, "cannot be parsed"},
		{"space in host", "https://hooks example.com/", true, "cannot be parsed"},
		{"control character", "https://hooks.example.com/\n", true, "cannot be parsed"},
		{"too long", "https://hooks.example.com/" + strings.Repeat("a", maxURLLength), true, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckURL(tt.raw, tt.live)
			switch {
			case tt.wantError == "" && err != nil:
				t.Errorf("CheckURL(%q, live=%t) = %v; want nil", tt.raw, tt.live, err)
			case tt.wantError != "" && err == nil:
				t.Errorf("CheckURL(%q, live=%t) = nil; want an error saying %q", tt.raw, tt.live, tt.wantError)
			case err != nil && !errors.Is(err, ErrInvalidURL):
				t.Errorf("CheckURL(%q) = %v; want it to wrap ErrInvalidURL", tt.raw, err)
			case err != nil && !strings.Contains(err.Error(), tt.wantError):
				t.Errorf("CheckURL(%q) = %q; want it to say %q", tt.raw, err, tt.wantError)
			}
		})
	}
}

// FuzzCheckURL checks that CheckURL never panics, that every error wraps
// ErrInvalidURL, and that an accepted URL is one Post can send and has
// the promised shape.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://hooks.example.com/in", "http://10.0.0.1:8080/a?b=c", "https://[::1]:443/",
		"https://u:p@h/", "https://h/#f", "https:h", "//h/p", "http://[fe80::1%25eth0]/",
		"https://h:0/", "HTTP://H/", "http://%41/", "https://h:/", "http://[::ffff:127.0.0.1]/",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, live bool) {
		err := CheckURL(raw, live)
		if err != nil {
			if !errors.Is(err, ErrInvalidURL) {
				t.Errorf("CheckURL(%q) = %v; want it to wrap ErrInvalidURL", raw, err)
			}
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil {
			t.Fatalf("CheckURL(%q) accepted a URL url.Parse rejects: %v", raw, perr)
		}
		switch {
		case !u.IsAbs() || u.Opaque != "":
			t.Errorf("CheckURL(%q) accepted a URL that is not absolute", raw)
		case u.Scheme != "http" && u.Scheme != "https":
			t.Errorf("CheckURL(%q) accepted scheme %q", raw, u.Scheme)
		case live && u.Scheme != "https":
			t.Errorf("CheckURL(%q, live) accepted scheme %q", raw, u.Scheme)
		case u.Hostname() == "":
			t.Errorf("CheckURL(%q) accepted a URL without a host", raw)
		case u.User != nil:
			t.Errorf("CheckURL(%q) accepted userinfo", raw)
		case u.Fragment != "" || strings.Contains(raw, "#"):
			t.Errorf("CheckURL(%q) accepted a fragment", raw)
		}
		if live {
			if err := CheckURL(raw, false); err != nil {
				t.Errorf("CheckURL(%q) accepts it live but not in test mode: %v", raw, err)
			}
		}
		if _, err := http.NewRequest(http.MethodPost, raw, nil); err != nil {
			t.Errorf("CheckURL(%q) accepted a URL http.NewRequest rejects: %v", raw, err)
		}
	})
}
