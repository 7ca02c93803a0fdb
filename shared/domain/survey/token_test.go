package survey

import (
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

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
		tokens = addToken(tokens, StoredToken{Hash: linktoken.Hash(string(rune('a' + i))), IssuedAt: at, ExpiresAt: at.Add(time.Hour)})
	}
	if len(tokens) != MaxTokens {
		t.Fatalf("after %d tokens, %d kept; want %d", MaxTokens+3, len(tokens), MaxTokens)
	}
	if got, want := tokens[0].IssuedAt, t0.Add(3*time.Minute); !got.Equal(want) {
		t.Errorf("oldest kept token issued %s; want %s (the three oldest dropped)", got, want)
	}
	if got, want := tokens[MaxTokens-1].Hash, linktoken.Hash(string(rune('a'+MaxTokens+2))); got != want {
		t.Errorf("newest kept token %s; want %s", got, want)
	}
}
