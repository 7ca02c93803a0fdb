package estimate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Size is a home size normalised to bedroom-equivalents.
type Size struct {
	Bedrooms int    // 0 = studio, 1..5; larger homes are counted as 5
	Source   string // which rule read it: "studio", "bedrooms" or "sqft"
}

// Sources of a Size.
const (
	sourceStudio   = "studio"
	sourceBedrooms = "bedrooms"
	sourceSqft     = "sqft"
)

// Limits of ParseHomeSize. Sizes above maxBedroomEquivalents still parse, as
// maxBedroomEquivalents, because the hours table stops there; values past the
// absurd limits are more likely typos or jokes than homes, and pricing them
// would show a partner a meaningless figure.
const (
	maxBedroomEquivalents = 5
	maxBedrooms           = 15
	minSqft               = 100
	maxSqft               = 20_000
)

// sqftBands maps floor area to bedroom-equivalents: a home of at least
// sqftBands[i] square feet counts as i+1 bedrooms. The bands follow typical
// US floor areas (a one-bedroom flat is 600–900 sq ft, a four-bedroom house
// 2,000–2,800).
var sqftBands = [maxBedroomEquivalents]int64{600, 900, 1300, 2000, 2800}

// ParseHomeSize reads a free-text home size, case-insensitively, as
// bedroom-equivalents. In order of precedence it looks for
//
//   - a bedroom count: a number (digits, possibly decimal, or a word "zero" to
//     "twelve") followed, after optional spaces, hyphens or a "+", by a bedroom
//     word ("bedroom", "bed", "br", "bd", "bdrm", "b/r", ...): "3br",
//     "two bedroom apartment", "5+ bedrooms". The first such count is used; a
//     fraction rounds up; 0 is a studio; 6 to 15 count as 5; more than 15 is
//     rejected.
//   - a floor area: a number of digits followed by a square-feet unit such
//     as "sq ft", "sqft", "sq. ft.", "square feet", "sf" or "ft²", mapped through
//     the bands 600/900/1,300/2,000/2,800 sq ft to 1..5 bedrooms; below 600
//     is a studio; below 100 or above 20,000 is rejected.
//   - the word "studio" or "efficiency".
//
// Anything else in the text ("+ office", "house", "2 bath") is ignored. It
// returns false when no rule reads a size or the size read is absurd.
func ParseHomeSize(s string) (Size, bool) {
	var buf [32]token // most home sizes are a few words; this avoids the heap
	toks := lex(buf[:0], strings.ToLower(s))
	for i, t := range toks {
		n, ok := t.count()
		if !ok || !isBedroomUnit(toks, skipSeparators(toks, i+1)) {
			continue
		}
		if t.frac {
			n++ // 2.5 bedrooms hold more than 2.
		}
		if n > maxBedrooms {
			return Size{}, false
		}
		return Size{Bedrooms: int(min(n, maxBedroomEquivalents)), Source: sourceBedrooms}, true
	}
	for i, t := range toks {
		if t.kind != tokNumber || !isSqftUnit(toks, skipSeparators(toks, i+1)) {
			continue
		}
		if t.n < minSqft || t.n > maxSqft {
			return Size{}, false
		}
		b := 0
		for b < len(sqftBands) && t.n >= sqftBands[b] {
			b++
		}
		return Size{Bedrooms: b, Source: sourceSqft}, true
	}
	for _, t := range toks {
		if t.is("studio") || t.is("studios") || t.is("efficiency") {
			return Size{Bedrooms: 0, Source: sourceStudio}, true
		}
	}
	return Size{}, false
}

// isBedroomUnit reports whether a bedroom word starts at toks[i].
func isBedroomUnit(toks []token, i int) bool {
	if i >= len(toks) {
		return false
	}
	switch t := toks[i]; {
	case t.kind != tokWord:
		return false
	case t.text == "b": // "b/r"
		return i+2 < len(toks) && toks[i+1].is("/") && toks[i+2].is("r")
	}
	switch toks[i].text {
	case "bedroom", "bedrooms", "bed", "beds", "br", "brs", "bd", "bds",
		"bdr", "bdrs", "bdrm", "bdrms", "bedrm", "bedrms":
		return true
	}
	return false
}

// isSqftUnit reports whether a square-feet unit starts at toks[i].
func isSqftUnit(toks []token, i int) bool {
	at := func(j int, words ...string) bool {
		if j >= len(toks) {
			return false
		}
		for _, w := range words {
			if toks[j].is(w) {
				return true
			}
		}
		return false
	}
	switch {
	case at(i, "sqft", "sf", "sqfeet"):
		return true
	case at(i, "sq", "square"):
		i++
		if at(i, ".") {
			i++
		}
		return at(i, "ft", "feet", "foot")
	case at(i, "ft", "feet"):
		i++
		if at(i, "^") {
			i++
		}
		return at(i, "²") || (at(i, "2") && toks[i].joined)
	}
	return false
}

// skipSeparators returns the index of the first token at or after i that is
// not a hyphen, dash, underscore or plus, which may sit between a number and
// its unit ("3-bed", "5+ bedrooms").
func skipSeparators(toks []token, i int) int {
	for i < len(toks) && (toks[i].is("-") || toks[i].is("–") || toks[i].is("—") || toks[i].is("_") || toks[i].is("+")) {
		i++
	}
	return i
}

// tokKind is the kind of a token.
type tokKind uint8

const (
	tokNumber tokKind = iota // a run of digits: "1,800", "2.5"
	tokWord                  // a run of letters: "bedroom"
	tokPunct                 // any other single rune that is not a space
)

// token is one lexeme of a home size. Text is a slice of the lowercased input.
type token struct {
	kind   tokKind
	text   string
	n      int64 // tokNumber: the integer part, saturated at maxLexNumber
	frac   bool  // tokNumber: has a non-zero fractional part
	joined bool  // no space before it: "ft2" but not "ft 2"
}

// numberWords are the bedroom counts that may be spelled out, indexed by
// their value.
var numberWords = [...]string{"zero", "one", "two", "three", "four", "five", "six",
	"seven", "eight", "nine", "ten", "eleven", "twelve"}

// maxLexNumber caps numbers so that absurd input saturates instead of
// overflowing; it is far above every limit that ParseHomeSize checks.
const maxLexNumber = 1_000_000_000

// is reports whether t is exactly text.
func (t token) is(text string) bool { return t.text == text }

// count returns the number t stands for, as digits or as a word.
func (t token) count() (int64, bool) {
	if t.kind == tokNumber {
		return t.n, true
	}
	if t.kind != tokWord {
		return 0, false
	}
	for i, w := range numberWords {
		if t.text == w {
			return int64(i), true
		}
	}
	return 0, false
}

// lex appends to toks the numbers, words and single punctuation runes of s,
// dropping spaces. A comma inside a number is a thousands separator only when exactly
// three digits follow it ("1,800"), so "3,4 bedroom" reads as 3 and 4.
func lex(toks []token, s string) []token {
	joined := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
			joined = false
			continue
		case isDigit(s[i]):
			t, end := lexNumber(s, i)
			t.joined = joined
			toks = append(toks, t)
			i = end
		case unicode.IsLetter(r):
			end := i + size
			for end < len(s) {
				r2, size2 := utf8.DecodeRuneInString(s[end:])
				if !unicode.IsLetter(r2) {
					break
				}
				end += size2
			}
			toks = append(toks, token{kind: tokWord, text: s[i:end], joined: joined})
			i = end
		default:
			toks = append(toks, token{kind: tokPunct, text: s[i : i+size], joined: joined})
			i += size
		}
		joined = true
	}
	return toks
}

// lexNumber reads the number that starts at s[i], a digit, and returns it
// with the index just past it.
func lexNumber(s string, i int) (token, int) {
	t := token{kind: tokNumber}
	start := i
	add := func(d byte) {
		t.n = min(t.n*10+int64(d-'0'), maxLexNumber)
	}
	for i < len(s) && isDigit(s[i]) {
		add(s[i])
		i++
	}
	for isThousandsGroup(s, i) {
		add(s[i+1])
		add(s[i+2])
		add(s[i+3])
		i += 4
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			t.frac = t.frac || s[i] != '0'
			i++
		}
	}
	t.text = s[start:i]
	return t, i
}

// isThousandsGroup reports whether s[i:] starts with a comma and exactly
// three digits.
func isThousandsGroup(s string, i int) bool {
	if i+3 >= len(s) || s[i] != ',' {
		return false
	}
	if !isDigit(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
		return false
	}
	return i+4 == len(s) || !isDigit(s[i+4])
}

// isDigit reports whether b is an ASCII digit.
func isDigit(b byte) bool { return '0' <= b && b <= '9' }
