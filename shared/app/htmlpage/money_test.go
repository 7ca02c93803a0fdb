package htmlpage

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestFormatMoney(t *testing.T) {
	tests := []struct {
		cents    int64
		currency string
		want     string
	}{
		{245000, "usd", "$2,450.00"},
		{25000, "usd", "$250.00"},
		{0, "usd", "$0.00"},
		{1, "usd", "$0.01"},
		{99, "usd", "$0.99"},
		{100, "usd", "$1.00"},
		{100000, "usd", "$1,000.00"},
		{99999, "usd", "$999.99"},
		{123456789, "usd", "$1,234,567.89"},
		{100000000, "usd", "$1,000,000.00"},
		{-500, "usd", "-$5.00"},
		{245000, "USD", "$2,450.00"},
		{245000, "", "$2,450.00"},
		{245000, "eur", "2,450.00 EUR"},
		{245000, "cad", "2,450.00 CAD"},
		{5, "gbp", "0.05 GBP"},
		{-123456, "eur", "-1,234.56 EUR"},
		{245000, " eur ", "2,450.00 EUR"},
		{245000, "euro", "2,450.00 euro"},
		{math.MaxInt64, "usd", "$92,233,720,368,547,758.07"},
		{math.MinInt64, "usd", "-$92,233,720,368,547,758.08"},
	}
	for _, tt := range tests {
		if got := FormatMoney(tt.cents, tt.currency); got != tt.want {
			t.Errorf("FormatMoney(%d, %q) = %q; want %q", tt.cents, tt.currency, got, tt.want)
		}
	}
}

// FuzzFormatMoney: whatever the amount, the text reads back as the same
// number of cents, with its digits grouped in threes, two decimals, the
// dollar sign for US dollars and the code after the number otherwise.
func FuzzFormatMoney(f *testing.F) {
	for _, c := range []int64{0, 1, 99, 100, 245000, -1, -100000, math.MaxInt64, math.MinInt64} {
		f.Add(c, "usd")
		f.Add(c, "eur")
	}
	f.Fuzz(func(t *testing.T, cents int64, currency string) {
		s := FormatMoney(cents, currency)
		rest := s
		neg := strings.HasPrefix(rest, "-")
		rest = strings.TrimPrefix(rest, "-")
		if neg != (cents < 0) {
			t.Fatalf("FormatMoney(%d, %q) = %q: sign", cents, currency, s)
		}
		code := strings.TrimSpace(currency)
		if code == "" || strings.EqualFold(code, "usd") {
			if !strings.HasPrefix(rest, "$") {
				t.Fatalf("FormatMoney(%d, %q) = %q; want a dollar sign", cents, currency, s)
			}
			rest = rest[1:]
		} else {
			num, after, ok := strings.Cut(rest, " ")
			if !ok || !strings.EqualFold(after, code) {
				t.Fatalf("FormatMoney(%d, %q) = %q; want the code after the number", cents, currency, s)
			}
			rest = num
		}
		whole, frac, ok := strings.Cut(rest, ".")
		if !ok || len(frac) != 2 {
			t.Fatalf("FormatMoney(%d, %q) = %q; want two decimals", cents, currency, s)
		}
		groups := strings.Split(whole, ",")
		for i, g := range groups {
			if (i == 0 && (len(g) < 1 || len(g) > 3)) || (i > 0 && len(g) != 3) {
				t.Fatalf("FormatMoney(%d, %q) = %q; digits grouped wrong", cents, currency, s)
			}
		}
		u, err := strconv.ParseUint(strings.Join(groups, "")+frac, 10, 64)
		if err != nil {
			t.Fatalf("FormatMoney(%d, %q) = %q: %v", cents, currency, s, err)
		}
		want := uint64(cents)
		if cents < 0 {
			want = -want
		}
		if u != want {
			t.Fatalf("FormatMoney(%d, %q) = %q reads back as %d cents", cents, currency, s, u)
		}
	})
}

func TestFormatWholeRange(t *testing.T) {
	tests := []struct {
		low, high int64
		currency  string
		want      string
	}{
		{1083, 1473, "usd", "$1,083–$1,473"},
		{1200, 1200, "usd", "$1,200"},
		{0, 950, "", "$0–$950"},
		{1083, 1473, "eur", "1,083–1,473 EUR"},
		{999999, 1000000, "cad", "999,999–1,000,000 CAD"},
		{-5, 5, "usd", "-$5–$5"},
		{1, 2, "euro", "1–2 euro"},
		{math.MinInt64, math.MaxInt64, "usd", "-$9,223,372,036,854,775,808–$9,223,372,036,854,775,807"},
	}
	for _, tt := range tests {
		if got := FormatWholeRange(tt.low, tt.high, tt.currency); got != tt.want {
			t.Errorf("FormatWholeRange(%d, %d, %q) = %q; want %q", tt.low, tt.high, tt.currency, got, tt.want)
		}
	}
}
