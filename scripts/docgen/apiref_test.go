package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/moveleads/partnerapi/shared/spec/openapi"
)

// TestAPIReferenceIsCurrent fails when docs/API.md differs from what the
// OpenAPI document generates.
func TestAPIReferenceIsCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(apiRefFile)))
	if err != nil {
		t.Fatal(err)
	}
	want, err := APIReference(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("docs/API.md is stale: run `make docs`")
	}
}

// TestAPIReferenceCoversDocument checks the page against the document:
// every operation with each of its paths, every response status, every
// error code and every schema.
func TestAPIReferenceCoversDocument(t *testing.T) {
	page, err := APIReference(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.Validate(context.Background()); err != nil {
		t.Fatalf("document does not validate: %v", err)
	}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			id := strings.TrimSuffix(op.OperationID, refLogicalSuffix)
			section := sectionOf(t, page, "## "+id+"\n")
			if !strings.Contains(section, "`"+method+" "+path+"`") {
				t.Errorf("section %s does not show %s %s", id, method, path)
			}
			for status := range op.Responses.Map() {
				if !strings.Contains(section, "\n| "+status+" | ") {
					t.Errorf("section %s does not list response %s", id, status)
				}
			}
			for _, p := range op.Parameters {
				if !strings.Contains(section, "| `"+p.Value.Name+"` | "+p.Value.In) {
					t.Errorf("section %s does not list parameter %s in %s", id, p.Value.Name, p.Value.In)
				}
			}
		}
	}
	for name := range spec.Components.Schemas {
		if !strings.Contains(page, "\n### "+name+"\n") {
			t.Errorf("page has no section for schema %s", name)
		}
	}
	for _, code := range spec.Components.Schemas["ErrorCode"].Value.Enum {
		if !strings.Contains(page, "`"+code.(string)+"`") {
			t.Errorf("page does not show error code %s", code)
		}
	}
}

// sectionOf returns the part of page from heading to the next "## ".
func sectionOf(t *testing.T, page, heading string) string {
	t.Helper()
	i := strings.Index(page, "\n"+heading)
	if i < 0 {
		t.Fatalf("page has no heading %q", strings.TrimSpace(heading))
	}
	rest := page[i+1+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

const miniDoc = `openapi: 3.1.0
info: {title: Mini, version: '1', summary: A small API.}
security: [{key: []}]
paths:
  /v1-things/{thing_id}:
    get:
      operationId: getThing
      summary: Read a thing.
      security: [{key: ['things:read']}]
      parameters:
        - {name: thing_id, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: The thing., content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
        '404':
          description: No such thing.
          content:
            application/json:
              schema:
                allOf:
                  - $ref: '#/components/schemas/Err'
                  - properties: {error: {properties: {code: {enum: [not_found]}}}}
  /v1/things/{id}:
    get:
      operationId: getThingLogical
      summary: Read a thing.
      security: [{key: ['things:read']}]
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: The thing.}
  /health:
    get:
      operationId: health
      summary: Liveness.
      security: []
      responses:
        '200': {description: Up.}
components:
  securitySchemes:
    key: {type: http, scheme: bearer}
  schemas:
    Err:
      type: object
      properties:
        error:
          type: object
          properties:
            code: {type: string, enum: [not_found, other]}
    Thing:
      type: object
      additionalProperties: false
      required: [id]
      properties:
        id: {type: string, format: uuid, description: The id.}
        tags: {type: array, maxItems: 3, items: {type: string, maxLength: 1}}
        size: {type: [integer, 'null'], minimum: 1, default: 2}
`

func TestAPIReferenceRendering(t *testing.T) {
	page, err := APIReference([]byte(miniDoc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, want string
	}{
		{"pilot path first", "| Pilot path | `GET /v1-things/{thing_id}` |\n| Logical path | `GET /v1/things/{id}` |"},
		{"single path", "| Path | `GET /health` |"},
		{"bearer with scope", "| Auth | `Authorization: Bearer <API key>` with scope `things:read` |"},
		{"no auth", "| Auth | none |"},
		{"logical path parameter", "| `id` | path (logical path) | yes | string |"},
		{"error codes narrowed", "| 404 | No such thing. | [ErrorBody](#errorbody) | `not_found` |"},
		{"schema link", "| 200 | The thing. | [Thing](#thing) |"},
		{"format", "| `id` | string (uuid) | yes | The id. |"},
		{"array constraints kept apart", "| `tags` | array of string (at most 1 character); at most 3 items | no |"},
		{"type list and bounds", "| `size` | integer or null; minimum 1, default 2 | no |"},
		{"closed object", "### Thing\n\nObject; other properties are refused."},
		{"summary table", "| [getThing](#getthing) | GET | `/v1-things/{thing_id}`, `/v1/things/{id}` | `things:read` |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(page, tt.want) {
				t.Errorf("page lacks %q\npage:\n%s", tt.want, page)
			}
		})
	}
	if strings.Index(page, "## getThing\n") > strings.Index(page, "## health\n") {
		t.Error("operations are not in the document's order (getThing first)")
	}
}

func TestAPIReferenceRejectsBadDocument(t *testing.T) {
	if _, err := APIReference([]byte("openapi: [")); err == nil {
		t.Error("APIReference of broken YAML succeeded; want an error")
	}
}

func TestWriteAPIRef(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeAPIRef(readme, true); err == nil || !strings.Contains(err.Error(), "is stale: run `make docs`") {
		t.Errorf("check with no docs/API.md: %v; want stale", err)
	}
	if err := writeAPIRef(readme, false); err != nil {
		t.Fatalf("write: %v", err)
	}
	if err := writeAPIRef(readme, true); err != nil {
		t.Errorf("check after write: %v; want nil", err)
	}
}
