package lead

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// MaxDepth is how deeply a request body may nest objects and arrays. A lead
// body is flat (an object holding one array of strings: depth 2); 32 leaves
// room for any honest client while refusing a deeply nested body long before
// encoding/json's own limit of 10,000 levels.
const MaxDepth = 32

// compressionMagic lists the leading bytes of compressed formats a client may
// send by mistake; Content-Encoding is refused at the HTTP edge, but a body
// compressed without the header reaches the parser.
var compressionMagic = []struct {
	name  string
	magic []byte
}{
	{"gzip", []byte{0x1f, 0x8b}},
	{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}},
	{"zlib", []byte{0x78, 0x9c}},
	{"zlib", []byte{0x78, 0xda}},
	{"zlib", []byte{0x78, 0x01}},
}

// DecodeObject checks that body is one JSON object, at most MaxDepth deep,
// and returns its properties undecoded. On failure it returns an invalid_json
// *errcode.Error whose message says what is wrong and, where there is one,
// details.offset gives the 0-based byte offset of the offending byte.
func DecodeObject(body []byte) (map[string]json.RawMessage, error) {
	if bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) {
		return nil, invalidJSON(0, "The request body starts with a UTF-8 byte order mark (EF BB BF); send the JSON without a byte order mark.")
	}
	if bytes.HasPrefix(body, []byte{0xfe, 0xff}) || bytes.HasPrefix(body, []byte{0xff, 0xfe}) {
		return nil, invalidJSON(0, "The request body starts with a UTF-16 byte order mark; send the JSON as UTF-8 text without a byte order mark.")
	}

	dec := json.NewDecoder(bytes.NewReader(body))
	var value json.RawMessage
	err := dec.Decode(&value)
	// valid is the part of body known to be valid JSON, or a prefix of it.
	valid := body[:dec.InputOffset()]
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax) && syntax.Offset > 0 && int(syntax.Offset) <= len(body):
		valid = body[:syntax.Offset-1]
	case err != nil:
		valid = body
	}
	// encoding/json stops at 10,000 levels with a syntax error; a body
	// nested past MaxDepth is reported as such whether or not it got there.
	if at := depthExceeded(valid, MaxDepth); at >= 0 {
		return nil, invalidJSON(at, "The request body is nested too deeply: objects and arrays may nest at most %d levels (the API's bodies are flat); level %d starts at byte offset %d.", MaxDepth, MaxDepth+1, at).
			WithDetail("max_depth", MaxDepth)
	}
	if err != nil {
		return nil, decodeError(body, err, syntax)
	}

	if kind := jsonKind(value); kind != "object" {
		return nil, errcode.New(errcode.InvalidJSON, "The request body must be a JSON object, not %s.", kind)
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(body[end:], " \t\r\n"); len(rest) > 0 {
		at := len(body) - len(rest)
		return nil, invalidJSON(at, "The request body must hold exactly one JSON object; more data follows it at byte offset %d.", at)
	}

	var raw map[string]json.RawMessage
	if err := json.Unmarshal(value, &raw); err != nil {
		// Unreachable: value is a valid JSON object.
		return nil, &errcode.Error{Code: errcode.InvalidJSON, Message: "The request body must be a JSON object.", Details: map[string]any{}, Cause: fmt.Errorf("decode object: %w", err)}
	}
	return raw, nil
}

// decodeError explains why the first JSON value of body could not be read:
// err is the decoder's error and syntax the *json.SyntaxError in it, if any.
func decodeError(body []byte, err error, syntax *json.SyntaxError) *errcode.Error {
	switch {
	case errors.Is(err, io.EOF):
		return errcode.New(errcode.InvalidJSON, "The request body is empty; send a JSON object.")
	case !utf8.Valid(body) || looksCompressed(body) != "":
		return notUTF8(body)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalidJSON(len(body), "The request body is not valid JSON: it ends at byte offset %d before the JSON value is complete.", len(body))
	case syntax == nil || syntax.Offset < 1 || int(syntax.Offset) > len(body):
		return &errcode.Error{Code: errcode.InvalidJSON, Message: "The request body is not valid JSON.", Details: map[string]any{}, Cause: err}
	}
	at := int(syntax.Offset) - 1
	r, _ := utf8.DecodeRune(body[at:])
	switch {
	case r < 0x20:
		return invalidJSON(at, "The request body is not valid JSON: it has the raw control character %s at byte offset %d. Inside a string a control character must be escaped (\\n, \\t, \\u%04x); outside strings it may not appear.", charName(r), at, r)
	case r == '\'':
		return invalidJSON(at, "The request body is not valid JSON: unexpected single quote at byte offset %d; JSON strings and property names use double quotes.", at)
	case (r == '}' || r == ']') && lastNonSpace(body[:at]) == ',':
		return invalidJSON(at, "The request body is not valid JSON: a trailing comma is not allowed (%q at byte offset %d follows a comma).", r, at)
	}
	return invalidJSON(at, "The request body is not valid JSON: unexpected character %q at byte offset %d.", r, at)
}

// notUTF8 explains a body that is not UTF-8 text, naming the compression it
// looks like, if any.
func notUTF8(body []byte) *errcode.Error {
	for _, c := range compressionMagic {
		if bytes.HasPrefix(body, c.magic) {
			return invalidJSON(0, "The request body is not UTF-8 JSON text: it looks %s-compressed (it starts with % x). Send the JSON uncompressed; compressed bodies are not supported.", c.name, c.magic).
				WithDetail("compression", c.name)
		}
	}
	at := invalidUTF8At(body)
	return invalidJSON(at, "The request body is not UTF-8 JSON text: the byte 0x%02x at byte offset %d is not valid UTF-8, and the body does not look compressed. Send the JSON as UTF-8.", body[at], at)
}

// looksCompressed names the compressed format body starts like, or "".
func looksCompressed(body []byte) string {
	for _, c := range compressionMagic {
		if bytes.HasPrefix(body, c.magic) {
			return c.name
		}
	}
	return ""
}

// invalidJSON returns an invalid_json error with details.offset set to at.
func invalidJSON(at int, format string, args ...any) *errcode.Error {
	return errcode.New(errcode.InvalidJSON, format, args...).WithDetail("offset", at)
}

// depthExceeded returns the offset of the first '{' or '[' in b that opens a
// level deeper than limit, or -1. b must be valid JSON or a prefix of valid
// JSON, so that strings are where they seem.
func depthExceeded(b []byte, limit int) int {
	depth := 0
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > limit {
				return i
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return -1
}

// jsonKind names the kind of the valid JSON value v, with an article.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// invalidUTF8At returns the offset of the first byte of b that is not part of
// valid UTF-8, or 0 when there is none.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return 0
}

// lastNonSpace returns the last byte of b that is not JSON white space, or 0.
func lastNonSpace(b []byte) byte {
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1]
}
