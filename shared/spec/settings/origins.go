package settings

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// ParseOrigins parses a comma-separated list of web origins, the value of
// AgentToolsAllowedOrigins: spaces around an entry are trimmed and empty
// entries are skipped, so "" (and ", ,") gives nil. Each entry must be an
// origin exactly as a browser sends it in the Origin header, since the
// agent tool server compares them byte for byte: scheme http or https and
// a host, both in lowercase, and a port only when it is not the scheme's
// default; no path (not even "/"), query, fragment, userinfo or wildcard,
// and not "null". Duplicates are dropped, keeping the first.
//
// On the first bad entry it returns nil and an error naming the entry and
// what is wrong with it, e.g. origin "https://a.example/": want
// scheme://host[:port] with no path.
func ParseOrigins(s string) ([]string, error) {
	var out []string
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if err := checkOrigin(entry); err != nil {
			return nil, fmt.Errorf("origin %q: %w", entry, err)
		}
		if !slices.Contains(out, entry) {
			out = append(out, entry)
		}
	}
	return out, nil
}

// errShape is the error of an entry that is not scheme://host[:port].
var errShape = errors.New("want scheme://host[:port]")

// checkOrigin reports what keeps o from being a serialized http(s) origin.
func checkOrigin(o string) error {
	switch {
	case o == "null":
		return errors.New(`"null" is what browsers send for an opaque origin (a file, a sandboxed frame); list real origins`)
	case strings.Contains(o, "*"):
		return errors.New("wildcards are not allowed; list each origin")
	case strings.ContainsAny(o, " \t\r\n"):
		return errors.New("contains white space")
	}
	u, err := url.Parse(o)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: want http or https", u.Scheme)
	}
	rest, ok := strings.CutPrefix(o, u.Scheme+"://")
	switch {
	case !ok && strings.HasPrefix(strings.ToLower(o), u.Scheme+"://"):
		return errors.New("write the scheme in lowercase, as browsers send it")
	case !ok || u.Opaque != "":
		return errShape
	case u.User != nil:
		return errors.New("want scheme://host[:port] with no userinfo (user@)")
	case u.Path != "" || u.RawPath != "":
		return errors.New("want scheme://host[:port] with no path")
	case u.RawQuery != "" || u.ForceQuery || strings.Contains(o, "?"):
		return errors.New("want scheme://host[:port] with no query")
	case u.Fragment != "" || strings.Contains(o, "#"):
		return errors.New("want scheme://host[:port] with no fragment")
	case strings.Contains(rest, "%"):
		return errors.New("percent-escapes (and IPv6 zones) are not in an origin's host")
	case rest != u.Host:
		return errShape
	}
	host, port, err := splitHostPort(rest)
	if err != nil {
		return err
	}
	if err := checkHost(host); err != nil {
		return err
	}
	return checkPort(u.Scheme, port)
}

// splitHostPort splits hostport ("host", "host:port", "[v6]" or
// "[v6]:port") where a browser's origin would: port is "" when there is
// no colon.
func splitHostPort(hostport string) (host, port string, err error) {
	host, port = hostport, ""
	hasPort := false
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return "", "", errors.New("unclosed [ in the host")
		}
		host = hostport[:end+1]
		switch after := hostport[end+1:]; {
		case after == "":
		case after[0] == ':':
			port, hasPort = after[1:], true
		default:
			return "", "", errShape
		}
	} else if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		host, port, hasPort = hostport[:i], hostport[i+1:], true
	}
	if host == "" {
		return "", "", errors.New("no host")
	}
	if hasPort && port == "" {
		return "", "", errors.New("empty port; leave out the colon")
	}
	return host, port, nil
}

// checkHost reports what keeps host from being an origin's host as
// browsers serialize it: a bracketed IPv6 address in its canonical form,
// a dotted-decimal IPv4 address, or an ASCII domain in lowercase.
func checkHost(host string) error {
	if strings.HasPrefix(host, "[") {
		inner := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		a, err := netip.ParseAddr(inner)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return fmt.Errorf("host %s is not an IPv6 address", host)
		}
		if want := ipv6String(a); inner != want {
			return fmt.Errorf("host %s: write it as browsers do, [%s]", host, want)
		}
		return nil
	}
	for _, c := range []byte(host) {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '.', c == '_':
		case 'A' <= c && c <= 'Z':
			return fmt.Errorf("host %s: write it in lowercase, as browsers send it", host)
		case c >= 0x80:
			return fmt.Errorf("host %s: write an internationalized name in its xn-- form, as browsers send it", host)
		default:
			return fmt.Errorf("host %s: character %q is not in a host name", host, c)
		}
	}
	if endsInNumber(host) {
		if a, err := netip.ParseAddr(host); err != nil || !a.Is4() {
			return fmt.Errorf("host %s: a host ending in a number must be an IPv4 address in dotted decimal, as browsers write it", host)
		}
	}
	return nil
}

// endsInNumber reports whether the last label of host (a trailing dot
// aside) is a number, which makes browsers parse the host as an IPv4
// address (the WHATWG URL standard's "ends in a number").
func endsInNumber(host string) bool {
	labels := strings.Split(host, ".")
	if len(labels) > 1 && labels[len(labels)-1] == "" {
		labels = labels[:len(labels)-1]
	}
	last := labels[len(labels)-1]
	if hex, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

// ipv6String serializes a as the WHATWG URL standard does (without the
// brackets): lowercase hex pieces without leading zeros, the first
// longest run of two or more zero pieces as "::", and no dotted IPv4 tail
// (which netip.Addr.String writes for IPv4-mapped addresses).
func ipv6String(a netip.Addr) string {
	b := a.As16()
	var pieces [8]uint16
	for i := range pieces {
		pieces[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	compress, longest := -1, 1
	for i := 0; i < len(pieces); {
		j := i
		for j < len(pieces) && pieces[j] == 0 {
			j++
		}
		if j-i > longest {
			compress, longest = i, j-i
		}
		i = j + 1
	}
	var sb strings.Builder
	for i := 0; i < len(pieces); i++ {
		if i == compress {
			if i == 0 {
				sb.WriteString(":")
			}
			sb.WriteString(":")
			i += longest - 1
			continue
		}
		sb.WriteString(strconv.FormatUint(uint64(pieces[i]), 16))
		if i != len(pieces)-1 {
			sb.WriteString(":")
		}
	}
	return sb.String()
}

// checkPort reports what keeps port from being an origin's port as
// browsers serialize it: "" or a number from 1 to 65535 without leading
// zeros that is not the scheme's default (browsers leave that out).
func checkPort(scheme, port string) error {
	if port == "" {
		return nil
	}
	n, err := strconv.Atoi(port)
	switch {
	case err != nil || strings.Trim(port, "0123456789") != "":
		return fmt.Errorf("port %q is not a number", port)
	case len(port) > 1 && port[0] == '0':
		return fmt.Errorf("port %s has leading zeros", port)
	case n < 1 || n > 65535:
		return fmt.Errorf("port %s is out of range 1-65535", port)
	case scheme == "http" && n == 80, scheme == "https" && n == 443:
		return fmt.Errorf("port %d is %s's default, which browsers leave out", n, scheme)
	}
	return nil
}
