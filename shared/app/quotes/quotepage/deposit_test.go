package quotepage

import (
	"net/url"
	"strings"
	"testing"
)

func TestCheckoutURL(t *testing.T) {
	for in, ok := range map[string]bool{
		"https://checkout.stripe.com/c/pay/cs_test_a1b2#fidkdWxOYHwnPyd1blpxYHZxWjA0": true,
		"http://127.0.0.1:8080/fake-checkout?session=cs_test_1":                       true,
		"https://checkout.stripe.com/c/pay/cs_test?a=1&b=2":                           true,
		"":                                    false,
		"javascript:alert(1)":                 false,
		"JavaScript:alert(1)":                 false,
		"data:text/html,<script>x</script>":   false,
		"/relative/path":                      false,
		"//checkout.stripe.com/c/pay":         false,
		"https://":                            false,
		"https://user:pw@checkout.stripe.com": false,
		"https://a.example.com/ x":            false,
		"https://a.example.com/\"onclick":     false,
		"https://a.example.com/'x":            false,
		"https://a.example.com/<x>":           false,
		"https://a.example.com\\@evil.com":    false,
		"https://a.example.com/\n":            false,
		"ftp://a.example.com/":                false,
		"mailto:a@example.com":                false,
	} {
		got, accepted := checkoutURL(in)
		if accepted != ok || (ok && got != in) || (!ok && got != "") {
			t.Errorf("checkoutURL(%q) = %q, %v; want %v", in, got, accepted, ok)
		}
	}
}

// FuzzCheckoutURL: an address the page links to is always an absolute
// http(s) address with a host, unchanged, and holds nothing that escaping
// would have to hide.
func FuzzCheckoutURL(f *testing.F) {
	for _, s := range []string{"https://checkout.stripe.com/c/pay/cs_test_1", "javascript:alert(1)", "//x", "https://u@x", "http://[::1]:80/", "HTTPS://X/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := checkoutURL(s)
		if !ok {
			if got != "" {
				t.Fatalf("checkoutURL(%q) = %q, false", s, got)
			}
			return
		}
		if got != s {
			t.Fatalf("checkoutURL(%q) = %q; want it unchanged", s, got)
		}
		u, err := url.Parse(got)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("checkoutURL(%q) accepted an address that is not absolute http(s): %+v, %v", s, u, err)
		}
		if strings.ContainsAny(got, "\"'<> \t\r\n") {
			t.Fatalf("checkoutURL(%q) accepted a quote, bracket or space", s)
		}
	})
}

func TestDepositViewWhileOpen(t *testing.T) {
	p := bindingPage()
	p.DepositStatus = DepositPaid
	if v := depositViewOf(p, layoutSign); v.kind != depositPay {
		t.Errorf("an open quote's hidden deposit block is %q; want the Pay button the script shows after accepting", v.kind)
	}
}
