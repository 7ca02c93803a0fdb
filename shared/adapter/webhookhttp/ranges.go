package webhookhttp

import (
	"errors"
	"fmt"
	"net/netip"
)

// ErrRefusedAddress is matched (errors.Is) by every [*RefusedError]: the
// delivery was refused because the endpoint's host is, or resolves to, an
// address a webhook may never reach.
var ErrRefusedAddress = errors.New("refused address")

// RefusedError says which address a delivery was refused for, and why.
//
// This comment is the one list of refused ranges; a test checks that the
// code refuses exactly these. IPv4 (an IPv4 address written as
// IPv4-mapped IPv6, ::ffff:a.b.c.d, or with the NAT64 well-known prefix,
// 64:ff9b::a.b.c.d, is checked as the IPv4 address it stands for, since
// connecting to it reaches that address):
//
//	0.0.0.0/8         "this network"; 0.0.0.0 reaches the local host
//	10.0.0.0/8        private (RFC 1918)
//	100.64.0.0/10     shared address space, carrier-grade NAT (RFC 6598)
//	127.0.0.0/8       loopback (allowed by Options.AllowLoopback, test mode only)
//	169.254.0.0/16    link-local, incl. the cloud metadata service 169.254.169.254
//	172.16.0.0/12     private (RFC 1918)
//	192.0.0.0/24      IETF protocol assignments (RFC 6890)
//	192.0.2.0/24      documentation, TEST-NET-1
//	192.88.99.0/24    6to4 relay anycast (deprecated)
//	192.168.0.0/16    private (RFC 1918)
//	198.18.0.0/15     benchmarking (RFC 2544)
//	198.51.100.0/24   documentation, TEST-NET-2
//	203.0.113.0/24    documentation, TEST-NET-3
//	224.0.0.0/4       multicast
//	240.0.0.0/4       reserved, incl. the broadcast address 255.255.255.255
//
// IPv6:
//
//	::/96             unspecified ::, and IPv4-compatible addresses (deprecated)
//	::1/128           loopback (allowed by Options.AllowLoopback, test mode only)
//	::ffff:0:0:0/96   IPv4-translated addresses (SIIT)
//	64:ff9b:1::/48    local-use NAT64, which may translate to any IPv4 address
//	100::/64          discard-only
//	2001::/23         IETF protocol assignments, incl. Teredo 2001::/32
//	2001:db8::/32     documentation
//	2002::/16         6to4, which embeds any IPv4 address
//	fc00::/7          unique-local, incl. the AWS metadata service fd00:ec2::254
//	fe80::/10         link-local
//	fec0::/10         site-local (deprecated)
//	ff00::/8          multicast
//
// An invalid address is refused too. Documentation, benchmarking and
// reserved ranges are listed although nothing public answers there,
// because a network may still route them somewhere internal.
type RefusedError struct {
	Addr   netip.Addr // the address as resolved or written in the URL
	Reason string     // the range it is in, e.g. "private (RFC 1918)"
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused address %s: %s", e.Addr, e.Reason)
}

// Is reports whether target is ErrRefusedAddress, so callers can test for
// a refusal without knowing the type.
func (e *RefusedError) Is(target error) bool { return target == ErrRefusedAddress }

// The cloud metadata services get a reason of their own, because a
// request to one is the attack this package exists to stop.
var (
	metadataV4 = netip.MustParseAddr("169.254.169.254")
	metadataV6 = netip.MustParseAddr("fd00:ec2::254")
)

// nat64 is the NAT64 well-known prefix (RFC 6052); its last 32 bits are
// an IPv4 address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// extraRefused are the ranges of the list on RefusedError that no
// net/netip predicate covers. The predicates cover loopback, the
// unspecified addresses, RFC 1918 and unique-local, link-local and
// multicast.
var extraRefused = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), `"this network"`},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved or broadcast"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
}

// refusal returns why a may not be connected to, or "" when it may.
// allowLoopback lets 127.0.0.0/8 and ::1 through and nothing else.
func refusal(a netip.Addr, allowLoopback bool) string {
	a = canonical(a)
	switch {
	case !a.IsValid():
		return "invalid address"
	case a.IsLoopback():
		if allowLoopback {
			return ""
		}
		return "loopback"
	case a == metadataV4 || a == metadataV6:
		return "cloud metadata service"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsPrivate():
		if a.Is4() {
			return "private (RFC 1918)"
		}
		return "unique-local"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast():
		return "multicast"
	}
	for _, r := range extraRefused {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	return ""
}

// canonical returns the address a connection to a actually reaches, in
// the form the checks compare: without an IPv6 zone (a zoned address
// matches no prefix), and as plain IPv4 when a is an IPv4-mapped or NAT64
// form of an IPv4 address.
func canonical(a netip.Addr) netip.Addr {
	a = a.WithZone("").Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		return netip.AddrFrom4([4]byte(b[12:]))
	}
	return a
}
