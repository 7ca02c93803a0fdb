package openapi_test

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/openapi"
)

// loadDoc loads and validates the embedded document, failing t when it cannot.
func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapi.Document)
	if err != nil {
		t.Fatalf("load document: %v", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError()); err != nil {
		t.Fatalf("validate document: %v", err)
	}
	return doc
}

func TestDocumentLoadsAndValidates(t *testing.T) {
	doc := loadDoc(t)
	if got, want := doc.OpenAPI, "3.1.0"; got != want {
		t.Errorf("openapi = %q; want %q", got, want)
	}
	if got, want := doc.Info.Version, "1.0.0-pilot"; got != want {
		t.Errorf("info.version = %q; want %q", got, want)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "{base_url}" || doc.Servers[0].Variables["base_url"] == nil {
		t.Errorf("servers = %+v; want one server {base_url} with a base_url variable", doc.Servers)
	}
	if s := doc.Components.SecuritySchemes["bearerAuth"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Errorf("securitySchemes.bearerAuth = %+v; want http bearer", s)
	}
	if len(doc.Security) != 1 || doc.Security[0]["bearerAuth"] == nil {
		t.Errorf("security = %v; want global bearerAuth", doc.Security)
	}
}

// wantOperation is what the document must hold at one method and path.
type wantOperation struct {
	route       manifest.Route
	operationID string
}

// TestDocumentMatchesRouteTable checks that every route of route.Table is
// documented at both its paths under the agreed operationIds, with its scope
// and its Idempotency-Key header, and that the document holds nothing else.
func TestDocumentMatchesRouteTable(t *testing.T) {
	doc := loadDoc(t)
	want := map[string]wantOperation{} // "METHOD path"
	for _, r := range manifest.PartnerRoutes() {
		want[r.Method+" "+r.PilotPath] = wantOperation{r, string(r.Operation)}
		want[r.Method+" "+r.LogicalPath] = wantOperation{r, string(r.Operation) + "Logical"}
	}

	got := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			got[method+" "+path] = op
		}
	}
	for key := range got {
		if _, ok := want[key]; !ok {
			t.Errorf("document has %s; route.Table has no such route", key)
		}
	}
	for key, w := range want {
		t.Run(key, func(t *testing.T) {
			op, ok := got[key]
			if !ok {
				t.Fatalf("document lacks %s (%s)", key, w.operationID)
			}
			if op.OperationID != w.operationID {
				t.Errorf("operationId = %q; want %q", op.OperationID, w.operationID)
			}
			if op.Security == nil || len(*op.Security) != 1 || !slices.Equal((*op.Security)[0]["bearerAuth"], []string{string(w.route.Scope)}) {
				t.Errorf("security = %v; want bearerAuth with scope %q", op.Security, w.route.Scope)
			}
			hasKey := op.Parameters.GetByInAndName("header", "Idempotency-Key") != nil
			if hasKey != w.route.Idempotent {
				t.Errorf("declares Idempotency-Key: %v; want %v (route.Idempotent)", hasKey, w.route.Idempotent)
			}
			// A route that takes a key declares its 409 (a duplicate still
			// in progress); one that does not must not declare the key's own
			// 409 (Conflict), though it may declare another (a write that
			// kept meeting concurrent ones).
			conflict := op.Responses.Status(409)
			if hasKey && conflict == nil {
				t.Error("declares Idempotency-Key but no 409 response")
			}
			if !hasKey && conflict != nil && conflict.Ref == "#/components/responses/Conflict" {
				t.Error("declares the Idempotency-Key's 409 (Conflict) but takes no Idempotency-Key")
			}
			if name := manifest.ParamName(pathOf(key)); name != "" {
				p := op.Parameters.GetByInAndName("path", name)
				if p == nil {
					t.Fatalf("path parameter %q not declared", name)
				}
				// A malformed identifier answers 404, so the schema must not reject it.
				if s := p.Schema.Value; !s.Type.Is("string") || s.Format != "" || s.Pattern != "" {
					t.Errorf("path parameter %q schema: type %v, format %q, pattern %q; want a plain string", name, s.Type, s.Format, s.Pattern)
				}
			}
		})
	}
}

// pathOf returns the path of a "METHOD path" key.
func pathOf(key string) string {
	_, path, _ := strings.Cut(key, " ")
	return path
}

func TestErrorCodeEnumMatchesErrcodeTable(t *testing.T) {
	doc := loadDoc(t)
	var got []string
	for _, v := range doc.Components.Schemas["ErrorCode"].Value.Enum {
		got = append(got, v.(string))
	}
	var want []string
	for _, e := range errcode.Table {
		want = append(want, string(e.Code))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ErrorCode enum = %v; want the codes of errcode.Table %v", got, want)
	}
}

// TestDetectorErrorEnumMatchesReasons: the detector report's error is
// one of inventory.Reasons, and the API says which.
func TestDetectorErrorEnumMatchesReasons(t *testing.T) {
	doc := loadDoc(t)
	var got []string
	for _, v := range doc.Components.Schemas["DetectorReport"].Value.Properties["error"].Value.Enum {
		got = append(got, v.(string))
	}
	want := slices.Clone(inventory.Reasons)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("DetectorReport.error enum = %v; want inventory.Reasons %v", got, want)
	}
}

// TestErrorResponsesMatchErrcodeTable checks that each documented error
// status admits only codes errcode.Table maps to that status (not every
// one: beta_not_enabled belongs to beta routes only, survey_closed and
// conflict to getSurveyLink, link_expired to the capture page), and that a
// 403 admits beta_not_enabled exactly on the routes the manifest marks beta.
func TestErrorResponsesMatchErrcodeTable(t *testing.T) {
	doc := loadDoc(t)
	byStatus := map[int][]string{}
	for _, e := range errcode.Table {
		byStatus[e.Status] = append(byStatus[e.Status], string(e.Code))
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				code, err := strconv.Atoi(status)
				if err != nil {
					t.Errorf("%s %s: response %q is not a single status", method, path, status)
					continue
				}
				if code < 400 {
					continue
				}
				t.Run(method+" "+path+" "+status, func(t *testing.T) {
					got := errorCodes(t, resp.Value)
					want := slices.Clone(byStatus[code])
					slices.Sort(got)
					slices.Sort(want)
					for _, c := range got {
						if !slices.Contains(want, c) {
							t.Errorf("admits code %s; errcode.Table maps it to another status than %d (its codes: %v)", c, code, want)
						}
					}
					if len(got) == 0 {
						t.Errorf("admits no code; want some of errcode.Table's codes for %d: %v", code, want)
					}
					if code == 403 {
						beta := false
						for _, r := range manifest.PartnerRoutes() {
							for _, p := range r.Paths() {
								if p == path && r.Method == method && r.Beta != "" {
									beta = true
								}
							}
						}
						if slices.Contains(got, string(errcode.BetaNotEnabled)) != beta {
							t.Errorf("403 admits beta_not_enabled: %v; want %v (route beta: %v)", !beta, beta, beta)
						}
					}
				})
			}
		}
	}
}

// errorCodes returns the error.code values an error response admits: its
// schema is allOf [ErrorBody, {properties: {error: {properties: {code: {enum}}}}}].
func errorCodes(t *testing.T, resp *openapi3.Response) []string {
	t.Helper()
	mt := resp.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		t.Fatal("no application/json schema")
	}
	all := mt.Schema.Value.AllOf
	if len(all) != 2 || all[0].Ref != "#/components/schemas/ErrorBody" {
		t.Fatalf("schema is not allOf [ErrorBody, code restriction]")
	}
	errProp := all[1].Value.Properties["error"]
	if errProp == nil || errProp.Value.Properties["code"] == nil {
		t.Fatalf("allOf[1] does not restrict error.code")
	}
	var codes []string
	for _, v := range errProp.Value.Properties["code"].Value.Enum {
		codes = append(codes, v.(string))
	}
	return codes
}

// TestResponseHeaders checks the header contract of every response:
// X-Request-Id everywhere, rate-limit headers everywhere but 401 and the
// 5xx answers (a failure while counting the request cannot report them),
// Retry-After on 429 and Idempotent-Replayed only on the 200 of operations
// that take an Idempotency-Key.
func TestResponseHeaders(t *testing.T) {
	doc := loadDoc(t)
	rateLimit := []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				t.Run(method+" "+path+" "+status, func(t *testing.T) {
					h := resp.Value.Headers
					want := map[string]bool{"X-Request-Id": true}
					for _, name := range rateLimit {
						want[name] = status != "401" && status[0] != '5'
					}
					want["Retry-After"] = status == "429"
					want["Idempotent-Replayed"] = status == "200" && op.Parameters.GetByInAndName("header", "Idempotency-Key") != nil
					for name, present := range want {
						if got := h[name] != nil; got != present {
							t.Errorf("header %s declared: %v; want %v", name, got, present)
						}
					}
					if len(h) != countTrue(want) {
						t.Errorf("declares headers %v; want only those marked true in %v", slices.Sorted(maps.Keys(h)), want)
					}
				})
			}
		}
	}
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}
