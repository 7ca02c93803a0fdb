package lead

import (
	"fmt"
	"strings"
	"unicode"
)

// bidiOverrides are the Unicode bidirectional embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069). They reorder how the text around
// them is shown, so "Ada\u202Egnp.exe" reads differently from what it holds
// ("Trojan Source"); a lead's name or address never needs them. The bidi
// marks U+200E, U+200F and U+061C (also in unicode.Bidi_Control) are left
// alone: they do not reorder text, and right-to-left writers type them.
var bidiOverrides = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x202A, Hi: 0x202E, Stride: 1},
	{Lo: 0x2066, Hi: 0x2069, Stride: 1},
}}

// charNames names the characters a reason is likely to mention.
var charNames = map[rune]string{
	0x00: "null", 0x09: "tab", 0x0A: "line feed", 0x0B: "vertical tab", 0x0C: "form feed",
	0x0D: "carriage return", 0x1B: "escape", 0x7F: "delete", 0x85: "next line",
	0x2028: "line separator", 0x2029: "paragraph separator",
	0x202A: "left-to-right embedding", 0x202B: "right-to-left embedding", 0x202C: "pop directional formatting",
	0x202D: "left-to-right override", 0x202E: "right-to-left override",
	0x2066: "left-to-right isolate", 0x2067: "right-to-left isolate", 0x2068: "first strong isolate",
	0x2069: "pop directional isolate",
}

// charName renders r as U+XXXX with its name when it has one in charNames.
func charName(r rune) string {
	if name, ok := charNames[r]; ok {
		return fmt.Sprintf("U+%04X (%s)", r, name)
	}
	return fmt.Sprintf("U+%04X", r)
}

// isLineBreak reports whether r ends a line: LF, CR, or the Unicode line and
// paragraph separators.
func isLineBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
}

// normaliseLines rewrites the line breaks and tabs a multi-line field may hold
// into one form: CRLF, CR, U+2028 and U+2029 become LF, and TAB becomes a
// space. A textarea sends CRLF or LF depending on the browser, and a
// spreadsheet cell pasted into a form brings tabs; storing one form keeps
// equal addresses equal.
func normaliseLines(s string) string {
	if !strings.ContainsAny(s, "\r\t\u2028\u2029") {
		return s
	}
	return strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n", "\t", " ").Replace(s)
}

// textReason returns why s cannot be stored as text, or "" when it can. It
// rejects every control character (C0, DEL and C1: unicode.Cc) and the bidi
// overrides and isolates. When multiline is true, TAB and line breaks are
// allowed (the caller normalises them with normaliseLines); otherwise line
// breaks, including U+2028 and U+2029, are rejected too.
func textReason(s string, multiline bool) string {
	for _, r := range s {
		switch {
		case multiline && (r == '\t' || isLineBreak(r)):
		case isLineBreak(r) || r == '\t':
			return fmt.Sprintf("contains the control character %s; only from_address and to_address may hold tabs or line breaks", charName(r))
		case unicode.Is(unicode.Cc, r):
			return fmt.Sprintf("contains the control character %s", charName(r))
		case unicode.Is(bidiOverrides, r):
			return fmt.Sprintf("contains the bidirectional formatting character %s, which can disguise the text", charName(r))
		}
	}
	return ""
}

// isInvisible reports whether r shows nothing by itself: white space, a format
// character (unicode.Cf: zero-width space U+200B, ZWNJ U+200C, ZWJ U+200D,
// word joiner U+2060, BOM U+FEFF, soft hyphen U+00AD, …), a variation
// selector, or another default-ignorable code point such as the Hangul
// filler U+3164.
func isInvisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// invisibleOnly reports whether s holds no visible character at all, so that
// a value such as "\u200b\u200b" counts as blank like "  " does.
func invisibleOnly(s string) bool {
	for _, r := range s {
		if !isInvisible(r) {
			return false
		}
	}
	return true
}
