// Package route is the single source of truth for the partner API's routes:
// which Lambda function (slug) serves which operation, at which pilot path
// and logical path, with which scope, and whether the route is beta-gated.
//
// The local gateway, the tests, the OpenAPI checks, the SAM template checks
// and the CDK stack all read Table; nothing else lists routes.
package route

import (
	"fmt"
	"strings"
)

// Scope is a permission carried by an API key.
type Scope string

// The scopes a key can carry. A key created without explicit scopes gets All.
const (
	LeadsRead     Scope = "leads:read"
	LeadsWrite    Scope = "leads:write"
	SurveysRead   Scope = "surveys:read"
	SurveysWrite  Scope = "surveys:write"
	DepositsRead  Scope = "deposits:read"
	DepositsWrite Scope = "deposits:write"
)

// AllScopes lists every scope, in a stable order. It is the default for new keys.
var AllScopes = []Scope{LeadsRead, LeadsWrite, SurveysRead, SurveysWrite, DepositsRead, DepositsWrite}

// ParseScope returns the scope named s, or an error naming the known scopes.
func ParseScope(s string) (Scope, error) {
	for _, sc := range AllScopes {
		if string(sc) == s {
			return sc, nil
		}
	}
	names := make([]string, len(AllScopes))
	for i, sc := range AllScopes {
		names[i] = string(sc)
	}
	return "", fmt.Errorf("unknown scope %q (known: %s)", s, strings.Join(names, ", "))
}

// Operation names an API operation, as in the spec (createLead, listLeads, ...).
type Operation string

// The operations served today.
const (
	CreateLead Operation = "createLead"
	ListLeads  Operation = "listLeads"
	GetLead    Operation = "getLead"
)

// Access is a set of table permissions a function needs.
type Access int

// The kinds of table access.
const (
	ReadItems  Access = 1 << iota // GetItem on the table
	QueryIndex                    // Query on the gsi1 index
	WriteItems                    // PutItem, UpdateItem on the table
)

// Has reports whether a includes every access in b.
func (a Access) Has(b Access) bool { return a&b == b }

// Secret names. Each is deployed as one secret and read by the functions
// whose route lists it.
const (
	// SecretCursor signs listLeads cursors (at least 32 random bytes).
	SecretCursor = "cursor-signing-key"
)

// Route is one operation served by one function at two paths.
//
// Paths use API Gateway's template syntax ({name} for a path parameter) and
// hold at most one parameter.
type Route struct {
	Operation   Operation
	Slug        string // functions/<Slug>, also the pilot path's first segment
	Method      string
	PilotPath   string // e.g. /v1-lead-get/{lead_id}
	LogicalPath string // e.g. /v1/leads/{id}
	Scope       Scope
	Beta        bool
	// Idempotent routes accept an Idempotency-Key header.
	Idempotent bool
	// Data is what the route's function does to the table beyond
	// authenticating and counting the request, which every function does
	// with one conditional UpdateItem on its key's record. It drives the
	// deployed function's least-privilege grants.
	Data Access
	// Secrets names the secrets the function reads (see the Secret* names).
	Secrets []string
	// Summary is a one-line description used in generated docs.
	Summary string
}

// Table lists every route. Order is the order docs present them in.
var Table = []Route{
	{
		Operation: CreateLead, Slug: "v1-leads", Method: "POST",
		PilotPath: "/v1-leads", LogicalPath: "/v1/leads",
		Scope: LeadsWrite, Idempotent: true,
		// GetItem: a duplicate polls the idempotency record it waits for.
		Data:    ReadItems | WriteItems,
		Summary: "Create a lead; returns an instant estimate when enough is known.",
	},
	{
		Operation: ListLeads, Slug: "v1-leads-list", Method: "GET",
		PilotPath: "/v1-leads-list", LogicalPath: "/v1/leads",
		Scope: LeadsRead, Data: QueryIndex, Secrets: []string{SecretCursor},
		Summary: "List leads by (updated_at, lead_id) with keyset pagination and delta sync.",
	},
	{
		Operation: GetLead, Slug: "v1-lead-get", Method: "GET",
		PilotPath: "/v1-lead-get/{lead_id}", LogicalPath: "/v1/leads/{id}",
		Scope: LeadsRead, Data: ReadItems,
		Summary: "Read one lead's status.",
	},
}

// ByOperation returns the route of op. It panics when op is not in Table,
// which is a programming error caught by every test that builds a handler.
func ByOperation(op Operation) Route {
	for _, r := range Table {
		if r.Operation == op {
			return r
		}
	}
	panic(fmt.Sprintf("route: no route for operation %q", op))
}

// BySlug returns the route served by the function named slug.
func BySlug(slug string) (Route, bool) {
	for _, r := range Table {
		if r.Slug == slug {
			return r, true
		}
	}
	return Route{}, false
}

// Paths returns both path templates of r, pilot first.
func (r Route) Paths() []string { return []string{r.PilotPath, r.LogicalPath} }

// PathParam returns the value of r's path parameter from params (as API
// Gateway fills them), whichever path form matched. It returns "" when the
// route has no parameter or none was supplied.
func (r Route) PathParam(params map[string]string) string {
	for _, p := range r.Paths() {
		if name := ParamName(p); name != "" {
			if v, ok := params[name]; ok {
				return v
			}
		}
	}
	return ""
}

// ParamName returns the name of the path parameter in template, or "".
func ParamName(template string) string {
	i := strings.IndexByte(template, '{')
	j := strings.IndexByte(template, '}')
	if i < 0 || j < i {
		return ""
	}
	return template[i+1 : j]
}

// Match reports whether path matches template and, when it does, the path
// parameter's name and value (both "" when the template has none). A
// parameter matches exactly one non-empty path segment.
func Match(template, path string) (ok bool, name, value string) {
	ts := strings.Split(strings.Trim(template, "/"), "/")
	ps := strings.Split(strings.Trim(path, "/"), "/")
	if len(ts) != len(ps) || strings.Contains(path, "//") {
		return false, "", ""
	}
	for i, seg := range ts {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			if ps[i] == "" {
				return false, "", ""
			}
			name, value = seg[1:len(seg)-1], ps[i]
			continue
		}
		if seg != ps[i] {
			return false, "", ""
		}
	}
	return true, name, value
}
