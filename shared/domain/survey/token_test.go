package survey

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNewToken(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		tok, err := NewToken()
		if err != nil {
			t.Fatalf("NewToken() error %v", err)
		}
		if len(tok) != TokenLen {
			t.Fatalf("NewToken() = %q (%d characters); want %d", tok, len(tok), TokenLen)
		}
		raw, err := base64.RawURLEncoding.Strict().DecodeString(tok)
		if err != nil || len(raw) != 32 {
			t.Fatalf("NewToken() = %q decodes to %d bytes, %v; want 32 bytes of base64url", tok, len(raw), err)
		}
		hash, err := ParseToken(tok)
		if err != nil || hash != TokenHash(tok) {
			t.Fatalf("ParseToken(NewToken() = %q) = %q, %v; want %q, nil", tok, hash, err, TokenHash(tok))
		}
		if seen[tok] {
			t.Fatalf("NewToken() returned %q twice", tok)
		}
		seen[tok] = true
	}
}

func TestTokenHash(t *testing.T) {
	// SHA-256("abc") from FIPS 180-2, appendix B.1.
	const want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := TokenHash("abc"); got != want {
		t.Errorf("TokenHash(%q) = %s; want %s", "abc", got, want)
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
			hash, err := ParseToken(tt.s)
			switch {
			case tt.ok && (err != nil || hash != TokenHash(tt.s)):
				t.Errorf("ParseToken(%q) = %q, %v; want %q, nil", tt.s, hash, err, TokenHash(tt.s))
			case !tt.ok && (!errors.Is(err, ErrMalformedToken) || hash != ""):
				t.Errorf("ParseToken(%q) = %q, %v; want \"\", ErrMalformedToken", tt.s, hash, err)
			}
		})
	}
}

// FuzzParseToken: ParseToken accepts exactly the canonical base64url
// spellings of 32 bytes, and returns their hash.
func FuzzParseToken(f *testing.F) {
	for _, s := range []string{validToken, "", validToken + "=", validToken[:42] + "B", strings.Repeat("/", 43), "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hash, err := ParseToken(s)
		raw, decErr := base64.RawURLEncoding.Strict().DecodeString(s)
		want := decErr == nil && len(raw) == 32
		if got := err == nil; got != want {
			t.Fatalf("ParseToken(%q) error %v; want accepted = %v (strict decode: %d bytes, %v)", s, err, want, len(raw), decErr)
		}
		if err == nil && (hash != TokenHash(s) || base64.RawURLEncoding.EncodeToString(raw) != s) {
			t.Errorf("ParseToken(%q) = %q; want %q of a canonical spelling", s, hash, TokenHash(s))
		}
		if err != nil && !errors.Is(err, ErrMalformedToken) {
			t.Errorf("ParseToken(%q) error %v; want ErrMalformedToken", s, err)
		}
	})
}

func BenchmarkParseTokenRejectsLongSegment(b *testing.B) {
	s := strings.Repeat("A", 1<<20)
	for b.Loop() {
		if _, err := ParseToken(s); err == nil {
			b.Fatal("ParseToken accepted a 1 MiB segment")
		}
	}
}

func TestCheckTokenLifetime(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		ok   bool
	}{
		{"default", DefaultTokenLifetime, true},
		{"minimum", MinTokenLifetime, true},
		{"maximum", MaxTokenLifetime, true},
		{"below minimum", MinTokenLifetime - time.Second, false},
		{"above maximum", MaxTokenLifetime + time.Second, false},
		{"zero", 0, false},
		{"negative", -time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckTokenLifetime(tt.d); (err == nil) != tt.ok {
				t.Errorf("CheckTokenLifetime(%s) = %v; want ok = %v", tt.d, err, tt.ok)
			}
		})
	}
}

func TestAddTokenKeepsNewest(t *testing.T) {
	t0 := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)
	var tokens []StoredToken
	for i := range MaxTokens + 3 {
		at := t0.Add(time.Duration(i) * time.Minute)
		tokens = addToken(tokens, StoredToken{Hash: TokenHash(string(rune('a' + i))), IssuedAt: at, ExpiresAt: at.Add(time.Hour)})
	}
	if len(tokens) != MaxTokens {
		t.Fatalf("after %d tokens, %d kept; want %d", MaxTokens+3, len(tokens), MaxTokens)
	}
	if got, want := tokens[0].IssuedAt, t0.Add(3*time.Minute); !got.Equal(want) {
		t.Errorf("oldest kept token issued %s; want %s (the three oldest dropped)", got, want)
	}
	if got, want := tokens[MaxTokens-1].Hash, TokenHash(string(rune('a'+MaxTokens+2))); got != want {
		t.Errorf("newest kept token %s; want %s", got, want)
	}
}

// TestDerivedToken: a derived token has a capture token's form, is the
// same for the same key and parts, differs for another key or any other
// part (parts are length-prefixed, so moving a boundary differs too),
// and a short key is refused.
func TestDerivedToken(t *testing.T) {
	key := bytes.Repeat([]byte{7}, MinLinkKey)
	tok, err := DerivedToken(key, "getSurveyLink", "ptn_1", "test", "lead", "k1")
	if err != nil {
		t.Fatal(err)
	}
	if h, err := ParseToken(tok); err != nil || h != TokenHash(tok) {
		t.Fatalf("ParseToken(%q) = %q, %v; want a capture token", tok, h, err)
	}
	again, _ := DerivedToken(key, "getSurveyLink", "ptn_1", "test", "lead", "k1")
	if again != tok {
		t.Errorf("same key and parts: %q then %q", tok, again)
	}
	other := bytes.Repeat([]byte{8}, MinLinkKey)
	for name, got := range map[string][]any{
		"another key":      {other, []string{"getSurveyLink", "ptn_1", "test", "lead", "k1"}},
		"another idem key": {key, []string{"getSurveyLink", "ptn_1", "test", "lead", "k2"}},
		"another lead":     {key, []string{"getSurveyLink", "ptn_1", "test", "lead2", "k1"}},
		"another mode":     {key, []string{"getSurveyLink", "ptn_1", "live", "lead", "k1"}},
		"moved boundary":   {key, []string{"getSurveyLink", "ptn_1", "test", "lea", "dk1"}},
	} {
		d, err := DerivedToken(got[0].([]byte), got[1].([]string)...)
		if err != nil || d == tok {
			t.Errorf("%s: %q, %v; want another token", name, d, err)
		}
	}
	if _, err := DerivedToken(key[:MinLinkKey-1], "x"); err == nil {
		t.Error("a 31-byte key was taken")
	}
}
