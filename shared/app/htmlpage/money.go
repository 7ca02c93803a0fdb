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
	neg, u := magnitude(cents)
	sym, code := currencyMarks(currency)
	var b strings.Builder
	writeAmount(&b, neg, sym, u/100)
	frac := u % 100
	b.WriteByte('.')
	b.WriteByte(byte('0' + frac/10))
	b.WriteByte(byte('0' + frac%10))
	b.WriteString(code)
	return b.String()
}

// FormatWholeRange renders a range of whole currency units, as an
// estimate gives one, with the marks of [FormatMoney]: "$1,083–$1,473" in
// US dollars, "1,083–1,473 EUR" otherwise, and one amount, "$1,200", when
// low equals high. The dashboard shows a lead's estimate beside its quote
// (FormatMoney), so the two read alike.
func FormatWholeRange(low, high int64, currency string) string {
	sym, code := currencyMarks(currency)
	var b strings.Builder
	neg, u := magnitude(low)
	writeAmount(&b, neg, sym, u)
	if high != low {
		b.WriteString("–")
		neg, u = magnitude(high)
		writeAmount(&b, neg, sym, u)
	}
	b.WriteString(code)
	return b.String()
}

// magnitude splits n into its sign and absolute value.
func magnitude(n int64) (neg bool, u uint64) {
	u = uint64(n)
	if n < 0 {
		u = -u // two's complement: right for math.MinInt64 too
	}
	return n < 0, u
}

// currencyMarks returns what goes before an amount ("$" for US dollars, an
// empty currency included) and what goes after it (" EUR" for the others;
// a code that is not three ASCII letters as given, trimmed).
func currencyMarks(currency string) (before, after string) {
	code := strings.TrimSpace(currency)
	if code == "" || strings.EqualFold(code, "usd") {
		return "$", ""
	}
	if isLetters(code, 3) {
		code = strings.ToUpper(code)
	}
	return "", " " + code
}

// writeAmount writes the sign when neg, the currency's sign (sym) and u's
// digits grouped in threes with commas: "-$1,200".
func writeAmount(b *strings.Builder, neg bool, sym string, u uint64) {
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(sym)
	digits := strconv.FormatUint(u, 10)
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
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
