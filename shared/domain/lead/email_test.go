package lead

import (
	"bufio"
	"encoding/json"
	"net/mail"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestCheckEmailPublishedExamples runs CheckEmail, and ParseCreate, over the
// examples of Wikipedia's "Email address" article kept in
// testdata/emails.txt, whose header says where the verdicts deliberately
// differ from the article's and why.
func TestCheckEmailPublishedExamples(t *testing.T) {
	f, err := os.Open("testdata/emails.txt")
	if err != nil {
		t.Fatalf("open examples: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, seen := 0, map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) < 3 || len(cols) > 4 || (cols[0] != "valid" && cols[0] != "invalid") || (cols[1] != "accept" && cols[1] != "reject") {
			t.Fatalf("emails.txt:%d: %q; want article<TAB>ours<TAB>address[<TAB>why]", line, text)
		}
		article, ours, addr := cols[0], cols[1], cols[2]
		if differs := (article == "valid") != (ours == "accept"); differs != (len(cols) == 4) {
			t.Errorf("emails.txt:%d: %s: a why column is required exactly when ours (%s) differs from the article (%s)", line, addr, ours, article)
		}
		if seen[addr] {
			t.Errorf("emails.txt:%d: %s listed twice", line, addr)
		}
		seen[addr] = true
		n++
		t.Run(addr, func(t *testing.T) {
			reason := CheckEmail(addr)
			if accepted := reason == ""; accepted != (ours == "accept") {
				t.Errorf("CheckEmail(%q) = %q; want %s (emails.txt:%d)", addr, reason, ours, line)
			}
			value, _ := json.Marshal(addr)
			in, err := ParseCreate([]byte(`{"phone":"+15551234567","email":` + string(value) + `}`))
			if accepted := err == nil && in.Email == addr; accepted != (ours == "accept") {
				t.Errorf("ParseCreate with email %q = %+v, %v; want %s", addr, in, err, ours)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read examples: %v", err)
	}
	if n < 30 {
		t.Errorf("read %d examples; want the article's lists (30 or more)", n)
	}
}

func TestCheckEmail(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	accepted := []struct{ name, addr string }{
		{"quoted local part with a space", `"john doe"@example.com`},
		{"quoted local part with an escaped quote", `"john\"doe"@example.com`},
		{"quoted local part with an @", `"a@b"@example.com`},
		{"IPv6 literal", "user@[IPv6:2001:db8::1]"},
		{"IPv6 literal, tag in lower case", "user@[ipv6:::1]"},
		{"IPv6 literal with embedded IPv4", "user@[IPv6:::ffff:192.0.2.1]"},
		{"IPv4 literal", "user@[192.0.2.1]"},
		{"UTF-8 local part", "jürgen@example.com"},
		{"internationalised domain", "用户@例子.广告"},
		{"Cyrillic domain with hyphen", "медведь@с-балалайкой.рф"},
		{"punycode domain", "ada@xn--bcher-kva.example"},
		{"digits in labels", "ada@3com.com"},
		{"hyphen inside a label", "ada@my-example.co.uk"},
		{"local part of 64 octets", long("a", 64) + "@example.com"},
		{"label of 63 octets", "ada@" + long("b", 63) + ".com"},
		{"254 octets", long("a", 64) + "@" + longDomain(57)},
		{"literal needs no dot", "postmaster@[127.0.0.1]"},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			if reason := CheckEmail(tt.addr); reason != "" {
				t.Errorf("CheckEmail(%q) = %q; want accepted", tt.addr, reason)
			}
		})
	}

	rejected := []struct{ name, addr, want string }{
		{"no @", "ada.example.com", "has no @"},
		{"empty local part", "@example.com", "nothing comes before the @"},
		{"display name", "Ada <ada@example.com>", "without a display name"},
		{"empty display name", `"" <ada@example.com>`, "without a display name"},
		{"angle brackets", "<ada@example.com>", "without a display name"},
		{"comment", "ada@example.com (Ada)", "without a display name"},
		{"empty comment", "ada@example.com ()", "without a display name"},
		{"space after @", "ada@ example.com", "without a display name"},
		{"bare IPv6 literal", "user@[2001:db8::1]", "address literal"},
		{"IPv6 literal with zone", "user@[IPv6:fe80::1%eth0]", "address literal"},
		{"IPv4 in an IPv6 tag", "user@[IPv6:192.0.2.1]", "address literal"},
		{"IPv4 literal out of range", "user@[192.0.2.256]", "address literal"},
		{"IPv4 literal, three parts", "user@[192.0.2]", "address literal"},
		{"unclosed literal", "user@[192.0.2.1", "address literal"},
		{"general literal", "user@[x400:c=us]", "address literal"},
		{"literal with trailing text", "user@[192.0.2.1].com", "address literal"},
		{"label starts with hyphen", "ada@-example.com", "starts or ends with a hyphen"},
		{"label ends with hyphen", "ada@example-.com", "starts or ends with a hyphen"},
		{"last label starts with hyphen", "ada@example.-com", "starts or ends with a hyphen"},
		{"label of 64 octets", "ada@" + long("b", 64) + ".com", "longer than 63 octets"},
		{"label of 64 octets in UTF-8", "ada@" + long("é", 32) + ".com", "longer than 63 octets"},
		{"local part of 65 octets", long("a", 65) + "@example.com", "at most 64 octets (got 65)"},
		{"local part of 65 octets quoted", `"` + long("a", 63) + `"@example.com`, "at most 64 octets (got 65)"},
		{"255 octets", long("a", 64) + "@" + longDomain(58), "at most 254 octets (got 255)"},
		{"255 octets in fewer characters", long("a", 60) + "@" + long("é", 31) + "." + long("é", 31) + "." + long("é", 31) + "." + long("é", 2) + ".com", "at most 254 octets"},
		{"dotless domain", "ada@example", "needs a dot"},
		{"numeric last label", "ada@192.0.2.1", "cannot be all digits"},
		{"underscore in domain", "ada@exa_mple.com", "only letters, digits, hyphens and dots"},
		{"symbol in domain", "ada@exa!mple.com", "only letters, digits, hyphens and dots"},
		{"emoji domain", "ada@💌.example", "only letters, digits, hyphens and dots"},
		{"zero-width space", "ada\u200b@example.com", "invisible character U+200B"},
		{"soft hyphen in domain", "ada@exam\u00adple.com", "invisible character U+00AD"},
		{"no-break space", "ada\u00a0b@example.com", "invisible character U+00A0"},
		{"quoted no-break space", "\"ada\u00a0b\"@example.com", "invisible character U+00A0"},
		{"quoted tab", "\"ada\tb\"@example.com", "control character U+0009"},
		{"double dot", "ada..b@example.com", "such as name@example.com"},
		{"trailing dot in domain", "ada@example.com.", "such as name@example.com"},
	}
	for _, tt := range rejected {
		t.Run(tt.name, func(t *testing.T) {
			reason := CheckEmail(tt.addr)
			if !strings.HasPrefix(reason, "must be") || !strings.Contains(reason, tt.want) {
				t.Errorf("CheckEmail(%q) = %q; want a reason starting \"must be\" and containing %q", tt.addr, reason, tt.want)
			}
		})
	}
}

// FuzzCheckEmail checks that CheckEmail never panics and that what it
// accepts keeps the length and character rules and is a bare address
// net/mail reads (with a stand-in for an address literal).
func FuzzCheckEmail(f *testing.F) {
	for _, s := range []string{
		"ada@example.com", `"john doe"@example.com`, "user@[IPv6:2001:db8::1]", "user@[192.0.2.1]",
		"Ada <ada@example.com>", "ada@example", "a@b@c@example.com", "用户@例子.广告", `"a@b"@[IPv6:::1]`,
		"ada@-x.com", "\"\" <a@b.co>", "a@b.co (c)", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckEmail(s) != "" {
			return
		}
		local, domain := splitLast(s)
		if len(s) > maxEmailOctets || local == "" || len(local) > maxLocalOctets || domain == "" {
			t.Errorf("CheckEmail(%q) accepted; local %d octets, domain %q, %d octets in all", s, len(local), domain, len(s))
		}
		for _, r := range s {
			if r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf) {
				t.Errorf("CheckEmail(%q) accepted %U", s, r)
			}
		}
		if strings.HasPrefix(domain, "[") {
			domain = literalStandIn
		}
		a, err := mail.ParseAddress(local + "@" + domain)
		if err != nil || a.Name != "" || !strings.HasSuffix(a.Address, "@"+domain) {
			t.Errorf("CheckEmail(%q) accepted; net/mail reads %+v, %v", s, a, err)
		}
	})
}
