package manifest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// bucketPrefixes are the clip bucket's key prefixes a function may be
// granted: survey clips and signed quotes' signature images. They do not
// overlap.
var bucketPrefixes = []string{ClipPrefix, SignaturePrefix}

// TestFunctionsInvariants checks every entry: a unique, well-formed slug,
// exactly one trigger, known secrets with an environment variable each,
// write grants only from the table's key patterns, and for each HTTP
// route the fields the pipeline enforces.
func TestFunctionsInvariants(t *testing.T) {
	if len(Functions) == 0 {
		t.Fatal("Functions is empty")
	}
	slugs := map[string]bool{}
	ops := map[Operation]bool{}
	methodPaths := map[string]Operation{}
	defaults := 0
	patterns := table.WritePatterns
	for _, f := range Functions {
		t.Run(f.Slug, func(t *testing.T) {
			if f.Slug == "" || f.Summary == "" || strings.Trim(f.Slug, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
				t.Errorf("function %q: want a lower-case slug and a summary", f.Slug)
			}
			if n := len(f.Description()); n > MaxDescription {
				t.Errorf("function %s: its Lambda description (operations and summary) is %d characters; Lambda takes at most %d: shorten its Summary", f.Slug, n, MaxDescription)
			}
			if slugs[f.Slug] {
				t.Errorf("slug %q appears twice", f.Slug)
			}
			slugs[f.Slug] = true
			if f.Trigger() == "" {
				t.Errorf("function %s declares no trigger or more than one", f.Slug)
			}
			for _, sec := range f.Secrets {
				if !slices.Contains(Secrets, sec) {
					t.Errorf("unknown secret %q", sec)
				}
				if settings.SecretVar(sec) == "" {
					t.Errorf("secret %q has no environment variable in settings.SecretVar", sec)
				}
			}
			for _, w := range f.Table.Write {
				if !slices.Contains(patterns, w) {
					t.Errorf("write pattern %q is not one of the table's key patterns %v", w, patterns)
				}
			}
			for _, p := range append(slices.Clone(f.Bucket.Read), f.Bucket.Write...) {
				if !slices.ContainsFunc(bucketPrefixes, func(bp string) bool { return strings.HasPrefix(p, bp) }) {
					t.Errorf("bucket grant %q is outside the bucket's prefixes %q", p, bucketPrefixes)
				}
			}
			if s3 := f.S3; s3 != nil && !slices.Contains(f.Bucket.Read, s3.Prefix) {
				t.Errorf("S3-triggered function cannot read its trigger prefix %q", s3.Prefix)
			}
			// Signature images are evidence: nothing is started by them
			// (and the stack's lifecycle never expires them).
			if s3 := f.S3; s3 != nil && (strings.HasPrefix(s3.Prefix, SignaturePrefix) || strings.HasPrefix(SignaturePrefix, s3.Prefix)) {
				t.Errorf("S3 trigger on %q covers the signature prefix %q", s3.Prefix, SignaturePrefix)
			}
			for _, r := range f.HTTP {
				checkRoute(t, f, r, ops, methodPaths)
				if r.IsDefault() {
					defaults++
				}
			}
		})
	}
	if defaults != 1 {
		t.Errorf("%d $default routes; want exactly 1", defaults)
	}
}

// TestAgentToolsGrants: the agent tool server may do what the functions
// of its operations do, and no more.
func TestAgentToolsGrants(t *testing.T) {
	f, ok := BySlug(AgentToolsSlug)
	if !ok {
		t.Fatal("no agent tool function")
	}
	want := Function{}
	for _, op := range AgentToolOperations {
		src := FunctionOf(op)
		want.Table.Get = want.Table.Get || src.Table.Get
		want.Table.Query = want.Table.Query || src.Table.Query
		want.Table.QueryItems = want.Table.QueryItems || src.Table.QueryItems
		want.Table.ReadEvents = want.Table.ReadEvents || src.Table.ReadEvents
		want.Table.Write = union(want.Table.Write, src.Table.Write)
		want.Bucket.Write = union(want.Bucket.Write, src.Bucket.Write)
		want.Secrets = union(want.Secrets, src.Secrets)
	}
	for _, w := range []string{table.LeadKeys, table.DepositKeys, table.IdempotencyKeys} {
		if !slices.Contains(f.Table.Write, w) {
			t.Errorf("agent tools cannot write %s", w)
		}
	}
	sorted := func(v []string) []string { v = slices.Clone(v); slices.Sort(v); return v }
	if !slices.Equal(sorted(f.Table.Write), sorted(want.Table.Write)) || !slices.Equal(f.Bucket.Write, want.Bucket.Write) ||
		!slices.Equal(sorted(f.Secrets), sorted(want.Secrets)) || f.Table.Get != want.Table.Get || f.Table.Query != want.Table.Query ||
		f.Table.QueryItems != want.Table.QueryItems || f.Table.ReadEvents != want.Table.ReadEvents ||
		f.S3 != nil || f.Stream != nil || f.Schedule != nil || f.Detect || len(f.Bucket.Read) != 0 {
		t.Errorf("agent tools %+v; want the union of its operations' functions %+v", f, want)
	}
	if !slices.Contains(f.Secrets, SecretStripeKeys) || !slices.Contains(f.Secrets, SecretCursor) {
		t.Errorf("agent tools secrets %q; want the cursor and Stripe keys", f.Secrets)
	}
}

// union returns a with the elements of b it lacks appended, in order.
func union(a, b []string) []string {
	for _, v := range b {
		if !slices.Contains(a, v) {
			a = append(a, v)
		}
	}
	return a
}

func checkRoute(t *testing.T, f Function, r Route, ops map[Operation]bool, methodPaths map[string]Operation) {
	t.Helper()
	if r.Operation == "" || ops[r.Operation] {
		t.Errorf("operation %q empty or listed twice", r.Operation)
	}
	ops[r.Operation] = true
	if r.Response != JSON && r.Response != HTML {
		t.Errorf("%s: response %q; want JSON or HTML", r.Operation, r.Response)
	}
	if r.IsDefault() {
		if r.Method != AnyMethod || r.Auth != AuthNone || r.Idempotent || r.Beta != "" {
			t.Errorf("$default route %+v: want method ANY, no auth, not idempotent, not beta", r)
		}
		if f.Table.Get || f.Table.Query || len(f.Table.Write) > 0 {
			t.Errorf("$default function has table access %+v; it needs none", f.Table)
		}
		return
	}
	switch r.Auth {
	case AuthPartnerKey:
		if !slices.Contains(auth.AllScopes, r.Scope) {
			t.Errorf("%s: scope %q is not in auth.AllScopes", r.Operation, r.Scope)
		}
		if r.RateLimit != PerKey {
			t.Errorf("%s: a partner-key route is counted per key, not %q", r.Operation, r.RateLimit)
		}
	case AuthAgentKey:
		if r.Scope != "" || r.Beta != "" || r.Idempotent || r.RateLimit != PerKey {
			t.Errorf("%s: the agent tool route has no scope, beta or Idempotency-Key of its own (each tool has its operation's) and is counted per key; got %+v", r.Operation, r)
		}
	case AuthCaptureToken, AuthViewToken, AuthQuoteToken:
		if !r.Auth.TokenInPath() {
			t.Errorf("%s: auth kind %q carries its token in the path; TokenInPath must say so (logs redact it)", r.Operation, r.Auth)
		}
		if r.RateLimit != PerToken || r.Scope != "" || r.Idempotent {
			t.Errorf("%s: a token route is counted per token, has no scope and no Idempotency-Key (its calls are idempotent by design); got %+v", r.Operation, r)
		}
		if ParamName(r.PilotPath) != "token" || r.LogicalPath != "" {
			t.Errorf("%s: a token route has the one path %q with the parameter {token}", r.Operation, r.PilotPath)
		}
	case AuthProcessorSignature:
		// The payment processor calls it, not a partner: no key, so no
		// scope, beta gate or per-key count, and no Idempotency-Key (the
		// processor's event id dedupes); one path, which its dashboard
		// names.
		if r.Scope != "" || r.Beta != "" || r.Idempotent || r.RateLimit != NoRateLimit || r.LogicalPath != "" || r.Response != JSON {
			t.Errorf("%s: a processor-signature route has no scope, beta gate, Idempotency-Key, rate limit or logical path, and answers JSON; got %+v", r.Operation, r)
		}
	case AuthDashboardSession:
		if r.RateLimit != NoRateLimit || r.Scope != "" || r.Beta != "" || r.Idempotent || r.LogicalPath != "" {
			t.Errorf("%s: a dashboard route has no scope, beta, Idempotency-Key, rate limit or logical path (its session is the limit); got %+v", r.Operation, r)
		}
	case AuthNone:
	default:
		t.Errorf("%s: unknown auth kind %q", r.Operation, r.Auth)
	}
	if (r.Admin || r.RecentSignIn) && r.Auth != AuthDashboardSession {
		t.Errorf("%s: Admin and RecentSignIn are for dashboard-session routes", r.Operation)
	}
	if r.Beta != "" && !slices.Contains(partner.Features, r.Beta) {
		t.Errorf("%s: unknown beta feature %q", r.Operation, r.Beta)
	}
	if r.Response == HTML && r.Method != "GET" {
		t.Errorf("%s: an HTML page is served by GET, not %s", r.Operation, r.Method)
	}
	if r.BodyLimit <= 0 {
		t.Errorf("%s: body limit %d; want a positive limit", r.Operation, r.BodyLimit)
	}
	switch r.Method {
	case "GET", "POST", "PUT", "PATCH", "DELETE":
	default:
		t.Errorf("method %q; want an upper-case HTTP method", r.Method)
	}
	if p := r.PilotPath; p != "/"+f.Slug && !strings.HasPrefix(p, "/"+f.Slug+"/") {
		t.Errorf("pilot path %q; want /%s or /%s/...", p, f.Slug, f.Slug)
	}
	if r.LogicalPath != "" && !strings.HasPrefix(r.LogicalPath, "/v1/") {
		t.Errorf("logical path %q; want it to start with /v1/", r.LogicalPath)
	}
	for _, p := range r.Paths() {
		if n := strings.Count(p, "{"); n > 1 || n != strings.Count(p, "}") {
			t.Errorf("path %q has %d parameters; want at most one, well formed", p, n)
		}
		if strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
			t.Errorf("path %q has an empty segment or trailing slash", p)
		}
		key := r.Method + " " + p
		if other, dup := methodPaths[key]; dup {
			t.Errorf("%s is served by both %s and %s", key, other, r.Operation)
		}
		methodPaths[key] = r.Operation
	}
	if r.LogicalPath != "" && (ParamName(r.PilotPath) == "") != (ParamName(r.LogicalPath) == "") {
		t.Errorf("pilot path %q and logical path %q: one has a parameter and the other not", r.PilotPath, r.LogicalPath)
	}
	if got := ByOperation(r.Operation); got.Slug != f.Slug {
		t.Errorf("ByOperation(%q).Slug = %q; want %q", r.Operation, got.Slug, f.Slug)
	}
	if got := FunctionOf(r.Operation); got.Slug != f.Slug {
		t.Errorf("FunctionOf(%q) = %q; want %q", r.Operation, got.Slug, f.Slug)
	}
}

func TestBySlugUnknown(t *testing.T) {
	for _, slug := range []string{"", "v1", "v1-leads-", "V1-LEADS"} {
		t.Run(slug, func(t *testing.T) {
			if f, ok := BySlug(slug); ok {
				t.Errorf("BySlug(%q) = %+v, true; want false", slug, f)
			}
		})
	}
}

func TestTrigger(t *testing.T) {
	cases := []struct {
		f    Function
		want TriggerKind
	}{
		{Function{HTTP: []Route{{}}}, TriggerHTTP},
		{Function{S3: &S3Trigger{Prefix: "clips/"}}, TriggerS3},
		{Function{Stream: &StreamTrigger{}}, TriggerStream},
		{Function{Schedule: &ScheduleTrigger{Expression: "rate(1 minute)"}}, TriggerSchedule},
		{Function{Queue: &QueueTrigger{Name: "q"}}, TriggerQueue},
		{Function{}, ""},
		{Function{HTTP: []Route{{}}, S3: &S3Trigger{}}, ""},
	}
	for _, c := range cases {
		if got := c.f.Trigger(); got != c.want {
			t.Errorf("Trigger of %+v = %q; want %q", c.f, got, c.want)
		}
	}
}

// TestTakesAgentKey: exactly the agent tool server's function takes the
// agent key, so exactly it gets the allowed browser origins.
func TestTakesAgentKey(t *testing.T) {
	var got []string
	for _, f := range Functions {
		if f.TakesAgentKey() {
			got = append(got, f.Slug)
		}
	}
	if want := []string{AgentToolsSlug}; !slices.Equal(got, want) {
		t.Errorf("functions taking the agent key: %q; want %q", got, want)
	}
	if (Function{HTTP: []Route{{Auth: AuthPartnerKey}, {Auth: AuthNone}}}).TakesAgentKey() {
		t.Error("a function without an AuthAgentKey route takes the agent key")
	}
}

func TestResolve(t *testing.T) {
	routes := Routes()
	cases := []struct {
		method, path string
		op           Operation
		allowed      []string
	}{
		{"POST", "/v1/leads", CreateLead, nil},
		{"GET", "/v1/leads", ListLeads, nil},
		{"GET", "/v1/leads/abc", GetLead, nil},
		{"DELETE", "/v1/leads", "", []string{"POST", "GET"}},
		{"PUT", "/v1-leads", "", []string{"POST"}},
		{"GET", "/v1/nope", "", nil},
		{"POST", "/v1%2fleads", "", nil},
		{"POST", "/v1/leads/", "", nil},
	}
	for _, c := range cases {
		r, _, _, _, allowed, ok := Resolve(routes, c.method, c.path)
		if ok != (c.op != "") || r.Operation != c.op || !slices.Equal(allowed, c.allowed) {
			t.Errorf("Resolve(%s %s) = %s, %v, %v; want %s, %v", c.method, c.path, r.Operation, allowed, ok, c.op, c.allowed)
		}
	}
}

// TestClipPrefixIsSurveys: the bucket grants and the clip processor's
// trigger name ClipPrefix; survey's object keys must start with it (survey
// keeps its own copy so that it imports no spec package).
func TestClipPrefixIsSurveys(t *testing.T) {
	if got, want := survey.ObjectKey("ptn_1", "test", "s", "c"), ClipPrefix+"ptn_1/test/s/c"; got != want {
		t.Errorf("survey.ObjectKey = %q; want %q", got, want)
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
		{"trailing slash", "/v1/leads", "/v1/leads/", false, "", ""},
		{"trailing slash after param", "/v1/leads/{id}", "/v1/leads/abc/", false, "", ""},
		{"encoded slash stays in the segment", "/v1/leads/{id}", "/v1%2fleads", false, "", ""},
		{"encoded slash in a static path", "/v1/leads", "/v1%2Fleads", false, "", ""},
		{"default never matches", "$default", "/v1/leads", false, "", ""},
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
	for _, r := range PartnerRoutes() {
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
				for _, o := range PartnerRoutes() {
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

// FuzzMatch: any request path is matched without panicking, and a match
// names the template's parameter and a non-empty value without a slash.
func FuzzMatch(f *testing.F) {
	for _, p := range []string{"/v1/leads/abc", "/v1-lead-get/", "//v1/leads", "/v1/leads//x", "", "/", "/v1/leads/a/b"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		for _, r := range PartnerRoutes() {
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

func TestScheduleEvery(t *testing.T) {
	for expr, want := range map[string]time.Duration{
		"rate(1 minute)": time.Minute, "rate(5 minutes)": 5 * time.Minute, "rate(1 hour)": time.Hour, "rate(2 days)": 48 * time.Hour,
	} {
		if got, err := (ScheduleTrigger{Expression: expr}).Every(); err != nil || got != want {
			t.Errorf("%s: %v %v; want %v", expr, got, err, want)
		}
	}
	for _, expr := range []string{"rate(1 minutes)", "rate(2 minute)", "rate(0 minutes)", "cron(0 * * * ? *)", "rate(1 week)", "rate(1minute)", ""} {
		if got, err := (ScheduleTrigger{Expression: expr}).Every(); err == nil {
			t.Errorf("%s: %v; want an error", expr, got)
		}
	}
	for _, f := range Functions {
		if f.Schedule != nil {
			if _, err := f.Schedule.Every(); err != nil {
				t.Errorf("function %s: %v", f.Slug, err)
			}
		}
	}
}

// TestBucketPrefixesAreDisjoint: a grant or trigger on one prefix never
// reaches another's objects (a lifecycle rule on clips/ never expires a
// signature).
func TestBucketPrefixesAreDisjoint(t *testing.T) {
	for i, a := range bucketPrefixes {
		if !strings.HasSuffix(a, "/") {
			t.Errorf("prefix %q; want it to end in /", a)
		}
		for _, b := range bucketPrefixes[i+1:] {
			if strings.HasPrefix(a, b) || strings.HasPrefix(b, a) {
				t.Errorf("prefixes %q and %q overlap", a, b)
			}
		}
	}
}

// TestQueues: every queue a function sends to is some function's queue
// trigger and has a URL variable; every queue trigger has a batch size and
// a MaxConcurrency Lambda accepts (2 to 1000).
func TestQueues(t *testing.T) {
	triggered := map[string]bool{}
	for _, f := range Functions {
		if q := f.Queue; q != nil {
			triggered[q.Name] = true
			if q.BatchSize < 1 || q.BatchSize > 10 || q.MaxConcurrency < 2 || q.MaxConcurrency > 1000 {
				t.Errorf("%s: queue trigger %+v; want BatchSize 1..10, MaxConcurrency 2..1000", f.Slug, *q)
			}
		}
	}
	for _, f := range Functions {
		for _, name := range f.SendsTo {
			if !triggered[name] || settings.QueueURLVar(name) == "" {
				t.Errorf("%s sends to %q: triggered %v, URL variable %q; want both", f.Slug, name, triggered[name], settings.QueueURLVar(name))
			}
		}
	}
	if !triggered[QueueWebhookAttempts] {
		t.Error("no function is triggered by the webhook attempts queue")
	}
}
