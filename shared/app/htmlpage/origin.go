package htmlpage

import (
	"net/netip"
	"net/url"
	"strings"
)

// Origin returns s as a CSP host source ("https://host[:port]", lower case)
// when it is an http or https origin and nothing more: a host of letters,
// digits, dots and hyphens or a bracketed IPv6 address, and an optional
// numeric port.
func Origin(s string) (string, bool) {
	if s == "" || strings.ContainsAny(s, " \t\r\n;,'\"#") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Opaque != "" {
		return "", false
	}
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", false
		}
	} else if host == "" || strings.Trim(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != "" {
		return "", false
	}
	if port := u.Port(); strings.HasSuffix(u.Host, ":") || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return "", false // an empty or odd port is no CSP host source
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), true
}
