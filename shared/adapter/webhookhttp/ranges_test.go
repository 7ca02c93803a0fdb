package webhookhttp

import (
	"bytes"
	"net"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// oracleRanges is the list of refused ranges on RefusedError's doc
// comment, written out again as data. oracleRefused implements the rule
// a second time over it, with net.ParseIP and byte arithmetic instead of
// net/netip's predicates and prefixes, so that the two implementations
// check each other (TestRefusalMatchesOracle, FuzzRefusal) and the
// comment checks both (TestRefusedRangesDocumented).
var oracleRanges = []string{
	"0.0.0.0/8",
	"10.0.0.0/8",
	"100.64.0.0/10",
	"127.0.0.0/8",
	"169.254.0.0/16",
	"172.16.0.0/12",
	"192.0.0.0/24",
	"192.0.2.0/24",
	"192.88.99.0/24",
	"192.168.0.0/16",
	"198.18.0.0/15",
	"198.51.100.0/24",
	"203.0.113.0/24",
	"224.0.0.0/4",
	"240.0.0.0/4",
	"::/96",
	"::1/128",
	"::ffff:0:0:0/96",
	"64:ff9b:1::/48",
	"100::/64",
	"2001::/23",
	"2001:db8::/32",
	"2002::/16",
	"fc00::/7",
	"fe80::/10",
	"fec0::/10",
	"ff00::/8",
}

// oracleLoopback are the ranges Options.AllowLoopback lets through.
var oracleLoopback = []string{"127.0.0.0/8", "::1/128"}

// oracleBytes returns the bytes of the address a connection to a
// reaches: 4 for IPv4, also when written IPv4-mapped (::ffff:0:0/96) or
// with the NAT64 well-known prefix (64:ff9b::/96), else 16.
func oracleBytes(a netip.Addr) []byte {
	if a.Is4() {
		b := a.As4()
		return b[:]
	}
	b := a.As16()
	mapped := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}
	nat64 := []byte{0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}
	if bytes.Equal(b[:12], mapped) || bytes.Equal(b[:12], nat64) {
		return b[12:]
	}
	return b[:]
}

// oracleContains reports whether the address bytes b are in the range
// written as "address/bits".
func oracleContains(t testing.TB, b []byte, cidr string) bool {
	addr, bitsText, _ := strings.Cut(cidr, "/")
	ip := net.ParseIP(addr)
	bits, err := strconv.Atoi(bitsText)
	if ip == nil || err != nil {
		t.Fatalf("bad range %q in the oracle", cidr)
	}
	prefix := []byte(ip.To16())
	if !strings.Contains(addr, ":") {
		prefix = ip.To4()
	}
	if len(prefix) != len(b) {
		return false
	}
	for i := 0; i < bits; i++ {
		mask := byte(0x80) >> (i % 8)
		if b[i/8]&mask != prefix[i/8]&mask {
			return false
		}
	}
	return true
}

func oracleRefused(t testing.TB, a netip.Addr, allowLoopback bool) bool {
	if !a.IsValid() {
		return true
	}
	b := oracleBytes(a)
	if allowLoopback && slices.ContainsFunc(oracleLoopback, func(r string) bool { return oracleContains(t, b, r) }) {
		return false
	}
	return slices.ContainsFunc(oracleRanges, func(r string) bool { return oracleContains(t, b, r) })
}

// TestRefusedRangesDocumented checks that the list on RefusedError's doc
// comment, the one a reader sees, is the oracle's list: the code is
// checked against the oracle, so a range added to the code but not to
// the comment (or the other way round) fails here or there.
func TestRefusedRangesDocumented(t *testing.T) {
	src, err := os.ReadFile("ranges.go")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile(`(?m)^//\t(\S+/\d+)\s`).FindAllStringSubmatch(string(src), -1) {
		documented = append(documented, m[1])
	}
	if !slices.Equal(documented, oracleRanges) {
		t.Errorf("ranges documented on RefusedError:\n%q\nwant the oracle's:\n%q", documented, oracleRanges)
	}
}

func TestRefusal(t *testing.T) {
	tests := []struct {
		addr         string
		refused      bool // without AllowLoopback
		loopbackOnly bool // allowed with AllowLoopback
	}{
		{"127.0.0.1", true, true},
		{"127.255.255.254", true, true},
		{"::1", true, true},
		{"::ffff:127.0.0.1", true, true},
		{"0.0.0.0", true, false},
		{"0.1.2.3", true, false},
		{"::", true, false},
		{"10.0.0.1", true, false},
		{"172.16.0.1", true, false},
		{"172.31.255.255", true, false},
		{"192.168.1.1", true, false},
		{"100.64.0.1", true, false},
		{"100.127.255.255", true, false},
		{"169.254.169.254", true, false},
		{"169.254.170.2", true, false},
		{"fe80::1", true, false},
		{"fe80::1%eth0", true, false},
		{"fc00::1", true, false},
		{"fd00:ec2::254", true, false},
		{"::ffff:10.0.0.1", true, false},
		{"::ffff:169.254.169.254", true, false},
		{"::ffff:0.0.0.0", true, false},
		{"64:ff9b::a9fe:a9fe", true, false}, // NAT64 form of 169.254.169.254
		{"64:ff9b::7f00:1", true, true},     // NAT64 form of 127.0.0.1
		{"64:ff9b:1::a00:1", true, false},
		{"::10.0.0.1", true, false},
		{"::ffff:0:a00:1", true, false},
		{"192.0.0.1", true, false},
		{"192.0.2.1", true, false},
		{"198.18.0.1", true, false},
		{"198.19.255.255", true, false},
		{"224.0.0.1", true, false},
		{"239.255.255.250", true, false},
		{"ff02::1", true, false},
		{"255.255.255.255", true, false},
		{"240.0.0.1", true, false},
		{"2001::1", true, false},
		{"2001:db8::1", true, false},
		{"2002:a00:1::", true, false},
		{"fec0::1", true, false},
		{"100::1", true, false},
		// Public addresses, and the neighbours of refused ranges.
		{"8.8.8.8", false, false},
		{"1.1.1.1", false, false},
		{"93.184.216.34", false, false},
		{"172.32.0.1", false, false},
		{"172.15.255.255", false, false},
		{"100.128.0.1", false, false},
		{"100.63.255.255", false, false},
		{"169.253.255.255", false, false},
		{"198.20.0.0", false, false},
		{"223.255.255.255", false, false},
		{"::ffff:8.8.8.8", false, false},
		{"64:ff9b::808:808", false, false},
		{"2606:4700:4700::1111", false, false},
		{"2a05:d018::1", false, false},
		{"2001:200::1", false, false},
		{"fbff:ffff::1", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			for _, allow := range []bool{false, true} {
				want := tt.refused && !(allow && tt.loopbackOnly)
				why := refusal(a, allow)
				if (why != "") != want {
					t.Errorf("refusal(%s, allowLoopback=%t) = %q; want refused=%t", a, allow, why, want)
				}
				if got := oracleRefused(t, a, allow); got != want {
					t.Errorf("oracle(%s, allowLoopback=%t) = %t; want %t", a, allow, got, want)
				}
			}
		})
	}
	if why := refusal(netip.Addr{}, true); why == "" {
		t.Error("the zero Addr is allowed; want refused")
	}
}

func TestRefusalNamesMetadata(t *testing.T) {
	for _, s := range []string{"169.254.169.254", "::ffff:169.254.169.254", "fd00:ec2::254"} {
		if got := refusal(netip.MustParseAddr(s), true); got != "cloud metadata service" {
			t.Errorf("refusal(%s) = %q; want %q", s, got, "cloud metadata service")
		}
	}
}

// edges returns, for each range of the oracle, its first and last
// addresses and their neighbours outside it, in IPv4 ranges also written
// IPv4-mapped and NAT64: the addresses where a wrong prefix length or a
// missing range shows.
func edges(t testing.TB) []netip.Addr {
	var out []netip.Addr
	for _, r := range oracleRanges {
		p := netip.MustParsePrefix(r)
		first := p.Masked().Addr()
		last := first
		for i := p.Bits(); i < first.BitLen(); i++ {
			b := last.AsSlice()
			b[i/8] |= 0x80 >> (i % 8)
			last, _ = netip.AddrFromSlice(b)
		}
		for _, a := range []netip.Addr{first, last, first.Prev(), last.Next()} {
			if !a.IsValid() {
				continue
			}
			out = append(out, a)
			if a.Is4() {
				b := a.As4()
				out = append(out,
					netip.AddrFrom16(a.As16()),
					netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 12: b[0], b[1], b[2], b[3]}))
			}
		}
	}
	return out
}

func TestRefusalMatchesOracle(t *testing.T) {
	for _, a := range edges(t) {
		for _, allow := range []bool{false, true} {
			got, want := refusal(a, allow) != "", oracleRefused(t, a, allow)
			if got != want {
				t.Errorf("refusal(%s, allowLoopback=%t) refused=%t; want %t", a, allow, got, want)
			}
		}
	}
}

// FuzzRefusal checks refusal against the oracle for any address: the
// first 16 bytes as IPv6, or the first 4 as IPv4.
func FuzzRefusal(f *testing.F) {
	for _, a := range edges(f) {
		f.Add(a.AsSlice(), false)
		f.Add(a.AsSlice(), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, allowLoopback bool) {
		var a netip.Addr
		switch {
		case len(raw) >= 16:
			a = netip.AddrFrom16([16]byte(raw[:16]))
		case len(raw) >= 4:
			a = netip.AddrFrom4([4]byte(raw[:4]))
		default:
			return
		}
		got, want := refusal(a, allowLoopback) != "", oracleRefused(t, a, allowLoopback)
		if got != want {
			t.Errorf("refusal(%s, allowLoopback=%t) refused=%t; want %t (oracle)", a, allowLoopback, got, want)
		}
	})
}
