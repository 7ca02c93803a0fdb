package lead

import (
	"fmt"
	"net/mail"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Email length limits in octets (RFC 5321 4.5.3.1 and its erratum 1690 for
// the whole address).
const (
	maxEmailOctets = 254
	maxLocalOctets = 64
	maxLabelOctets = 63
)

// literalStandIn replaces an address literal while net/mail checks the local
// part: net/mail does not accept RFC 5321's [IPv6:…] form, so literals are
// checked here with net/netip instead. ".invalid" is reserved (RFC 2606).
const literalStandIn = "literal.invalid"

const badEmail = "must be a valid email address"

// CheckEmail accepts one bare address (local@domain, no display name, angle
// brackets or comments), as RFC 5322's addr-spec read by net/mail: the local
// part is a dot-atom or a quoted string ("john doe"@example.com), UTF-8
// allowed (RFC 6532). On top of net/mail it requires:
//   - at most 254 octets in all and 64 before the last @;
//   - a domain of dot-separated labels of letters, digits and inner hyphens,
//     each at most 63 octets, with at least one dot and a last label that is
//     not all digits; non-ASCII letters and digits count as letters (an
//     internationalised domain in its Unicode form);
//   - or an address literal: [IPv4] or [IPv6:address] (RFC 5321 4.1.3), with
//     no zone; net/mail's bare [2001:db8::1] is refused, as RFC 5321 asks;
//   - no control character, and no invisible character (a format character
//     or non-ASCII white space), which would make two different addresses
//     look alike.
//
// It returns a reason starting "must be", or "" when s is acceptable.
func CheckEmail(s string) string {
	if n := len(s); n > maxEmailOctets {
		return fmt.Sprintf("must be at most %d octets (got %d)", maxEmailOctets, n)
	}
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Cc, r):
			return fmt.Sprintf("%s: it contains the control character %s", badEmail, charName(r))
		case r >= utf8.RuneSelf && (unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)):
			return fmt.Sprintf("%s: it contains the invisible character %s", badEmail, charName(r))
		}
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return badEmail + ": it has no @"
	}
	local, domain := s[:at], s[at+1:]
	if local == "" {
		return badEmail + ": nothing comes before the @"
	}

	literal := strings.HasPrefix(domain, "[")
	parseDomain := domain
	if literal {
		if reason := checkLiteral(domain); reason != "" {
			return reason
		}
		parseDomain = literalStandIn
	}
	a, err := mail.ParseAddress(local + "@" + parseDomain)
	if err != nil {
		return badEmail + " such as name@example.com"
	}
	gotLocal, gotDomain := splitLast(a.Address)
	if a.Name != "" || gotDomain != parseDomain || (gotLocal != local && !isQuoted(local)) {
		return badEmail + " on its own, such as name@example.com, without a display name, angle brackets or comments"
	}
	if n := len(local); n > maxLocalOctets {
		return fmt.Sprintf("%s: the part before the @ must be at most %d octets (got %d)", badEmail, maxLocalOctets, n)
	}
	if !literal {
		return checkDomain(domain)
	}
	return ""
}

// checkDomain checks a domain name that net/mail accepted as a dot-atom.
func checkDomain(domain string) string {
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return badEmail + ": the domain needs a dot (as in example.com), or must be an address literal such as [192.0.2.1]"
	}
	for _, label := range labels {
		switch {
		case label == "":
			return badEmail + ": the domain has an empty label"
		case len(label) > maxLabelOctets:
			return fmt.Sprintf("%s: the domain label %.20q… is longer than %d octets", badEmail, label, maxLabelOctets)
		case label[0] == '-' || label[len(label)-1] == '-':
			return fmt.Sprintf("%s: the domain label %q starts or ends with a hyphen", badEmail, label)
		}
		for _, r := range label {
			if !isLabelRune(r) {
				return fmt.Sprintf("%s: the domain may hold only letters, digits, hyphens and dots, not %q", badEmail, r)
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return badEmail + ": the domain's last label cannot be all digits; write an IP address as a literal such as [192.0.2.1]"
	}
	return ""
}

// isLabelRune reports whether r may appear in a domain label: ASCII letters,
// digits and hyphens, or a non-ASCII letter, mark or digit.
func isLabelRune(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	default:
		return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)
	}
}

// checkLiteral checks an address literal: [IPv4] or [IPv6:address].
func checkLiteral(domain string) string {
	const want = badEmail + ": an address literal must be an IPv4 address such as [192.0.2.1] or an IPv6 address such as [IPv6:2001:db8::1]"
	inner, _ := strings.CutPrefix(domain, "[")
	inner, ok := strings.CutSuffix(inner, "]")
	if !ok {
		return want
	}
	if len(inner) > 5 && strings.EqualFold(inner[:5], "IPv6:") {
		ip, err := netip.ParseAddr(inner[5:])
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return want
		}
		return ""
	}
	if ip, err := netip.ParseAddr(inner); err != nil || !ip.Is4() {
		return want
	}
	return ""
}

// isQuoted reports whether local is written as one quoted string.
func isQuoted(local string) bool {
	return len(local) >= 2 && local[0] == '"' && local[len(local)-1] == '"'
}

// splitLast splits s at its last @.
func splitLast(s string) (string, string) {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s, ""
	}
	return s[:at], s[at+1:]
}
