package lead

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// MaxBodyBytes is the largest createLead body accepted (64 KiB).
const MaxBodyBytes = 64 << 10

// Field limits, in characters (runes) or items.
const (
	maxNameLen        = 200
	maxEmailLen       = 254
	maxPhoneLen       = 32
	maxAddressLen     = 500
	maxShortLen       = 200
	maxSpecialItems   = 50
	maxSpecialItemLen = 200
)

// CreateInput is a validated createLead request: the lead's details.
type CreateInput = Details

// stringField describes one optional string property of the request.
type stringField struct {
	name      string
	maxLen    int
	multiline bool // may hold tabs and line breaks (normalised)
	dst       func(*CreateInput) *string
	check     func(string) string // returns a reason, or "" when valid
}

var stringFields = []stringField{
	{"customer_name", maxNameLen, false, func(c *CreateInput) *string { return &c.CustomerName }, nil},
	{"email", maxEmailLen, false, func(c *CreateInput) *string { return &c.Email }, CheckEmail},
	{"phone", maxPhoneLen, false, func(c *CreateInput) *string { return &c.Phone }, checkPhone},
	{"from_address", maxAddressLen, true, func(c *CreateInput) *string { return &c.FromAddress }, nil},
	{"to_address", maxAddressLen, true, func(c *CreateInput) *string { return &c.ToAddress }, nil},
	{"home_size", maxShortLen, false, func(c *CreateInput) *string { return &c.HomeSize }, nil},
	{"move_date", 10, false, func(c *CreateInput) *string { return &c.MoveDate }, checkDate},
	{"source", maxShortLen, false, func(c *CreateInput) *string { return &c.Source }, nil},
}

// allowed lists every property the schema allows.
var allowed = []string{"customer_name", "name", "email", "phone", "from_address", "to_address", "home_size", "move_date", "special_items", "source"}

// ParseCreate validates a createLead body and returns the input it describes.
//
// On failure it returns an *errcode.Error: invalid_json when body is not one
// JSON object of UTF-8 text nested at most MaxDepth deep (the message says
// what is wrong, details.offset where), validation_failed with
// details.fields naming every failing field (unknown properties included)
// otherwise.
//
// A property that is null, or a string that is blank, counts as absent, since
// form and no-code tools send empty fields that way; a string is blank when
// it holds only white space and invisible characters (zero-width spaces and
// joiners, word joiner, BOM, soft hyphen and other format characters).
// Strings are trimmed of white space and their length is counted in
// characters after that.
//
// Text is checked character by character: control characters (C0, DEL and
// C1) and the bidi embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069) are refused in every string and special_items element, with
// a reason naming the character. The one exception: from_address and
// to_address may hold TAB and line breaks (LF, CR, U+2028, U+2029), because
// an address pasted from a textarea or a spreadsheet brings them; there
// CRLF, CR, U+2028 and U+2029 are stored as LF and TAB as a space. Every
// other field is one line, and a tab or line break in it is refused rather
// than silently joined, so that the client learns its field mapping is off.
func ParseCreate(body []byte) (CreateInput, error) {
	raw, err := DecodeObject(body)
	if err != nil {
		return CreateInput{}, err
	}

	var in CreateInput
	fields := errcode.FieldErrors{}
	for name := range raw {
		if !slices.Contains(allowed, name) {
			fields.Add(name, "unknown property")
		}
	}
	for _, f := range stringFields {
		v, reason := TextValue(raw[f.name], f.maxLen, f.multiline)
		if reason == "" && v != "" && f.check != nil {
			reason = f.check(v)
		}
		if reason != "" {
			fields.Add(f.name, reason)
			continue
		}
		*f.dst(&in) = v
	}

	alias, reason := TextValue(raw["name"], maxNameLen, false)
	switch {
	case reason != "":
		fields.Add("name", reason)
	case alias != "" && in.CustomerName != "" && alias != in.CustomerName:
		fields.Add("name", "is an alias of customer_name and differs from it; send one of them")
	case alias != "":
		in.CustomerName = alias
	}

	items, reason := specialItems(raw["special_items"])
	if reason != "" {
		fields.Add("special_items", reason)
	}
	in.SpecialItems = items

	if len(fields) == 0 && in.CustomerName == "" && in.Email == "" && in.Phone == "" {
		fields.Add("customer_name", "at least one of customer_name (or name), email, phone is required")
	}
	if err := fields.Err(); err != nil {
		return CreateInput{}, err
	}
	return in, nil
}

// TextValue decodes an optional string property: trimmed, its line breaks
// normalised when multiline, and "" when blank (see ParseCreate). It returns
// a reason when the value is not a string, was not valid UTF-8, holds a
// character textReason refuses, or is longer than maxLen characters.
func TextValue(raw json.RawMessage, maxLen int, multiline bool) (string, string) {
	if raw == nil || string(raw) == "null" {
		return "", ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", "must be a string"
	}
	if lossyUTF8(raw, s) {
		return "", "must be valid UTF-8 (no invalid bytes or lone surrogate escapes)"
	}
	s = strings.TrimSpace(s)
	if reason := textReason(s, multiline); reason != "" {
		return "", reason
	}
	if invisibleOnly(s) {
		return "", ""
	}
	if multiline {
		s = normaliseLines(s)
	}
	if n := utf8.RuneCountInString(s); n > maxLen {
		return "", fmt.Sprintf("must be at most %d characters (got %d)", maxLen, n)
	}
	return s, ""
}

// lossyUTF8 reports whether decoding raw into s replaced invalid input
// (bytes that are not UTF-8, or lone \uD800-style surrogate escapes) with
// U+FFFD, which encoding/json does silently: the client's text would be
// altered without a word.
func lossyUTF8(raw json.RawMessage, s string) bool {
	if !strings.ContainsRune(s, utf8.RuneError) {
		return false
	}
	if !utf8.Valid(raw) {
		return true
	}
	// Every U+FFFD in s must have been sent as U+FFFD, literally or escaped.
	sent := bytes.Count(bytes.ToLower(raw), []byte(`\ufffd`)) + bytes.Count(raw, []byte("\uFFFD"))
	return strings.Count(s, string(utf8.RuneError)) > sent
}

func specialItems(raw json.RawMessage) ([]string, string) {
	return TextList(raw, maxSpecialItems, maxSpecialItemLen)
}

// TextList decodes an optional array of one-line strings (TextValue's
// rules for each, at most maxLen characters), of at most maxItems
// elements; blank elements are dropped and nil is returned when none is
// left. It returns a reason naming the failing element otherwise.
func TextList(raw json.RawMessage, maxItems, maxLen int) ([]string, string) {
	if raw == nil || string(raw) == "null" {
		return nil, ""
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, "must be an array of strings"
	}
	if len(items) > maxItems {
		return nil, fmt.Sprintf("must hold at most %d items (got %d)", maxItems, len(items))
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		if string(it) == "null" {
			return nil, fmt.Sprintf("item %d must be a string", i)
		}
		s, reason := TextValue(it, maxLen, false)
		if reason != "" {
			return nil, fmt.Sprintf("item %d %s", i, reason)
		}
		if s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, ""
	}
	return out, ""
}

// checkPhone accepts E.164 and the common national forms: digits with
// spaces, dots, dashes, parentheses and one leading +; 7 to 15 digits.
func checkPhone(s string) string {
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '+' && i == 0:
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "must be a phone number (E.164 preferred, e.g. +15551234567)"
		}
	}
	if digits < 7 || digits > 15 {
		return "must be a phone number with 7 to 15 digits (E.164 preferred)"
	}
	return ""
}

// checkDate accepts a real calendar date written YYYY-MM-DD.
func checkDate(s string) string {
	if len(s) != 10 {
		return "must be a date written YYYY-MM-DD"
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return "must be a real calendar date written YYYY-MM-DD"
	}
	return ""
}
