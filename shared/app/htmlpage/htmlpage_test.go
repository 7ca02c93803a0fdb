package htmlpage

import "testing"

func TestHash(t *testing.T) {
	for in, want := range map[string]string{
		// The example of the CSP Level 3 specification (§ 2.3.1,
		// "hash-source"), and the SHA-256 of nothing.
		"alert('Hello, world.');": "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='",
		"":                        "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
	} {
		if got := Hash(in); got != want {
			t.Errorf("Hash(%q) = %s; want %s", in, got, want)
		}
	}
}
