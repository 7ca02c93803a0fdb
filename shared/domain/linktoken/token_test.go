package linktoken

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestNewToken(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		tok, err := New()
		if err != nil {
			t.Fatalf("New() error %v", err)
		}
		if len(tok) != Len {
			t.Fatalf("New() = %q (%d characters); want %d", tok, len(tok), Len)
		}
		raw, err := base64.RawURLEncoding.Strict().DecodeString(tok)
		if err != nil || len(raw) != 32 {
			t.Fatalf("New() = %q decodes to %d bytes, %v; want 32 bytes of base64url", tok, len(raw), err)
		}
		hash, err := Parse(tok)
		if err != nil || hash != Hash(tok) {
			t.Fatalf("Parse(New() = %q) = %q, %v; want %q, nil", tok, hash, err, Hash(tok))
		}
		if seen[tok] {
			t.Fatalf("New() returned %q twice", tok)
		}
		seen[tok] = true
	}
}

func TestTokenHash(t *testing.T) {
	// SHA-256("abc") from FIPS 180-2, appendix B.1.
	const want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := Hash("abc"); got != want {
		t.Errorf("Hash(%q) = %s; want %s", "abc", got, want)
	}
}

// validToken is a well-formed token: 42 characters, then one whose two low
// bits are zero ('A' is 0, 'E' is 4).
var validToken = strings.Repeat("a", 42) + "E"

func TestParseToken(t *testing.T) {
	tests := []struct {
		name string
		s    string
		ok   bool
	}{
		{"valid", validToken, true},
		{"every character class", "AZaz09-_" + strings.Repeat("Q", 34) + "w", true},
		{"empty", "", false},
		{"one short", validToken[1:], false},
		{"one long", validToken + "A", false},
		{"padded", validToken + "=", false},
		{"standard base64 plus", "+" + validToken[1:], false},
		{"standard base64 slash", "/" + validToken[1:], false},
		{"dot", "." + validToken[1:], false},
		{"space", " " + validToken[1:], false},
		{"percent-encoded", "%41" + validToken[3:], false},
		{"non-ASCII", "é" + validToken[2:], false},
		{"NUL", "\x00" + validToken[1:], false},
		{"non-canonical last character", validToken[:42] + "B", false},
		{"non-canonical last character 3", validToken[:42] + "D", false},
		{"api key", "mk_test_" + strings.Repeat("0", 64), false},
		{"uuid", "0b9f1f4e-7c5a-4a43-9d55-0a8d2a0c3e11", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash, err := Parse(tt.s)
			switch {
			case tt.ok && (err != nil || hash != Hash(tt.s)):
				t.Errorf("Parse(%q) = %q, %v; want %q, nil", tt.s, hash, err, Hash(tt.s))
			case !tt.ok && (!errors.Is(err, ErrMalformed) || hash != ""):
				t.Errorf("Parse(%q) = %q, %v; want \"\", ErrMalformed", tt.s, hash, err)
			}
		})
	}
}

// FuzzParseToken: Parse accepts exactly the canonical base64url
// spellings of 32 bytes, and returns their hash.
func FuzzParseToken(f *testing.F) {
	for _, s := range []string{validToken, "", validToken + "=", validToken[:42] + "B", strings.Repeat("/", 43), "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hash, err := Parse(s)
		raw, decErr := base64.RawURLEncoding.Strict().DecodeString(s)
		want := decErr == nil && len(raw) == 32
		if got := err == nil; got != want {
			t.Fatalf("Parse(%q) error %v; want accepted = %v (strict decode: %d bytes, %v)", s, err, want, len(raw), decErr)
		}
		if err == nil && (hash != Hash(s) || base64.RawURLEncoding.EncodeToString(raw) != s) {
			t.Errorf("Parse(%q) = %q; want %q of a canonical spelling", s, hash, Hash(s))
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q) error %v; want ErrMalformed", s, err)
		}
	})
}

func BenchmarkParseTokenRejectsLongSegment(b *testing.B) {
	s := strings.Repeat("A", 1<<20)
	for b.Loop() {
		if _, err := Parse(s); err == nil {
			b.Fatal("Parse accepted a 1 MiB segment")
		}
	}
}

// TestDerivedToken: a derived token has a link token's form, is the
// same for the same key and parts, differs for another key or any other
// part (parts are length-prefixed, so moving a boundary differs too),
// and a short key is refused.
func TestDerivedToken(t *testing.T) {
	key := bytes.Repeat([]byte{7}, MinKey)
	tok, err := Derive(key, "getSurveyLink", "ptn_1", "test", "lead", "k1")
	if err != nil {
		t.Fatal(err)
	}
	if h, err := Parse(tok); err != nil || h != Hash(tok) {
		t.Fatalf("Parse(%q) = %q, %v; want a link token", tok, h, err)
	}
	again, _ := Derive(key, "getSurveyLink", "ptn_1", "test", "lead", "k1")
	if again != tok {
		t.Errorf("same key and parts: %q then %q", tok, again)
	}
	other := bytes.Repeat([]byte{8}, MinKey)
	for name, got := range map[string][]any{
		"another key":      {other, []string{"getSurveyLink", "ptn_1", "test", "lead", "k1"}},
		"another idem key": {key, []string{"getSurveyLink", "ptn_1", "test", "lead", "k2"}},
		"another lead":     {key, []string{"getSurveyLink", "ptn_1", "test", "lead2", "k1"}},
		"another mode":     {key, []string{"getSurveyLink", "ptn_1", "live", "lead", "k1"}},
		"moved boundary":   {key, []string{"getSurveyLink", "ptn_1", "test", "lea", "dk1"}},
	} {
		d, err := Derive(got[0].([]byte), got[1].([]string)...)
		if err != nil || d == tok {
			t.Errorf("%s: %q, %v; want another token", name, d, err)
		}
	}
	if _, err := Derive(key[:MinKey-1], "x"); err == nil {
		t.Error("a 31-byte key was taken")
	}
}
