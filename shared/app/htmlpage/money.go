package htmlpage

import (
	"strconv"
	"strings"
)

// FormatMoney renders an amount in hundredths of currency (a lowercase ISO
// 4217 code, as the quote stores it) the way a customer reads it: US
// dollars with the sign, "$2,450.00"; any other currency with its code
// after the number, "2,450.00 EUR", which no reader mistakes for another
// dollar. A negative amount reads "-$5.00". An empty currency is US
// dollars, the currency of every rate card that names none.
//
// Every currency a quote may be in counts in hundredths (the service
// refuses the others: deposit.NormalizeCurrency), so there are always two
// decimals. A currency that is not three ASCII letters is shown as given,
// trimmed; the caller escapes the result like any text.
func FormatMoney(cents int64, currency string) string {
	neg := cents < 0
	u := uint64(cents)
	if neg {
		u = -u // two's complement: right for math.MinInt64 too
	}
	whole, frac := u/100, u%100
	digits := strconv.FormatUint(whole, 10)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	code := strings.TrimSpace(currency)
	usd := code == "" || strings.EqualFold(code, "usd")
	if usd {
		b.WriteByte('$')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	b.WriteByte('.')
	b.WriteByte(byte('0' + frac/10))
	b.WriteByte(byte('0' + frac%10))
	if !usd {
		if isLetters(code, 3) {
			code = strings.ToUpper(code)
		}
		b.WriteString(" " + code)
	}
	return b.String()
}

// isLetters reports whether s is n ASCII letters.
func isLetters(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
