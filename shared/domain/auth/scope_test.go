package auth

import (
	"strings"
	"testing"
)

func TestAllScopesUnique(t *testing.T) {
	seen := map[Scope]bool{}
	for _, s := range AllScopes {
		if seen[s] {
			t.Errorf("scope %q listed twice", s)
		}
		seen[s] = true
	}
}

func TestParseScope(t *testing.T) {
	for _, s := range AllScopes {
		t.Run(string(s), func(t *testing.T) {
			got, err := ParseScope(string(s))
			if err != nil || got != s {
				t.Errorf("ParseScope(%q) = %q, %v; want %q, nil", s, got, err, s)
			}
		})
	}
	for _, s := range []string{"", "leads", "leads:*", "LEADS:READ", " leads:read", "leads:read ", "leads:delete"} {
		t.Run("reject "+s, func(t *testing.T) {
			got, err := ParseScope(s)
			if err == nil || got != "" {
				t.Fatalf("ParseScope(%q) = %q, %v; want an error", s, got, err)
			}
			for _, known := range AllScopes {
				if !strings.Contains(err.Error(), string(known)) {
					t.Errorf("ParseScope(%q) error %q does not name known scope %q", s, err, known)
				}
			}
		})
	}
}
