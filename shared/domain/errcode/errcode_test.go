package errcode

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// declaredCodes parses the package's non-test source and returns every
// constant of type Code: name → value. Reading the source rather than a
// hand-kept list means a new constant without a Table row fails the test.
func declaredCodes(t *testing.T) map[string]Code {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatalf("read package directory: %v", err)
	}
	fset := token.NewFileSet()
	codes := map[string]Code{}
	for _, de := range entries {
		name := de.Name()
		if de.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, decl := range file.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				addCodeConsts(t, gd, codes)
			}
		}
	}
	return codes
}

// addCodeConsts adds the constants of type Code declared in gd to codes.
func addCodeConsts(t *testing.T, gd *ast.GenDecl, codes map[string]Code) {
	t.Helper()
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != "Code" {
			continue
		}
		for i, name := range vs.Names {
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Fatalf("constant %s: want a string literal value", name.Name)
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("constant %s: %v", name.Name, err)
			}
			codes[name.Name] = Code(v)
		}
	}
}

func TestEveryCodeHasOneRow(t *testing.T) {
	codes := declaredCodes(t)
	if len(codes) < 10 {
		t.Fatalf("found %d Code constants in the source; the parser missed some", len(codes))
	}
	rows := map[Code]int{}
	for _, e := range Table {
		rows[e.Code]++
	}
	byValue := map[Code]string{}
	for name, c := range codes {
		t.Run(name, func(t *testing.T) {
			if other, dup := byValue[c]; dup {
				t.Errorf("constants %s and %s share the value %q", name, other, c)
			}
			byValue[c] = name
			if rows[c] != 1 {
				t.Errorf("code %s (%q) has %d rows in Table; want exactly 1", name, c, rows[c])
			}
		})
	}
	for _, e := range Table {
		if _, ok := byValue[e.Code]; !ok {
			t.Errorf("Table row %q is not a declared Code constant", e.Code)
		}
	}
}

func TestTableRows(t *testing.T) {
	for _, e := range Table {
		t.Run(string(e.Code), func(t *testing.T) {
			if e.Status < 400 || e.Status > 599 {
				t.Errorf("status %d; want 4xx or 5xx", e.Status)
			}
			if strings.TrimSpace(e.Meaning) == "" {
				t.Error("meaning is empty")
			}
			if e.Code == "" || strings.ToLower(string(e.Code)) != string(e.Code) || strings.ContainsAny(string(e.Code), " -") {
				t.Errorf("code %q; want lower_snake_case", e.Code)
			}
			if got := Status(e.Code); got != e.Status {
				t.Errorf("Status(%q) = %d; want %d", e.Code, got, e.Status)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		code Code
		want int
	}{
		{InvalidAPIKey, 401},
		{InsufficientScope, 403},
		{NotFound, 404},
		{NoQuote, 409},
		{QuoteExpired, 409},
		{QuoteAlreadyAccepted, 409},
		{LeadClosed, 409},
		{ValidationFailed, 422},
		{RateLimited, 429},
		{Internal, 500},
		{UpstreamFailed, 502},
		{"", 500},
		{"no_such_code", 500},
		{"NOT_FOUND", 500},
	}
	for _, tt := range tests {
		t.Run(string(tt.code), func(t *testing.T) {
			if got := Status(tt.code); got != tt.want {
				t.Errorf("Status(%q) = %d; want %d", tt.code, got, tt.want)
			}
		})
	}
}

func TestFieldErrors(t *testing.T) {
	t.Run("empty is nil", func(t *testing.T) {
		if err := (FieldErrors{}).Err(); err != nil {
			t.Errorf("FieldErrors{}.Err() = %v; want nil", err)
		}
		var nilMap FieldErrors
		if err := nilMap.Err(); err != nil {
			t.Errorf("nil FieldErrors.Err() = %v; want nil", err)
		}
	})
	t.Run("carries details.fields", func(t *testing.T) {
		fe := FieldErrors{}
		fe.Add("email", "must be a valid email address")
		fe.Add("phone", "must be a phone number")
		fe.Add("email", "second reason is ignored")
		err := fe.Err()
		e := As(err)
		if e == nil {
			t.Fatalf("Err() = %v; want an *Error", err)
		}
		if e.Code != ValidationFailed {
			t.Errorf("code %q; want %q", e.Code, ValidationFailed)
		}
		if !strings.Contains(e.Message, "2 invalid field") {
			t.Errorf("message %q; want it to count 2 fields", e.Message)
		}
		fields, ok := e.Details["fields"].(map[string]any)
		if !ok {
			t.Fatalf("details.fields = %#v; want a map[string]any", e.Details["fields"])
		}
		want := map[string]any{"email": "must be a valid email address", "phone": "must be a phone number"}
		if fmt.Sprint(fields) != fmt.Sprint(want) {
			t.Errorf("details.fields = %v; want %v", fields, want)
		}
		// The details are a copy: later Adds do not change a returned error.
		fe.Add("zzz", "late")
		if _, ok := fields["zzz"]; ok {
			t.Error("details.fields changed after Err returned")
		}
	})
}

func TestAs(t *testing.T) {
	base := New(NotFound, "No lead %s.", "x")
	tests := []struct {
		name string
		err  error
		want *Error
	}{
		{"nil", nil, nil},
		{"plain error", errors.New("boom"), nil},
		{"itself", base, base},
		{"wrapped once", fmt.Errorf("get lead: %w", base), base},
		{"wrapped twice", fmt.Errorf("handler: %w", fmt.Errorf("get lead: %w", base)), base},
		{"joined", errors.Join(errors.New("other"), base), base},
		{"formatted with %v loses it", fmt.Errorf("get lead: %v", base), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := As(tt.err); got != tt.want {
				t.Errorf("As(%v) = %v; want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestNewAndWithDetail(t *testing.T) {
	e := New(RateLimited, "retry after %d seconds", 7)
	if e.Code != RateLimited || e.Message != "retry after 7 seconds" {
		t.Errorf("New = %+v; want code rate_limited, message %q", e, "retry after 7 seconds")
	}
	if e.Details == nil || len(e.Details) != 0 {
		t.Errorf("New details = %#v; want an empty, non-nil map", e.Details)
	}
	if got := e.WithDetail("retry_after", 7); got != e || e.Details["retry_after"] != 7 {
		t.Errorf("WithDetail = %+v; want the same error with details.retry_after = 7", got)
	}
	bare := &Error{Code: NotFound}
	if bare.WithDetail("k", "v").Details["k"] != "v" {
		t.Error("WithDetail on nil details did not set the detail")
	}
	if got, want := e.Error(), "rate_limited: retry after 7 seconds"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
}

func TestUpstream(t *testing.T) {
	cause := os.ErrDeadlineExceeded
	e := Upstream("put lead", cause)
	if e.Code != UpstreamFailed || Status(e.Code) != 502 {
		t.Errorf("Upstream code %q (status %d); want upstream_failed (502)", e.Code, Status(e.Code))
	}
	if strings.Contains(e.Message, "put lead") || strings.Contains(e.Message, cause.Error()) {
		t.Errorf("Message %q leaks the internal cause", e.Message)
	}
	if e.Message == "" || e.Details == nil {
		t.Errorf("Upstream = %+v; want a message and non-nil details", e)
	}
	for _, want := range []string{"upstream_failed", "put lead", cause.Error()} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("Error() = %q; want it to contain %q", e.Error(), want)
		}
	}
	if !errors.Is(e, cause) {
		t.Errorf("errors.Is(Upstream(_, cause), cause) = false; want true")
	}
	if got := As(fmt.Errorf("create: %w", e)); got != e {
		t.Errorf("As(wrapped Upstream) = %v; want the Upstream error", got)
	}
}

func TestFieldsReadsBackFieldErrors(t *testing.T) {
	fe := FieldErrors{}
	fe.Add("size", "must be at least 1 byte")
	fe.Add("width", "must be from 64 to 1920 pixels")
	got := As(fe.Err()).Fields()
	if len(got) != 2 || got["size"] != "must be at least 1 byte" || got["width"] != "must be from 64 to 1920 pixels" {
		t.Errorf("Fields() = %v; want both reasons back", got)
	}
	if n := len(New(Conflict, "x").Fields()); n != 0 {
		t.Errorf("an error without fields has %d", n)
	}
}
