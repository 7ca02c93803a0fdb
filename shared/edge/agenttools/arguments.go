package agenttools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// decodeArgs checks raw, a tool call's arguments, against the tool's input
// schema and decodes them into into. It answers, instead of the SDK's
// decoder (whose errors name Go types and echo values), a validation_failed
// error whose details.fields names each failing argument and its rule in
// the API's words. Absent or null arguments are an empty object.
func decodeArgs(raw json.RawMessage, s *jsonschema.Schema, into any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var args map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &args) != nil {
		return errcode.New(errcode.ValidationFailed, "The tool's arguments must be one JSON object, e.g. {\"lead_id\": \"…\"}.").
			WithDetail("fields", map[string]any{"arguments": "must be a JSON object of the tool's arguments"})
	}
	fields := errcode.FieldErrors{}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range s.Properties {
			if !yield(k) {
				return
			}
		}
	})
	for name, v := range args {
		p, ok := s.Properties[name]
		if !ok {
			fields.Add(name, "unknown argument; this tool's arguments are "+strings.Join(names, ", "))
			continue
		}
		if reason := argRule(p, v); reason != "" {
			fields.Add(name, reason)
		}
	}
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			fields.Add(name, "is required")
		}
	}
	if err := fields.Err(); err != nil {
		return err
	}
	// Re-encoded from the checked map: a repeated name counts once, as it
	// did above, and encoding/json's case-insensitive matching has nothing
	// left to match.
	clean, err := json.Marshal(args)
	if err == nil {
		err = json.Unmarshal(clean, into)
	}
	if err != nil {
		return &errcode.Error{Code: errcode.ValidationFailed, Message: "The tool's arguments could not be read.",
			Details: map[string]any{}, Cause: fmt.Errorf("decode checked arguments: %w", err)}
	}
	return nil
}

// argRule returns why v does not fit the argument schema p, or "".
func argRule(p *jsonschema.Schema, v json.RawMessage) string {
	types := p.Types
	if p.Type != "" {
		types = []string{p.Type}
	}
	if string(v) == "null" {
		if slices.Contains(types, "null") {
			return ""
		}
		return "must not be null; leave the argument out instead"
	}
	var reason string
	switch {
	case slices.Contains(types, "string"):
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "must be a string"
		}
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, any(s)) {
			var opts []string
			for _, e := range p.Enum {
				opts = append(opts, fmt.Sprint(e))
			}
			return "must be one of " + strings.Join(opts, ", ")
		}
	case slices.Contains(types, "integer"):
		if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
			reason = "must be a whole number written without a fraction or exponent (e.g. 25)"
		}
	case slices.Contains(types, "number"):
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			reason = "must be a number (e.g. 72)"
		}
	case slices.Contains(types, "boolean"):
		if string(v) != "true" && string(v) != "false" {
			reason = "must be true or false"
		}
	case slices.Contains(types, "array"):
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return "must be an array of strings"
		}
		for _, it := range items {
			var s string
			if json.Unmarshal(it, &s) != nil {
				return "must be an array of strings"
			}
		}
	}
	return reason
}
