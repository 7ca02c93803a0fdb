package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// isLowerHex reports whether s is non-empty and only 0-9a-f.
func isLowerHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"test", Test, false},
		{"live", Live, false},
		{"", "", true},
		{"Test", "", true},
		{"LIVE", "", true},
		{"prod", "", true},
		{" test", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMode(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestModePrefix(t *testing.T) {
	tests := []struct {
		mode Mode
		want string
	}{
		{Test, "mk_test_"},
		{Live, "mk_live_"},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			if got := tt.mode.Prefix(); got != tt.want {
				t.Errorf("%q.Prefix() = %q; want %q", tt.mode, got, tt.want)
			}
		})
	}
}

func TestNewKeyFormat(t *testing.T) {
	for _, mode := range []Mode{Test, Live} {
		t.Run(string(mode), func(t *testing.T) {
			key, keyID, err := NewKey(mode)
			if err != nil {
				t.Fatalf("NewKey(%q): %v", mode, err)
			}
			secret, ok := strings.CutPrefix(key, mode.Prefix())
			if !ok {
				t.Fatalf("key %q lacks prefix %q", key, mode.Prefix())
			}
			if len(secret) != 64 || !isLowerHex(secret) {
				t.Errorf("key secret %q: got %d chars; want 64 lowercase hex digits", secret, len(secret))
			}
			id, ok := strings.CutPrefix(keyID, "key_")
			if !ok || len(id) != 16 || !isLowerHex(id) {
				t.Errorf("key id %q; want key_ followed by 16 lowercase hex digits", keyID)
			}
			gotMode, digest, ok := ParseKey(key)
			if !ok || gotMode != mode || digest != Digest(key) {
				t.Errorf("ParseKey(NewKey(%q)) = %q, %q, %v; want %q, %q, true", mode, gotMode, digest, ok, mode, Digest(key))
			}
		})
	}
}

func TestNewKeyUnique(t *testing.T) {
	const n = 5000
	keys := make(map[string]bool, n)
	ids := make(map[string]bool, n)
	for i := 0; i < n; i++ {
		key, id, err := NewKey(Live)
		if err != nil {
			t.Fatalf("NewKey: %v", err)
		}
		if keys[key] {
			t.Fatalf("key %q generated twice in %d keys", key, i+1)
		}
		if ids[id] {
			t.Fatalf("key id %q generated twice in %d keys", id, i+1)
		}
		keys[key], ids[id] = true, true
	}
}

func TestParseKey(t *testing.T) {
	hex64 := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		name     string
		key      string
		wantMode Mode
		wantOK   bool
	}{
		{"test key", "mk_test_" + hex64, Test, true},
		{"live key", "mk_live_" + hex64, Live, true},
		{"all zeros", "mk_live_" + strings.Repeat("0", 64), Live, true},
		{"empty", "", "", false},
		{"test prefix only", "mk_test_", "", false},
		{"live prefix only", "mk_live_", "", false},
		{"unknown mode", "mk_prod_" + hex64, "", false},
		{"no mode", "mk_" + hex64, "", false},
		{"other vendor prefix", "sk_test_" + hex64, "", false},
		{"upper-case prefix", "MK_TEST_" + hex64, "", false},
		{"bare secret", hex64, "", false},
		{"63 hex digits", "mk_test_" + hex64[:63], "", false},
		{"65 hex digits", "mk_test_" + hex64 + "0", "", false},
		{"128 hex digits", "mk_test_" + hex64 + hex64, "", false},
		{"upper-case hex", "mk_test_" + strings.ToUpper(hex64), "", false},
		{"one upper-case digit", "mk_test_" + hex64[:63] + "F", "", false},
		{"non-hex letter", "mk_test_" + hex64[:63] + "g", "", false},
		{"space inside", "mk_test_" + hex64[:32] + " " + hex64[33:], "", false},
		{"trailing newline", "mk_test_" + hex64[:63] + "\n", "", false},
		{"leading space", " mk_test_" + hex64, "", false},
		{"multi-byte rune", "mk_test_" + hex64[:62] + "é", "", false},
		{"NUL byte", "mk_test_" + hex64[:63] + "\x00", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode, digest, ok := ParseKey(tt.key)
			if ok != tt.wantOK || mode != tt.wantMode {
				t.Fatalf("ParseKey(%q) = %q, _, %v; want %q, _, %v", tt.key, mode, ok, tt.wantMode, tt.wantOK)
			}
			want := ""
			if tt.wantOK {
				want = Digest(tt.key)
			}
			if digest != want {
				t.Errorf("ParseKey(%q) digest = %q; want %q", tt.key, digest, want)
			}
		})
	}
}

func TestDigest(t *testing.T) {
	tests := []struct {
		name, key, want string
	}{
		// Known SHA-256 vectors, so the digest is checked against the
		// algorithm rather than against itself.
		{"empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Digest(tt.key); got != tt.want {
				t.Errorf("Digest(%q) = %q; want %q", tt.key, got, tt.want)
			}
		})
	}
	t.Run("api key", func(t *testing.T) {
		key := "mk_live_" + strings.Repeat("ab", 32)
		sum := sha256.Sum256([]byte(key))
		if got, want := Digest(key), hex.EncodeToString(sum[:]); got != want {
			t.Errorf("Digest(%q) = %q; want %q", key, got, want)
		}
		if Digest(key) == Digest("mk_test_"+strings.Repeat("ab", 32)) {
			t.Error("test and live keys with the same secret have the same digest; want different")
		}
	})
}

func TestBearerKey(t *testing.T) {
	tests := []struct {
		name    string
		header  string
		wantKey string
		wantOK  bool
	}{
		{"canonical", "Bearer mk_test_abc", "mk_test_abc", true},
		{"lower-case scheme", "bearer mk_test_abc", "mk_test_abc", true},
		{"upper-case scheme", "BEARER mk_test_abc", "mk_test_abc", true},
		{"mixed-case scheme", "bEaReR mk_test_abc", "mk_test_abc", true},
		{"several spaces between", "Bearer    mk_test_abc", "mk_test_abc", true},
		{"surrounding spaces", "  Bearer mk_test_abc  ", "mk_test_abc", true},
		{"trailing tab", "Bearer mk_test_abc\t", "mk_test_abc", true},
		// The key keeps inner text; ParseKey then rejects it.
		{"two words after scheme", "Bearer a b", "a b", true},
		{"empty", "", "", false},
		{"spaces only", "   ", "", false},
		{"scheme only", "Bearer", "", false},
		{"scheme and space", "Bearer ", "", false},
		{"scheme and spaces", "Bearer     ", "", false},
		{"key without scheme", "mk_test_abc", "", false},
		{"basic scheme", "Basic dXNlcjpwYXNz", "", false},
		{"token scheme", "Token mk_test_abc", "", false},
		{"scheme prefix", "Bear mk_test_abc", "", false},
		{"scheme joined to key", "Bearermk_test_abc", "", false},
		{"colon separator", "Bearer:mk_test_abc", "", false},
		{"tab separator", "Bearer\tmk_test_abc", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, ok := BearerKey(tt.header)
			if key != tt.wantKey || ok != tt.wantOK {
				t.Errorf("BearerKey(%q) = %q, %v; want %q, %v", tt.header, key, ok, tt.wantKey, tt.wantOK)
			}
		})
	}
}

func FuzzParseKey(f *testing.F) {
	hex64 := strings.Repeat("0123456789abcdef", 4)
	for _, s := range []string{
		"", "mk_test_", "mk_live_", "mk_test_" + hex64, "mk_live_" + hex64,
		"mk_test_" + strings.ToUpper(hex64), "mk_live_" + hex64[:63] + "g", "mk_prod_" + hex64,
		"mk_test_" + hex64 + "0", "mk_live_" + hex64[:62] + "é", "\xffmk_test_",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		mode, digest, ok := ParseKey(key)
		if !ok {
			if mode != "" || digest != "" {
				t.Errorf("ParseKey(%q) = %q, %q, false; want empty mode and digest", key, mode, digest)
			}
			return
		}
		if len(digest) != 64 || !isLowerHex(digest) {
			t.Errorf("ParseKey(%q) digest = %q; want 64 lowercase hex digits", key, digest)
		}
		if digest != Digest(key) {
			t.Errorf("ParseKey(%q) digest = %q; want Digest(key) = %q", key, digest, Digest(key))
		}
		if mode != Test && mode != Live {
			t.Errorf("ParseKey(%q) mode = %q; want test or live", key, mode)
		}
		secret, hasPrefix := strings.CutPrefix(key, mode.Prefix())
		if !hasPrefix || len(secret) != 64 || !isLowerHex(secret) {
			t.Errorf("ParseKey(%q) = %q, _, true; want a %q key with 64 lowercase hex digits", key, mode, mode.Prefix())
		}
	})
}

func FuzzBearerKey(f *testing.F) {
	for _, s := range []string{
		"", "Bearer mk_test_abc", "bearer  x", "Bearer", "Bearer ", "Basic abc", " Bearer x ", "Bearer\tx",
		"BEARER a b c", "Bearer \xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		key, ok := BearerKey(header)
		if !ok {
			if key != "" {
				t.Errorf("BearerKey(%q) = %q, false; want empty key", header, key)
			}
			return
		}
		if key == "" || key != strings.TrimSpace(key) {
			t.Errorf("BearerKey(%q) = %q, true; want a non-empty trimmed key", header, key)
		}
		scheme, rest, _ := strings.Cut(strings.TrimSpace(header), " ")
		if !strings.EqualFold(scheme, "bearer") {
			t.Errorf("BearerKey(%q) = %q, true; want false for scheme %q", header, key, scheme)
		}
		if strings.TrimSpace(rest) != key {
			t.Errorf("BearerKey(%q) = %q; want the trimmed header text after the scheme", header, key)
		}
	})
}
