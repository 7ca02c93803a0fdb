package route

import (
	"slices"
	"strings"
	"testing"
)

func TestTableInvariants(t *testing.T) {
	if len(Table) == 0 {
		t.Fatal("Table is empty")
	}
	slugs := map[string]bool{}
	ops := map[Operation]bool{}
	methodPaths := map[string]Operation{}
	for _, r := range Table {
		t.Run(string(r.Operation), func(t *testing.T) {
			if r.Operation == "" || r.Slug == "" || r.Summary == "" {
				t.Errorf("route %+v lacks an operation, slug or summary", r)
			}
			if slugs[r.Slug] {
				t.Errorf("slug %q appears twice", r.Slug)
			}
			slugs[r.Slug] = true
			if ops[r.Operation] {
				t.Errorf("operation %q appears twice", r.Operation)
			}
			ops[r.Operation] = true
			switch r.Method {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
			default:
				t.Errorf("method %q; want an upper-case HTTP method", r.Method)
			}
			if p := r.PilotPath; p != "/"+r.Slug && !strings.HasPrefix(p, "/"+r.Slug+"/") {
				t.Errorf("pilot path %q; want /%s or /%s/...", p, r.Slug, r.Slug)
			}
			if !strings.HasPrefix(r.LogicalPath, "/v1/") {
				t.Errorf("logical path %q; want it to start with /v1/", r.LogicalPath)
			}
			if !slices.Contains(AllScopes, r.Scope) {
				t.Errorf("scope %q is not in AllScopes", r.Scope)
			}
			for _, p := range r.Paths() {
				if n := strings.Count(p, "{"); n > 1 || n != strings.Count(p, "}") {
					t.Errorf("path %q has %d parameters; want at most one, well formed", p, n)
				}
				if strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
					t.Errorf("path %q has an empty segment or trailing slash", p)
				}
				if name := ParamName(p); strings.Contains(p, "{") && (name == "" || !strings.HasSuffix(p, "/{"+name+"}") && !strings.Contains(p, "/{"+name+"}/")) {
					t.Errorf("path %q: parameter must fill a whole segment", p)
				}
				key := r.Method + " " + p
				if other, dup := methodPaths[key]; dup {
					t.Errorf("%s is served by both %s and %s", key, other, r.Operation)
				}
				methodPaths[key] = r.Operation
			}
			if (ParamName(r.PilotPath) == "") != (ParamName(r.LogicalPath) == "") {
				t.Errorf("pilot path %q and logical path %q: one has a parameter and the other not", r.PilotPath, r.LogicalPath)
			}
			if r.Data == 0 {
				t.Errorf("route declares no table access; its function would get no grant but the key update")
			}
			for _, sec := range r.Secrets {
				if sec != SecretCursor {
					t.Errorf("unknown secret %q", sec)
				}
			}
			if got := ByOperation(r.Operation); got.Slug != r.Slug {
				t.Errorf("ByOperation(%q).Slug = %q; want %q", r.Operation, got.Slug, r.Slug)
			}
			if got, ok := BySlug(r.Slug); !ok || got.Operation != r.Operation {
				t.Errorf("BySlug(%q) = %q, %v; want %q, true", r.Slug, got.Operation, ok, r.Operation)
			}
		})
	}
}

func TestAllScopesUnique(t *testing.T) {
	seen := map[Scope]bool{}
	for _, s := range AllScopes {
		if seen[s] {
			t.Errorf("scope %q listed twice", s)
		}
		seen[s] = true
	}
}

func TestBySlugUnknown(t *testing.T) {
	for _, slug := range []string{"", "v1", "v1-leads-", "V1-LEADS"} {
		t.Run(slug, func(t *testing.T) {
			if r, ok := BySlug(slug); ok {
				t.Errorf("BySlug(%q) = %+v, true; want false", slug, r)
			}
		})
	}
}

func TestByOperationPanicsOnUnknown(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ByOperation(\"nope\") did not panic; want a panic")
		}
	}()
	ByOperation("nope")
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name, template, path string
		ok                   bool
		param, value         string
	}{
		{"exact", "/v1/leads", "/v1/leads", true, "", ""},
		{"exact pilot", "/v1-leads", "/v1-leads", true, "", ""},
		{"param", "/v1/leads/{id}", "/v1/leads/abc", true, "id", "abc"},
		{"pilot param", "/v1-lead-get/{lead_id}", "/v1-lead-get/3f2b8c1e", true, "lead_id", "3f2b8c1e"},
		{"param keeps its text", "/v1/leads/{id}", "/v1/leads/a.b-c_~%20", true, "id", "a.b-c_~%20"},
		{"trailing slash", "/v1/leads", "/v1/leads/", true, "", ""},
		{"trailing slash after param", "/v1/leads/{id}", "/v1/leads/abc/", true, "id", "abc"},
		{"other path", "/v1/leads", "/v1/quotes", false, "", ""},
		{"prefix of path", "/v1/leads", "/v1/leadsx", false, "", ""},
		{"case differs", "/v1/leads", "/V1/Leads", false, "", ""},
		{"extra segment", "/v1/leads", "/v1/leads/abc", false, "", ""},
		{"extra segment after param", "/v1/leads/{id}", "/v1/leads/abc/def", false, "", ""},
		{"missing segment", "/v1/leads/{id}", "/v1/leads", false, "", ""},
		{"empty param segment", "/v1/leads/{id}", "/v1/leads/", false, "", ""},
		{"empty param, double slash", "/v1/leads/{id}", "/v1/leads//", false, "", ""},
		{"double slash inside", "/v1/leads", "/v1//leads", false, "", ""},
		{"double slash at end", "/v1/leads", "/v1/leads//", false, "", ""},
		{"double slash at start", "/v1/leads", "//v1/leads", false, "", ""},
		{"empty path", "/v1/leads", "", false, "", ""},
		{"root", "/v1/leads", "/", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, name, value := Match(tt.template, tt.path)
			if ok != tt.ok || name != tt.param || value != tt.value {
				t.Errorf("Match(%q, %q) = %v, %q, %q; want %v, %q, %q", tt.template, tt.path, ok, name, value, tt.ok, tt.param, tt.value)
			}
		})
	}
}

// TestMatchTable checks that every route's paths match themselves (with a
// value for the parameter) and no other route's paths.
func TestMatchTable(t *testing.T) {
	fill := func(p string) string {
		if name := ParamName(p); name != "" {
			return strings.Replace(p, "{"+name+"}", "x1", 1)
		}
		return p
	}
	for _, r := range Table {
		for _, p := range r.Paths() {
			t.Run(string(r.Operation)+p, func(t *testing.T) {
				path := fill(p)
				ok, name, value := Match(p, path)
				wantValue := ""
				if ParamName(p) != "" {
					wantValue = "x1"
				}
				if !ok || name != ParamName(p) || value != wantValue {
					t.Errorf("Match(%q, %q) = %v, %q, %q; want true, %q, %q", p, path, ok, name, value, ParamName(p), wantValue)
				}
				for _, o := range Table {
					if o.Method != r.Method || o.Operation == r.Operation {
						continue
					}
					for _, op := range o.Paths() {
						if ok, _, _ := Match(op, path); ok {
							t.Errorf("%s %s also matches %s's template %q", r.Method, path, o.Operation, op)
						}
					}
				}
			})
		}
	}
}

func TestParamName(t *testing.T) {
	tests := []struct {
		template, want string
	}{
		{"/v1/leads", ""},
		{"/v1/leads/{id}", "id"},
		{"/v1-lead-get/{lead_id}", "lead_id"},
		{"/v1/leads/{}", ""},
		{"/v1/leads/}{", ""},
		{"/v1/leads/{id", ""},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			if got := ParamName(tt.template); got != tt.want {
				t.Errorf("ParamName(%q) = %q; want %q", tt.template, got, tt.want)
			}
		})
	}
}

func TestPathParam(t *testing.T) {
	get := ByOperation(GetLead)
	list := ByOperation(ListLeads)
	tests := []struct {
		name   string
		r      Route
		params map[string]string
		want   string
	}{
		{"pilot name", get, map[string]string{"lead_id": "abc"}, "abc"},
		{"logical name", get, map[string]string{"id": "def"}, "def"},
		{"pilot name wins when both are sent", get, map[string]string{"lead_id": "abc", "id": "def"}, "abc"},
		{"empty value is returned as is", get, map[string]string{"lead_id": ""}, ""},
		{"no params", get, nil, ""},
		{"unrelated param", get, map[string]string{"other": "x"}, ""},
		{"route without a parameter", list, map[string]string{"id": "x", "lead_id": "y"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.PathParam(tt.params); got != tt.want {
				t.Errorf("%s.PathParam(%v) = %q; want %q", tt.r.Operation, tt.params, got, tt.want)
			}
		})
	}
}

func TestParseScope(t *testing.T) {
	for _, s := range AllScopes {
		t.Run(string(s), func(t *testing.T) {
			got, err := ParseScope(string(s))
			if err != nil || got != s {
				t.Errorf("ParseScope(%q) = %q, %v; want %q, nil", s, got, err, s)
			}
		})
	}
	for _, s := range []string{"", "leads", "leads:*", "LEADS:READ", " leads:read", "leads:read ", "leads:delete"} {
		t.Run("reject "+s, func(t *testing.T) {
			got, err := ParseScope(s)
			if err == nil || got != "" {
				t.Fatalf("ParseScope(%q) = %q, %v; want an error", s, got, err)
			}
			for _, known := range AllScopes {
				if !strings.Contains(err.Error(), string(known)) {
					t.Errorf("ParseScope(%q) error %q does not name known scope %q", s, err, known)
				}
			}
		})
	}
}

// FuzzMatch: any request path is matched without panicking, and a match
// names the template's parameter and a non-empty value without a slash.
func FuzzMatch(f *testing.F) {
	for _, p := range []string{"/v1/leads/abc", "/v1-lead-get/", "//v1/leads", "/v1/leads//x", "", "/", "/v1/leads/a/b"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		for _, r := range Table {
			for _, tmpl := range r.Paths() {
				ok, name, value := Match(tmpl, path)
				if !ok {
					continue
				}
				if name != ParamName(tmpl) || (name != "" && (value == "" || strings.Contains(value, "/"))) {
					t.Errorf("Match(%q, %q) = %v, %q, %q", tmpl, path, ok, name, value)
				}
			}
		}
	})
}
