// Package openapitest checks real HTTP responses against the partner API's
// OpenAPI document, for integration tests that talk to a running server,
// and real webhook deliveries against the document's webhooks, for tests
// that receive them.
//
//	v := openapitest.New(t)
//	resp, err := http.DefaultClient.Do(req)
//	...
//	body, _ := io.ReadAll(resp.Body)
//	v.Check(t, req, resp.StatusCode, resp.Header, body)
//
//	// in a test endpoint's handler:
//	v.CheckWebhook(t, r.Header, body)
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/moveleads/partnerapi/shared/spec/openapi"
)

// Validator checks real responses against the embedded document. It is safe
// for concurrent use by parallel tests.
type Validator struct {
	router   routers.Router
	webhooks map[string]*openapi3.PathItem
	options  *openapi3filter.Options
}

// New returns the Validator of the embedded document, loaded and validated
// once per process (about 0.4 s under -race, which every integration test's
// Env paid before) and shared by every caller. It fails t at once
// (t.Fatalf) when the document does not load or is not a valid OpenAPI
// document.
func New(t testing.TB) *Validator {
	t.Helper()
	v, err := shared()
	if err != nil {
		t.Fatalf("openapitest: %v", err)
	}
	return v
}

// shared loads the process's one Validator.
var shared = sync.OnceValues(load)

func load() (*Validator, error) {
	ctx := context.Background()
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromData(openapi.Document)
	if err != nil {
		return nil, fmt.Errorf("load document: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("invalid document: %w", err)
	}
	// The document's only server is the {base_url} variable, whose default is
	// the public host; tests talk to a local server at another address, so
	// operations are matched by method and path alone.
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("build router: %w", err)
	}
	return &Validator{router: router, webhooks: doc.Webhooks, options: responseOptions()}, nil
}

// responseOptions makes response validation strict: an undocumented status
// fails, every error is reported, and the formats the document uses are
// checked with validators scoped to this Validator (kin-openapi's own global
// registry knows only date and date-time, and mutating it would race with
// other packages' tests).
func responseOptions() *openapi3filter.Options {
	return &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidators(map[string]openapi3.StringFormatValidator{
				"uuid":      openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562),
				"date-time": openapi3.NewCallbackValidator(validateDateTime),
				"date":      openapi3.NewCallbackValidator(validateDate),
				"email":     openapi3.NewCallbackValidator(validateEmail),
				"uri":       openapi3.NewCallbackValidator(validateURI),
			}),
		},
	}
}

// Check fails t (t.Errorf, naming method, path and status) when the response
// described by status, header and body does not conform to the operation
// that req's method and path match: an unknown path or method, a status the
// operation does not document, a missing or malformed documented header, or
// a body that does not match the response schema. req is only read.
func (v *Validator) Check(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	route, pathParams, err := v.router.FindRoute(req)
	if err != nil {
		t.Errorf("%s %s -> %d: no documented operation: %v", req.Method, req.URL.Path, status, err)
		return
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: pathParams,
			Route:      route,
			Options:    v.options,
		},
		Status:  status,
		Header:  header,
		Options: v.options,
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		t.Errorf("%s %s -> %d (%s): response does not conform: %v", req.Method, req.URL.Path, status, route.Operation.OperationID, err)
	}
}

// CheckWebhook fails t (t.Errorf, naming the event type and webhook-id)
// when a webhook delivery, as its endpoint received it (header and body),
// does not conform to the document's webhook for the body's "type": an
// undocumented type, a missing or malformed webhook-id,
// webhook-timestamp or webhook-signature header, or a body that does not
// match the type's schema. It checks the shape only; the signature is
// verified by the Standard Webhooks library (shared/adapter/webhookhttp's tests).
func (v *Validator) CheckWebhook(t testing.TB, header http.Header, body []byte) {
	t.Helper()
	var envelope struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(body, &envelope) // a body that is not JSON fails below
	name := fmt.Sprintf("webhook %q (webhook-id %q)", envelope.Type, header.Get("webhook-id"))
	item := v.webhooks[envelope.Type]
	if item == nil || item.Post == nil {
		t.Errorf("%s: no documented webhook of this type", name)
		return
	}
	req, err := http.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	req.Header = header.Clone()
	input := &openapi3filter.RequestValidationInput{
		Request: req,
		Route:   &routers.Route{Path: "/", PathItem: item, Method: http.MethodPost, Operation: item.Post},
		Options: v.options,
	}
	if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
		t.Errorf("%s: delivery does not conform: %v", name, err)
	}
}

// validateDateTime accepts an RFC 3339 timestamp with a valid calendar date.
func validateDateTime(s string) error {
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return fmt.Errorf("not an RFC 3339 date-time: %w", err)
	}
	return nil
}

// validateDate accepts an RFC 3339 full-date (YYYY-MM-DD) that exists.
func validateDate(s string) error {
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return fmt.Errorf("not an RFC 3339 full-date: %w", err)
	}
	return nil
}

// validateEmail accepts a bare address (no display name, no angle brackets).
func validateEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return fmt.Errorf("not an email address: %w", err)
	}
	if a.Address != s || a.Name != "" {
		return fmt.Errorf("not a bare email address")
	}
	return nil
}

// validateURI accepts an absolute URI (RFC 3986: a scheme, then only the
// characters a URI may hold, anything else percent-encoded).
func validateURI(s string) error {
	for _, c := range []byte(s) {
		if !uriChar(c) {
			return fmt.Errorf("not a URI: character %q must be percent-encoded", c)
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not a URI: %w", err)
	}
	if !u.IsAbs() {
		return fmt.Errorf("not an absolute URI: no scheme")
	}
	return nil
}

// uriChar reports whether c may appear in a URI as it is: an unreserved or
// reserved character of RFC 3986, or the % of a percent-encoding.
func uriChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}
