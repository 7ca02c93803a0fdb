package htmlpage

import (
	"regexp"
	"testing"
)

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://bucket.s3.us-east-1.amazonaws.com": "https://bucket.s3.us-east-1.amazonaws.com",
		"http://127.0.0.1:9000":                     "http://127.0.0.1:9000",
		"HTTPS://Bucket.Example.com/":               "https://bucket.example.com",
		"http://[::1]:9000":                         "http://[::1]:9000",
		"":                                          "",
		"https://a.example.com; script-src *":       "",
		"https://a.example.com/path":                "",
		"https://u:p@a.example.com":                 "",
		"https://a.example.com?x":                   "",
		"ftp://a.example.com":                       "",
		"http://:00":                                "",
		"http://]":                                  "",
		"https://a:":                                "",
		"https://[::1%25eth0]":                      "",
		"*":                                         "",
	} {
		got, ok := Origin(in)
		if got != want || ok != (want != "") {
			t.Errorf("Origin(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// safeSource is a CSP host source with nothing that could end the
// directive or add another source.
var safeSource = regexp.MustCompile(`^https?://([a-z0-9.-]+|\[[0-9a-f:.]+\])(:[0-9]{1,5})?$`)

// FuzzOrigin: whatever the input, an accepted origin is one safe host
// source, and accepting it again changes nothing.
func FuzzOrigin(f *testing.F) {
	for _, s := range []string{"https://a.b", "http://[::1]:80", "HTTPS://A.B/", "https://a; x", "http://:00", "http://]", "https://a%2eb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, ok := Origin(s)
		if !ok {
			if o != "" {
				t.Fatalf("Origin(%q) = %q, false", s, o)
			}
			return
		}
		if !safeSource.MatchString(o) {
			t.Fatalf("Origin(%q) = %q; not a safe host source", s, o)
		}
		if again, ok := Origin(o); !ok || again != o {
			t.Fatalf("Origin(%q) = %q, %v; want it unchanged", o, again, ok)
		}
	})
}
