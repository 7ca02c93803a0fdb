package stack

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// lambdaNotifications maps each function's logical id to the
// object-created notifications of the clip bucket that invoke it, each as
// "prefix=P suffix=S" (suffix omitted when the rule has none). Any other
// event type, destination or bucket is a test error.
func (s *synthed) lambdaNotifications(t *testing.T) map[string][]string {
	t.Helper()
	clips := s.clipBucketID(t)
	out := map[string][]string{}
	for id, res := range s.resources("Custom::S3BucketNotifications") {
		p := props(res)
		if ref(p["BucketName"]) != clips {
			t.Errorf("%s: notifications of bucket %v; want the clip bucket %s", id, p["BucketName"], clips)
		}
		cfg, _ := p["NotificationConfiguration"].(map[string]any)
		for k := range cfg {
			if k != "LambdaFunctionConfigurations" {
				t.Errorf("%s: unexpected %s", id, k)
			}
		}
		for _, c := range list(cfg["LambdaFunctionConfigurations"]) {
			c := c.(map[string]any)
			if ev := stringList(c["Events"]); !slices.Equal(ev, []string{"s3:ObjectCreated:*"}) {
				t.Errorf("%s: events %v; want [s3:ObjectCreated:*]", id, ev)
			}
			rules := map[string]string{}
			key, _ := c["Filter"].(map[string]any)["Key"].(map[string]any)
			for _, r := range list(key["FilterRules"]) {
				r := r.(map[string]any)
				rules[fmt.Sprint(r["Name"])] = fmt.Sprint(r["Value"])
			}
			filter := "prefix=" + rules["prefix"]
			if sfx, ok := rules["suffix"]; ok {
				filter += " suffix=" + sfx
			}
			fn := getAtt(c["LambdaFunctionArn"], "Arn")
			out[fn] = append(out[fn], filter)
		}
	}
	return out
}

// clipBucketID returns the logical id of the bucket the ClipBucketName
// output names.
func (s *synthed) clipBucketID(t *testing.T) string {
	t.Helper()
	out, _ := s.json["Outputs"].(map[string]any)["ClipBucketName"].(map[string]any)
	id := ref(out["Value"])
	if _, ok := s.resources("AWS::S3::Bucket")[id]; !ok {
		t.Fatalf("ClipBucketName output %v names no bucket", out)
	}
	return id
}

// apiEndpoint returns {"Fn::GetAtt": [<the HTTP API>, "ApiEndpoint"]}.
func (s *synthed) apiEndpoint(t *testing.T) map[string]any {
	t.Helper()
	apis := s.resources("AWS::ApiGatewayV2::Api")
	if len(apis) != 1 {
		t.Fatalf("got %d HTTP APIs; want 1", len(apis))
	}
	for id := range apis {
		return map[string]any{"Fn::GetAtt": []any{id, "ApiEndpoint"}}
	}
	return nil
}

// objectGrants returns the S3 actions granted to the role of the function
// slug, each with the key patterns of the clip bucket it applies to
// ("clips/*"). A resource that is not an object ARN of the clip bucket
// (another bucket, "*", the bucket itself for anything but s3:ListBucket)
// is a test error.
func (s *synthed) objectGrants(t *testing.T, slug string) map[string][]string {
	t.Helper()
	clips := s.clipBucketID(t)
	out := map[string][]string{}
	for _, st := range s.functionStatements(t, slug) {
		for _, a := range st.actions {
			if !strings.HasPrefix(a, "s3:") || st.effect != "Allow" {
				continue
			}
			for _, r := range st.resources {
				// s3:ListBucket on the clip bucket itself (readers: a
				// missing key then answers 404, not 403), recorded as "".
				if a == "s3:ListBucket" && getAtt(r, "Arn") == clips {
					out[a] = append(out[a], "")
					continue
				}
				// {"Fn::Join": ["", [{"Fn::GetAtt": [<bucket>, "Arn"]}, "/clips/*"]]}
				j, _ := r.(map[string]any)["Fn::Join"].([]any)
				var parts []any
				if len(j) == 2 && j[0] == "" {
					parts, _ = j[1].([]any)
				}
				if len(parts) != 2 || getAtt(parts[0], "Arn") != clips || !strings.HasPrefix(fmt.Sprint(parts[1]), "/") {
					t.Errorf("%s: %s on %v; want only objects of the clip bucket", slug, a, r)
					continue
				}
				out[a] = append(out[a], strings.TrimPrefix(fmt.Sprint(parts[1]), "/"))
			}
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

// TestClipProcessorNotifiedOfCreatedClips: S3 invokes clip-processor for
// every object created under clips/, and only it, and may do so only from
// the clip bucket of this account.
func TestClipProcessorNotifiedOfCreatedClips(t *testing.T) {
	s := devStack(t)
	ids := s.functionIDs(t)
	got := s.lambdaNotifications(t)
	want := map[string][]string{}
	for _, f := range manifest.Functions {
		if f.S3 != nil {
			filter := "prefix=" + f.S3.Prefix
			if f.S3.Suffix != "" {
				filter += " suffix=" + f.S3.Suffix
			}
			want[ids[f.Slug]] = []string{filter}
		}
	}
	if pinned := map[string][]string{ids["clip-processor"]: {"prefix=clips/"}}; !reflect.DeepEqual(want, pinned) {
		t.Fatalf("manifest S3 triggers %v; this test expects clip-processor on clips/ alone", want)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bucket notifications (function → filters) = %v; want %v", got, want)
	}

	var perms int
	for id, res := range s.resources("AWS::Lambda::Permission") {
		p := props(res)
		if p["Principal"] != "s3.amazonaws.com" {
			continue
		}
		perms++
		if fn := getAtt(p["FunctionName"], "Arn"); fn != ids["clip-processor"] {
			t.Errorf("%s lets S3 invoke %s; want only clip-processor", id, fn)
		}
		if getAtt(p["SourceArn"], "Arn") != s.clipBucketID(t) || ref(p["SourceAccount"]) != "AWS::AccountId" {
			t.Errorf("%s: SourceArn %v SourceAccount %v; want the clip bucket of this account", id, p["SourceArn"], p["SourceAccount"])
		}
	}
	if perms != 1 {
		t.Errorf("got %d permissions for s3.amazonaws.com; want 1", perms)
	}
}

// TestNotificationsHandlerWritesOnlyItsOwnLogs: the function CDK uses to
// set the bucket's notifications gets no managed policy (TestNoWildcard-
// Actions checks every role) and may only write its own log group, which
// has a retention, and set this bucket's notifications.
func TestNotificationsHandlerWritesOnlyItsOwnLogs(t *testing.T) {
	s := devStack(t)
	h := s.notificationsHandler(t)
	if h == "" {
		t.Fatal("no bucket-notifications handler")
	}
	p := props(s.resources("AWS::Lambda::Function")[h])
	lg := ref(p["LoggingConfig"].(map[string]any)["LogGroup"])
	if days := props(s.resources("AWS::Logs::LogGroup")[lg])["RetentionInDays"]; days == nil {
		t.Errorf("handler log group %q missing or without retention", lg)
	}
	role := getAtt(p["Role"], "Arn")
	got := map[string]string{}
	for _, st := range s.roleStatements(role) {
		if len(st.resources) != 1 {
			t.Errorf("%v on %v; want one resource", st.actions, st.resources)
			continue
		}
		for _, a := range st.actions {
			got[a] = getAtt(st.resources[0], "Arn")
		}
	}
	want := map[string]string{"logs:CreateLogStream": lg, "logs:PutLogEvents": lg, "s3:PutBucketNotification": s.clipBucketID(t)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("handler grants (action → resource) = %v; want %v", got, want)
	}
}

// TestBucketGrantsFollowManifest: each function may GetObject under its
// Bucket.Read prefixes (with ListBucket on the clip bucket, so a missing
// key is a 404) and PutObject under its Bucket.Write prefixes, and
// nothing else in S3.
func TestBucketGrantsFollowManifest(t *testing.T) {
	s := devStack(t)
	for _, f := range manifest.Functions {
		t.Run(f.Slug, func(t *testing.T) {
			want := map[string][]string{}
			for _, p := range f.Bucket.Read {
				want["s3:GetObject"] = append(want["s3:GetObject"], p+"*")
			}
			if len(f.Bucket.Read) > 0 {
				want["s3:ListBucket"] = []string{""}
			}
			for _, p := range f.Bucket.Write {
				want["s3:PutObject"] = append(want["s3:PutObject"], p+"*")
			}
			if got := s.objectGrants(t, f.Slug); !reflect.DeepEqual(got, want) {
				t.Errorf("object grants (action → keys) = %v; want %v", got, want)
			}
		})
	}
	// Pinned: the capture page writes and checks clips, the processor
	// reads them, the viewer page presigns GETs of them; minting a video
	// link touches no object. Recording a signed quote (acceptQuote, the
	// quote page's accept) puts the signature image under signatures/ and
	// may do nothing else in S3: not list, not touch clips; only the quote
	// page reads it back (the signed copy); the other deposit functions
	// touch no object.
	for slug, want := range map[string]map[string][]string{
		"v1-capture":             {"s3:GetObject": {"clips/*"}, "s3:PutObject": {"clips/*"}, "s3:ListBucket": {""}},
		"clip-processor":         {"s3:GetObject": {"clips/*"}, "s3:ListBucket": {""}},
		"v1-video":               {"s3:GetObject": {"clips/*"}, "s3:ListBucket": {""}},
		"dashboard":              {"s3:GetObject": {"clips/*"}, "s3:ListBucket": {""}},
		"v1-lead-survey":         {},
		"v1-survey-video-access": {},
		"v1-accept":              {"s3:PutObject": {"signatures/*"}},
		"v1-quote":               {"s3:GetObject": {"signatures/*"}, "s3:PutObject": {"signatures/*"}, "s3:ListBucket": {""}},
		"v1-mcp":                 {"s3:PutObject": {"signatures/*"}}, // its acceptQuote tool
		"v1-lead-quote":          {},
		"v1-deposits":            {},
		"v1-deposit-status":      {},
		"stripe-webhook":         {},
	} {
		if got := s.objectGrants(t, slug); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: object grants %v; want %v", slug, got, want)
		}
	}
}

// TestFunctionEnvironment: every function gets the table's name; the
// secret ARNs it lists; the events table's name when it writes events;
// the clip bucket's name when it touches the bucket;
// the API's endpoint as PUBLIC_BASE_URL when it makes capture or video
// links or serves a token page; nothing else (and never a value of a
// secret). The dev stack sets no allowed browser origins; with some, only
// v1-mcp gets them (TestAgentToolsAllowedOrigins).
func TestFunctionEnvironment(t *testing.T) {
	s := devStack(t)
	tableID, eventsID := "", s.eventsTableID(t)
	for id := range s.resources("AWS::DynamoDB::Table") {
		if !isEventsID(id) {
			tableID = id
		}
	}
	var withBaseURL, withBucket []string
	for _, f := range manifest.Functions {
		t.Run(f.Slug, func(t *testing.T) {
			id := s.functionIDs(t)[f.Slug]
			vars, _ := props(s.resources("AWS::Lambda::Function")[id])["Environment"].(map[string]any)["Variables"].(map[string]any)
			want := map[string]any{settings.Table: map[string]any{"Ref": tableID}}
			if f.UsesEvents() {
				want[settings.EventsTable] = map[string]any{"Ref": eventsID}
			}
			for _, name := range f.Secrets {
				want[secretEnv[name]] = vars[secretEnv[name]] // TestSecretsReadOnlyByTheirFunctions checks the value
			}
			for _, name := range f.SendsTo {
				want[settings.QueueURLVar(name)] = vars[settings.QueueURLVar(name)] // TestQueues checks the value
			}
			if usesBucket(f) {
				want[settings.ClipBucket] = map[string]any{"Ref": s.clipBucketID(t)}
				withBucket = append(withBucket, f.Slug)
			}
			if needsBaseURL(f) {
				want[settings.PublicBaseURL] = s.apiEndpoint(t)
				withBaseURL = append(withBaseURL, f.Slug)
			}
			if !reflect.DeepEqual(vars, want) {
				t.Errorf("environment %v; want %v", vars, want)
			}
		})
	}
	// The agent tool server runs getSurveyLink, createSurveyVideoAccess,
	// createQuote and createDeposit (links) and acceptQuote (signatures).
	if want := []string{"v1-lead-survey", "v1-capture", "v1-survey-video-access", "v1-video", "v1-lead-quote", "v1-deposits", "v1-quote", "v1-mcp", "dashboard"}; !slices.Equal(withBaseURL, want) {
		t.Errorf("functions with %s: %v; want %v", settings.PublicBaseURL, withBaseURL, want)
	}
	if want := []string{"v1-capture", "v1-video", "v1-accept", "v1-quote", "clip-processor", "v1-mcp", "dashboard"}; !slices.Equal(withBucket, want) {
		t.Errorf("functions with %s: %v; want %v", settings.ClipBucket, withBucket, want)
	}
	assert(t, "BaseUrl output is the same endpoint", func() {
		s.template.HasOutput(jsii.String("BaseUrl"), &map[string]any{"Value": s.apiEndpoint(t)})
	})
}

// TestTemplateHasNoDependencyCycle: CloudFormation refuses a template in
// which resources depend on each other in a circle. The API's endpoint is
// read by the functions and the bucket, the bucket's name by the
// functions, the functions' ARNs by the routes and the notification: all
// one way.
func TestTemplateHasNoDependencyCycle(t *testing.T) {
	for name, s := range map[string]*synthed{"dev": devStack(t), "prod": prodStack(t)} {
		t.Run(name, func(t *testing.T) {
			if c := findCycle(dependencies(s.json)); c != nil {
				t.Errorf("dependency cycle: %s", strings.Join(c, " → "))
			}
		})
	}
}

func TestFindCycle(t *testing.T) {
	tpl := map[string]any{"Resources": map[string]any{
		"Api":    map[string]any{"Type": "X"},
		"Bucket": map[string]any{"Type": "X", "Properties": map[string]any{"O": map[string]any{"Fn::GetAtt": []any{"Api", "ApiEndpoint"}}}},
		"Fn": map[string]any{"Type": "X", "Properties": map[string]any{
			"B": map[string]any{"Ref": "Bucket"}, "U": map[string]any{"Fn::Sub": "${Api.ApiEndpoint}/x ${AWS::Region}"},
		}},
		"Perm": map[string]any{"Type": "X", "DependsOn": []any{"Fn"}},
	}}
	deps := dependencies(tpl)
	if got := deps["Fn"]; !slices.Equal(got, []string{"Api", "Bucket"}) {
		t.Errorf("Fn depends on %v; want [Api Bucket]", got)
	}
	if c := findCycle(deps); c != nil {
		t.Errorf("findCycle = %v; want none", c)
	}
	tpl["Resources"].(map[string]any)["Api"] = map[string]any{"Type": "X", "DependsOn": "Perm"}
	if c := findCycle(dependencies(tpl)); len(c) == 0 || c[0] != c[len(c)-1] {
		t.Errorf("findCycle = %v; want a cycle through Api", c)
	}
}

// dependencies maps each resource of a template to the resources it
// depends on: DependsOn, Ref, Fn::GetAtt and ${...} of Fn::Sub.
func dependencies(tpl map[string]any) map[string][]string {
	res, _ := tpl["Resources"].(map[string]any)
	out := map[string][]string{}
	for id, r := range res {
		seen := map[string]bool{}
		add := func(dep string) {
			dep, _, _ = strings.Cut(dep, ".")
			if _, ok := res[dep]; ok {
				seen[dep] = true
			}
		}
		r := r.(map[string]any)
		for _, d := range list(r["DependsOn"]) {
			add(fmt.Sprint(d))
		}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if s, ok := x["Ref"].(string); ok {
					add(s)
				}
				if ga, ok := x["Fn::GetAtt"].([]any); ok && len(ga) > 0 {
					add(fmt.Sprint(ga[0]))
				}
				if sub, ok := x["Fn::Sub"]; ok {
					str, _ := sub.(string)
					if l, ok := sub.([]any); ok && len(l) > 0 {
						str, _ = l[0].(string)
					}
					for _, part := range strings.Split(str, "${")[1:] {
						name, _, _ := strings.Cut(part, "}")
						add(name)
					}
				}
				for _, c := range x {
					walk(c)
				}
			case []any:
				for _, c := range x {
					walk(c)
				}
			}
		}
		walk(r["Properties"])
		out[id] = sortedKeys(seen)
	}
	return out
}

// findCycle returns one cycle of deps (its first and last element the
// same), or nil when there is none.
func findCycle(deps map[string][]string) []string {
	const (
		unvisited = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		state[n] = onPath
		path = append(path, n)
		for _, d := range deps[n] {
			switch state[d] {
			case onPath:
				i := slices.Index(path, d)
				return append(slices.Clone(path[i:]), d)
			case unvisited:
				if c := visit(d); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	for _, n := range sortedKeys(deps) {
		if state[n] == unvisited {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

func TestNeedsBaseURLAndUsesBucket(t *testing.T) {
	partner := manifest.Route{Operation: "x", Auth: manifest.AuthPartnerKey}
	for _, tc := range []struct {
		name         string
		f            manifest.Function
		base, bucket bool
	}{
		{"partner route", manifest.Function{HTTP: []manifest.Route{partner}}, false, false},
		{"mints capture links", manifest.Function{HTTP: []manifest.Route{partner},
			Table: manifest.TableAccess{Write: []string{table.CaptureTokenKeys}}}, true, false},
		{"capture page", manifest.Function{HTTP: []manifest.Route{{Operation: "p", Auth: manifest.AuthCaptureToken}}}, true, false},
		{"mints video links", manifest.Function{HTTP: []manifest.Route{partner},
			Table: manifest.TableAccess{Write: []string{table.SurveyKeys, table.ViewTokenKeys}}}, true, false},
		{"view page", manifest.Function{HTTP: []manifest.Route{{Operation: "v", Auth: manifest.AuthViewToken}}}, true, false},
		{"mints quote page links", manifest.Function{HTTP: []manifest.Route{partner},
			Table: manifest.TableAccess{Write: []string{table.LeadKeys, table.QuoteTokenKeys}}}, true, false},
		{"quote page", manifest.Function{HTTP: []manifest.Route{{Operation: "q", Auth: manifest.AuthQuoteToken}}}, true, false},
		{"processor webhook", manifest.Function{HTTP: []manifest.Route{{Operation: "w", Auth: manifest.AuthProcessorSignature}},
			Table: manifest.TableAccess{Write: []string{table.DepositKeys, table.StripeKeys}}}, false, false},
		{"writes signatures", manifest.Function{HTTP: []manifest.Route{partner}, Bucket: manifest.BucketAccess{Write: []string{manifest.SignaturePrefix}}}, false, true},
		{"reads clips", manifest.Function{HTTP: []manifest.Route{partner}, Bucket: manifest.BucketAccess{Read: []string{"clips/"}}}, false, true},
		{"writes clips", manifest.Function{HTTP: []manifest.Route{partner}, Bucket: manifest.BucketAccess{Write: []string{"clips/"}}}, false, true},
		{"s3 trigger", manifest.Function{S3: &manifest.S3Trigger{Prefix: "clips/"}}, false, true},
		{"dashboard", manifest.Function{HTTP: []manifest.Route{{Operation: "d", Auth: manifest.AuthDashboardSession}}}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := needsBaseURL(tc.f); got != tc.base {
				t.Errorf("needsBaseURL = %v; want %v", got, tc.base)
			}
			if got := usesBucket(tc.f); got != tc.bucket {
				t.Errorf("usesBucket = %v; want %v", got, tc.bucket)
			}
		})
	}
}
