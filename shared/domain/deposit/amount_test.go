package deposit

import (
	"errors"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

func TestAmount(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	tests := []struct {
		name      string
		requested *int64
		def       int64
		want      int64
		wantCode  errcode.Code // "" = success, or an internal error when wantErr
		wantErr   bool
	}{
		{"requested minimum", n(100), 0, 100, "", false},
		{"requested maximum", n(500000), 20000, 500000, "", false},
		{"requested wins over the default", n(7500), 20000, 7500, "", false},
		{"default when absent", nil, 20000, 20000, "", false},
		{"below minimum", n(99), 20000, 0, errcode.ValidationFailed, true},
		{"above maximum", n(500001), 20000, 0, errcode.ValidationFailed, true},
		{"zero", n(0), 20000, 0, errcode.ValidationFailed, true},
		{"negative", n(-100), 20000, 0, errcode.ValidationFailed, true},
		{"absent without default", nil, 0, 0, errcode.ValidationFailed, true},
		{"misconfigured default", nil, 50, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Amount(tt.requested, tt.def)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("Amount() = %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
			if !tt.wantErr {
				return
			}
			e := errcode.As(err)
			switch {
			case tt.wantCode == "" && e != nil:
				t.Errorf("Amount() error has code %s; want an internal error", e.Code)
			case tt.wantCode != "" && (e == nil || e.Code != tt.wantCode):
				t.Errorf("Amount() = %v; want code %s", err, tt.wantCode)
			case tt.wantCode != "":
				fields, _ := e.Details["fields"].(map[string]any)
				if _, ok := fields["amount_cents"]; !ok || len(fields) != 1 {
					t.Errorf("details.fields = %v; want only amount_cents", e.Details["fields"])
				}
			}
		})
	}
	if _, err := Amount(nil, 0); !errors.Is(err, ErrNoAmount) {
		t.Errorf("Amount(nil, 0) = %v; want ErrNoAmount in the chain", err)
	}
}

func TestNormalizeCurrency(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"usd", "usd", false},
		{"USD", "usd", false},
		{" cad ", "cad", false},
		{"eur", "eur", false},
		{"", "", true},
		{"us", "", true},
		{"usdd", "", true},
		{"u$d", "", true},
		{"ùsd", "", true},
		{"jpy", "", true},
		{"KWD", "", true},
	}
	for _, tt := range tests {
		got, err := NormalizeCurrency(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("NormalizeCurrency(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestCheckoutExpiresAt(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 500_000_000, time.UTC) // half a second
	tests := []struct {
		name    string
		ttl     time.Duration
		want    time.Time
		wantErr bool
	}{
		{"default is a minute short of 24 h", 0, now.Add(24*time.Hour - time.Minute + 500*time.Millisecond), false},
		{"24 h", 24 * time.Hour, now.Add(24*time.Hour - time.Minute + 500*time.Millisecond), false},
		{"2 h", 2 * time.Hour, now.Add(2*time.Hour + 500*time.Millisecond), false},
		{"30 min gets a minute more", 30 * time.Minute, now.Add(31*time.Minute + 500*time.Millisecond), false},
		{"29 min", 29 * time.Minute, time.Time{}, true},
		{"over 24 h", 24*time.Hour + time.Second, time.Time{}, true},
		{"negative", -time.Hour, time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckoutExpiresAt(now, tt.ttl)
			if !got.Equal(tt.want) || (err != nil) != tt.wantErr {
				t.Fatalf("CheckoutExpiresAt(%v) = %v, %v; want %v, error %v", tt.ttl, got, err, tt.want, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got.Nanosecond() != 0 {
				t.Errorf("expires_at %v is not whole seconds", got)
			}
			if d := got.Sub(now); d < MinCheckoutTTL || d > MaxCheckoutTTL {
				t.Errorf("expires_at is %v after now; want within Stripe's bounds", d)
			}
		})
	}
}
