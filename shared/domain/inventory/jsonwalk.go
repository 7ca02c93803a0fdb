package inventory

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// parser walks a checklist token by token, so that each value is checked
// against the one shape a checklist has, field errors are collected with
// their path, and a syntax error stops it.
type parser struct {
	dec    *json.Decoder
	fields errcode.FieldErrors
}

// syntaxError is the invalid_json answer to the decoder's err.
func (p *parser) syntaxError(err error) error {
	at := p.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at = se.Offset
	}
	msg := "The checklist is not valid JSON"
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "The checklist is not valid JSON: it ends before the value is complete"
	}
	return errcode.New(errcode.InvalidJSON, "%s (at byte offset %d).", msg, at).WithDetail("offset", at)
}

func (p *parser) token() (json.Token, error) {
	t, err := p.dec.Token()
	if err != nil {
		return nil, p.syntaxError(err)
	}
	return t, nil
}

// skip consumes the rest of a value whose first token was t.
func (p *parser) skip(t json.Token) error {
	depth := 0
	for {
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
		var err error
		if t, err = p.token(); err != nil {
			return err
		}
	}
}

// object reads an object whose '{' was read, calling value for each
// property with its name; a property seen twice is a field error at
// path.name.
func (p *parser) object(path string, value func(name, at string) error) error {
	seen := map[string]bool{}
	for p.dec.More() {
		t, err := p.token()
		if err != nil {
			return err
		}
		name := t.(string) // Token returns object keys as strings
		at := join(path, name)
		if seen[name] {
			p.fields.Add(at, "appears twice; send each property once")
		}
		seen[name] = true
		if err := value(name, at); err != nil {
			return err
		}
	}
	_, err := p.token() // '}'
	return err
}

// open reads a value that must be an object ('{') or an array ('['). When it
// is something else, it records a field error at path, skips the value and
// returns false.
func (p *parser) open(path string, want json.Delim) (bool, error) {
	t, err := p.token()
	if err != nil {
		return false, err
	}
	if d, ok := t.(json.Delim); ok && d == want {
		return true, nil
	}
	p.fields.Add(path, "must be "+map[json.Delim]string{'{': "an object", '[': "an array"}[want])
	return false, p.skip(t)
}

// scalar reads a value that must be a string (number false) or a number
// (number true); otherwise it records reason at path and skips the value.
func (p *parser) scalar(path string, number bool, reason string) (string, bool, error) {
	t, err := p.token()
	if err != nil {
		return "", false, err
	}
	switch v := t.(type) {
	case string:
		if !number {
			return v, true, nil
		}
	case json.Number:
		if number {
			return string(v), true, nil
		}
	}
	p.fields.Add(path, reason)
	return "", false, p.skip(t)
}

// join names the property name of the value at path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// quoteShort quotes s for a reason, cut (see cut).
func quoteShort(s string) string { return strconv.Quote(cut(s)) }

// cut shortens s to 40 characters for a reason, so that a client cannot
// make an error body echo its whole input.
func cut(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		return string([]rune(s)[:40]) + "…"
	}
	return s
}
