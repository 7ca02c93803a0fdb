package settings

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestParseOrigins(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only separators and spaces", " , ,, ", nil},
		{"one", "https://console.example.com", []string{"https://console.example.com"}},
		{"two, spaces trimmed", " https://a.example , http://b.example:8080 ", []string{"https://a.example", "http://b.example:8080"}},
		{"empty entries skipped", ",https://a.example,,https://b.example,", []string{"https://a.example", "https://b.example"}},
		{"duplicates dropped, first kept", "https://b.example,https://a.example,https://b.example", []string{"https://b.example", "https://a.example"}},
		{"http on a loopback port", "http://127.0.0.1:3000", []string{"http://127.0.0.1:3000"}},
		{"localhost", "http://localhost:5173", []string{"http://localhost:5173"}},
		{"highest port", "https://a.example:65535", []string{"https://a.example:65535"}},
		{"other scheme's default port", "http://a.example:443,https://a.example:80", []string{"http://a.example:443", "https://a.example:80"}},
		{"IPv6", "http://[::1]:8080,https://[2001:db8::1]", []string{"http://[::1]:8080", "https://[2001:db8::1]"}},
		{"IPv4-mapped IPv6 in hex", "http://[::ffff:102:304]", []string{"http://[::ffff:102:304]"}},
		{"IDN in xn-- form", "https://xn--bcher-kva.example", []string{"https://xn--bcher-kva.example"}},
		{"hyphen, underscore, trailing dot", "https://my-app_1.example.", []string{"https://my-app_1.example."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseOrigins(tc.in)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ParseOrigins(%q) = %q, %v; want %q, nil", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseOriginsRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"trailing slash", "https://a.example/", `origin "https://a.example/": want scheme://host[:port] with no path`},
		{"path", "https://a.example/app", "with no path"},
		{"query", "https://a.example?x=1", "with no query"},
		{"empty query", "https://a.example?", "with no query"},
		{"fragment", "https://a.example#top", "with no fragment"},
		{"empty fragment", "https://a.example#", "with no fragment"},
		{"userinfo", "https://user@a.example", "with no userinfo"},
		{"userinfo with password", "https://user:pw@a.example", "with no userinfo"},
		{"wildcard", "https://*.example.com", "wildcards are not allowed"},
		{"bare wildcard", "*", "wildcards are not allowed"},
		{"null", "null", `"null" is what browsers send`},
		{"no scheme", "a.example", `scheme "": want http or https`},
		{"other scheme", "ftp://a.example", `scheme "ftp": want http or https`},
		{"websocket scheme", "wss://a.example", `scheme "wss"`},
		{"uppercase scheme", "HTTPS://a.example", "scheme in lowercase"},
		{"uppercase host", "https://Console.Example.com", "host Console.Example.com: write it in lowercase"},
		{"opaque", "https:a.example", "want scheme://host[:port]"},
		{"one slash", "https:/a.example", "want scheme://host[:port]"},
		{"no host", "https://", "no host"},
		{"port without host", "https://:8080", "no host"},
		{"empty port", "https://a.example:", "empty port; leave out the colon"},
		{"port 0", "https://a.example:0", "port 0 is out of range 1-65535"},
		{"port too large", "https://a.example:65536", "port 65536 is out of range"},
		{"leading zero", "https://a.example:08080", "port 08080 has leading zeros"},
		{"default https port", "https://a.example:443", "port 443 is https's default"},
		{"default http port", "http://a.example:80", "port 80 is http's default"},
		{"non-numeric port", "https://a.example:http", "not a URL"},
		{"space inside", "https://a .example", "contains white space"},
		{"percent-escape in host", "https://b%c3%bccher.example", `origin "https://b%c3%bccher.example": percent-escapes`},
		{"invalid percent-escape", "https://a%2eexample", "not a URL"},
		{"non-ASCII host", "https://bücher.example", "xn-- form"},
		{"odd character in host", "https://a!b.example", `character '!' is not in a host name`},
		{"IPv4 short form", "http://127.1", "dotted decimal"},
		{"IPv4 with leading zeros", "http://127.0.0.01", "dotted decimal"},
		{"IPv4 in hex", "http://0x7f.0.0.1", "dotted decimal"},
		{"IPv4 with trailing dot", "http://127.0.0.1.", "dotted decimal"},
		{"IPv6 not compressed", "http://[0:0:0:0:0:0:0:1]", "write it as browsers do, [::1]"},
		{"IPv6 uppercase", "http://[2001:DB8::1]", "[2001:db8::1]"},
		{"IPv6 with dotted tail", "http://[::ffff:1.2.3.4]", "[::ffff:102:304]"},
		{"IPv6 with a zone", "http://[fe80::1%25eth0]", "IPv6 zones"},
		{"IPv4 in brackets", "http://[127.0.0.1]", "not a URL"},
		{"bad entry after a good one", "https://a.example, https://b.example/", `origin "https://b.example/"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseOrigins(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseOrigins(%q) = %q, %v; want an error containing %q", tc.in, got, err, tc.want)
			}
			if got != nil {
				t.Errorf("ParseOrigins(%q) returned %q with its error; want nil", tc.in, got)
			}
		})
	}
}

func TestIPv6String(t *testing.T) {
	// The WHATWG URL standard's serializer: the first longest run of two
	// or more zero pieces compressed, no dotted IPv4 tail.
	for in, want := range map[string]string{
		"::":                      "::",
		"::1":                     "::1",
		"1::":                     "1::",
		"2001:db8:0:0:1:0:0:1":    "2001:db8::1:0:0:1",
		"2001:db8:0:1:0:0:0:1":    "2001:db8:0:1::1",
		"2001:db8:1:1:1:1:0:1":    "2001:db8:1:1:1:1:0:1",
		"::ffff:1.2.3.4":          "::ffff:102:304",
		"fe80:0:0:0:0:0:0:00ab":   "fe80::ab",
		"1:2:3:4:5:6:7:8":         "1:2:3:4:5:6:7:8",
		"0:0:1:0:0:0:0:0":         "0:0:1::",
		"abcd:0:0:ef01:0:0:0:bcd": "abcd:0:0:ef01::bcd",
	} {
		if got := ipv6String(netip.MustParseAddr(in)); got != want {
			t.Errorf("ipv6String(%s) = %s; want %s", in, got, want)
		}
	}
}

// FuzzParseOrigins: ParseOrigins either refuses its input or returns
// distinct origins that each parse back to themselves alone and carry no
// separator or space (the agent tool server compares them byte for byte
// with the Origin header).
func FuzzParseOrigins(f *testing.F) {
	for _, s := range []string{
		"", ",", " , ", "https://a.example", "https://a.example, http://b.example:8080",
		"https://a.example/", "https://a.example:443", "https://a.example:0", "http://[::1]:3000",
		"http://[::ffff:1.2.3.4]", "http://127.1", "null", "*", "HTTPS://A.EXAMPLE", "https://user@a.example",
		"https://a.example?#", "https://bücher.example", "https://a%2eexample", "https://xn--bcher-kva.example.",
		"https://a.example,https://a.example",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseOrigins(s)
		if err != nil {
			if got != nil {
				t.Errorf("ParseOrigins(%q) = %q with error %v; want nil with an error", s, got, err)
			}
			return
		}
		for i, o := range got {
			if strings.ContainsAny(o, ", \t\r\n") {
				t.Errorf("ParseOrigins(%q) returned %q, which holds a comma or space", s, o)
			}
			if slices.Contains(got[:i], o) {
				t.Errorf("ParseOrigins(%q) returned %q twice", s, o)
			}
			if again, err := ParseOrigins(o); err != nil || !slices.Equal(again, []string{o}) {
				t.Errorf("ParseOrigins(%q) returned %q, which parses to %q, %v; want itself", s, o, again, err)
			}
		}
	})
}
