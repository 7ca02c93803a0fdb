package stack

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// leadingKeys returns the condition that limits a statement to items whose
// partition key matches patterns.
func leadingKeys(patterns ...string) map[string]any {
	ps := make([]any, len(patterns))
	for i, p := range patterns {
		ps[i] = p
	}
	return map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": ps}}
}

// writeActions are the DynamoDB actions that change items, and
// ConditionCheckItem, which changes none but is part of a write
// transaction (TransactWriteItems' ConditionCheck): like the writes it
// guards it must be limited by leading keys.
var writeActions = []string{
	"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem",
	"dynamodb:PartiQLInsert", "dynamodb:PartiQLUpdate", "dynamodb:PartiQLDelete", "dynamodb:ConditionCheckItem",
}

// isWrite reports whether action may change items, or check them in a
// write transaction (wildcards included).
func isWrite(action string) bool {
	return slices.Contains(writeActions, action) || action == "*" ||
		(strings.HasPrefix(action, "dynamodb:") && strings.Contains(action, "*"))
}

// readOnly returns the slugs of the manifest's partner-key functions that
// write nothing but their key records.
func readOnly(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range manifest.Functions {
		if servesPartnerKeys(f) && len(f.Table.Write) == 0 {
			out = append(out, f.Slug)
		}
	}
	if !slices.Contains(out, "v1-lead-get") || !slices.Contains(out, "v1-leads-list") {
		t.Fatalf("read-only functions %q; want v1-lead-get and v1-leads-list among them", out)
	}
	return out
}

func TestReadOnlyFunctionsUpdateOnlyKeyRecords(t *testing.T) {
	s := devStack(t)
	for _, slug := range readOnly(t) {
		t.Run(slug, func(t *testing.T) {
			var updates int
			for _, st := range s.functionStatements(t, slug) {
				if st.effect != "Allow" {
					continue
				}
				for _, a := range st.actions {
					if !isWrite(a) {
						continue
					}
					if a != "dynamodb:UpdateItem" {
						t.Errorf("write action %s granted; want only the key-record UpdateItem (no PutItem)", a)
						continue
					}
					updates++
					if want := leadingKeys(table.AuthKeys); !reflect.DeepEqual(st.condition, want) {
						t.Errorf("UpdateItem condition = %v; want %v", st.condition, want)
					}
					if len(st.resources) != 1 || !s.isTableArn(st.resources[0]) {
						t.Errorf("UpdateItem resources = %v; want the table's ARN only", st.resources)
					}
				}
			}
			if updates != 1 {
				t.Errorf("got %d UpdateItem grants; want 1 (authenticate and count)", updates)
			}
		})
	}
}

// TestCreateLeadWritesOnlyItsLeadingKeys: createLead may put and update
// leads and idempotency records (exactly the manifest's Write patterns),
// update its key record, and write nothing else: no key record put, no
// partner profile.
func TestCreateLeadWritesOnlyItsLeadingKeys(t *testing.T) {
	f := manifest.FunctionOf(manifest.CreateLead)
	if want := []string{table.LeadKeys, table.IdempotencyKeys}; !slices.Equal(f.Table.Write, want) {
		t.Fatalf("manifest: %s writes %q; this test expects %q", f.Slug, f.Table.Write, want)
	}
	s := devStack(t)
	writes := map[string][]map[string]any{} // action → conditions
	for _, st := range s.functionStatements(t, f.Slug) {
		if st.effect != "Allow" {
			continue
		}
		for _, a := range st.actions {
			if !isWrite(a) {
				continue
			}
			if len(st.resources) != 1 || !s.isTableArn(st.resources[0]) {
				t.Errorf("%s on %v; want the table's ARN only", a, st.resources)
			}
			writes[a] = append(writes[a], st.condition)
		}
	}
	want := map[string][]map[string]any{
		"dynamodb:PutItem":            {leadingKeys(f.Table.Write...)},
		"dynamodb:UpdateItem":         {leadingKeys(table.AuthKeys), leadingKeys(f.Table.Write...)},
		"dynamodb:ConditionCheckItem": {leadingKeys(f.Table.Write...)},
	}
	for a, conds := range writes {
		slices.SortFunc(conds, func(x, y map[string]any) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
		writes[a] = conds
	}
	for a, conds := range want {
		slices.SortFunc(conds, func(x, y map[string]any) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
		want[a] = conds
	}
	if !reflect.DeepEqual(writes, want) {
		t.Errorf("write grants (action → conditions) = %v; want %v", writes, want)
	}
}

// TestRouteNotFoundTouchesNoTable: the $default function reads and writes
// nothing.
func TestRouteNotFoundTouchesNoTable(t *testing.T) {
	s := devStack(t)
	for _, st := range s.functionStatements(t, "route-not-found") {
		for _, a := range st.actions {
			if !strings.HasPrefix(a, "logs:") {
				t.Errorf("route-not-found is granted %s on %v; want only its own logs", a, st.resources)
			}
		}
	}
}

// grantOn names where a DynamoDB statement applies: "table" or "index",
// then, when it is limited by leading key, "keys=" and the patterns.
func (s *synthed) grantOn(t *testing.T, st statement) string {
	t.Helper()
	if len(st.resources) == len(table.EventIndexes) && len(st.resources) > 1 && st.condition == nil {
		for i, ix := range table.EventIndexes {
			if !s.isEventsSub(st.resources[i], "/index/"+ix.Name) {
				t.Errorf("%v on %v; want the events table's indexes %v", st.actions, st.resources, table.EventIndexes)
				return "?"
			}
		}
		return "events-indexes"
	}
	if len(st.resources) != 1 {
		t.Errorf("%v on %d resources; want 1", st.actions, len(st.resources))
		return "?"
	}
	on := "?"
	switch {
	case s.isTableArn(st.resources[0]):
		on = "table"
	case s.isEventsArn(st.resources[0]):
		on = "events"
	case s.isIndexArn(st.resources[0], "gsi1"):
		on = "index"
	case s.isStreamArn(st.resources[0]):
		on = "stream"
	case s.isEventsSub(st.resources[0], "/stream/*"):
		on = "streams"
	}
	if st.condition != nil {
		like, _ := st.condition["ForAllValues:StringLike"].(map[string]any)
		if len(st.condition) != 1 || len(like) != 1 {
			t.Errorf("%v: unexpected condition %v", st.actions, st.condition)
		}
		on += ":keys=" + strings.Join(stringList(like["dynamodb:LeadingKeys"]), ",")
	}
	return on
}

// wantDynamo is the oracle for a function's DynamoDB grants, from its
// manifest entry: action to where it is granted (see grantOn). A stream
// function also reads the table's stream: its records on the stream's
// ARN, ListStreams on the table's streams.
func wantDynamo(f manifest.Function) map[string][]string {
	w := map[string][]string{}
	if f.Stream != nil {
		for _, a := range []string{"dynamodb:DescribeStream", "dynamodb:GetShardIterator", "dynamodb:GetRecords"} {
			w[a] = []string{"stream"}
		}
		w["dynamodb:ListStreams"] = []string{"streams"}
	}
	if servesPartnerKeys(f) {
		w["dynamodb:UpdateItem"] = []string{"table:keys=" + table.AuthKeys}
	}
	if f.Table.Get {
		w["dynamodb:GetItem"] = []string{"table"}
	}
	if f.Table.Query {
		w["dynamodb:Query"] = append(w["dynamodb:Query"], "index")
	}
	if f.Table.QueryItems {
		w["dynamodb:Query"] = append(w["dynamodb:Query"], "table")
	}
	// Events owed are written to the events table, everything else to
	// the main one.
	main := slices.DeleteFunc(slices.Clone(f.Table.Write), func(k string) bool { return k == table.EventKeys })
	if len(main) > 0 {
		keys := "table:keys=" + strings.Join(slices.Sorted(slices.Values(main)), ",")
		w["dynamodb:PutItem"] = []string{keys}
		w["dynamodb:UpdateItem"] = append(w["dynamodb:UpdateItem"], keys)
		w["dynamodb:ConditionCheckItem"] = []string{keys}
	}
	if slices.Contains(f.Table.Write, table.EventKeys) {
		keys := "events:keys=" + table.EventKeys
		for _, a := range []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"} {
			w[a] = append(w[a], keys)
		}
	}
	if f.Table.ReadEvents {
		w["dynamodb:GetItem"] = append(w["dynamodb:GetItem"], "events")
		w["dynamodb:Query"] = append(w["dynamodb:Query"], "events-indexes")
	}
	return w
}

// TestEveryWriteIsLimitedByLeadingKeys: in every function's role, each
// action that writes items, or checks them in a write transaction, is
// granted on the table itself and only for partition keys matching
// patterns the manifest knows (table.WritePatterns, and table.AuthKeys for
// the key-record update), never unconditionally.
func TestEveryWriteIsLimitedByLeadingKeys(t *testing.T) {
	s := devStack(t)
	known := append([]string{table.AuthKeys}, table.WritePatterns...)
	for _, f := range manifest.Functions {
		t.Run(f.Slug, func(t *testing.T) {
			for _, st := range s.functionStatements(t, f.Slug) {
				if st.effect != "Allow" {
					continue
				}
				for _, a := range st.actions {
					if !isWrite(a) {
						continue
					}
					if len(st.resources) != 1 || !s.isTableArn(st.resources[0]) && !s.isEventsArn(st.resources[0]) {
						t.Errorf("%s on %v; want the table's or the events table's ARN only", a, st.resources)
					}
					like, _ := st.condition["ForAllValues:StringLike"].(map[string]any)
					keys := stringList(like["dynamodb:LeadingKeys"])
					if len(st.condition) != 1 || len(like) != 1 || len(keys) == 0 {
						t.Errorf("%s with condition %v; want it limited by dynamodb:LeadingKeys", a, st.condition)
					}
					for _, k := range keys {
						if !slices.Contains(known, k) {
							t.Errorf("%s on leading keys %q; want only patterns of shared/spec/table (%q)", a, k, known)
						}
					}
				}
			}
		})
	}
}

// TestVideoOpenMayCheckItsSurvey: opening a video link is one
// TransactWriteItems whose ConditionCheck reads the survey item
// (PARTNER#…#SURVEY#…), so v1-video needs dynamodb:ConditionCheckItem on
// the survey's leading keys (without it every open fails with
// AccessDenied in AWS, while DynamoDB Local, which checks no IAM, serves
// it).
func TestVideoOpenMayCheckItsSurvey(t *testing.T) {
	s := devStack(t)
	var got []string
	for _, st := range s.functionStatements(t, "v1-video") {
		if st.effect == "Allow" && slices.Contains(st.actions, "dynamodb:ConditionCheckItem") {
			got = append(got, s.grantOn(t, st))
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], table.SurveyKeys) {
		t.Errorf("v1-video: dynamodb:ConditionCheckItem on %v; want one grant on the table whose leading keys include %s", got, table.SurveyKeys)
	}
}

func TestDynamoGrantsFollowManifest(t *testing.T) {
	s := devStack(t)
	for _, f := range manifest.Functions {
		t.Run(f.Slug, func(t *testing.T) { checkDynamo(t, s, f) })
	}
	// Pinned: the agent tool server authenticates and counts the partner
	// key of X-Partner-Key on its key record, as the API's functions do.
	var keyUpdate bool
	for _, st := range s.functionStatements(t, manifest.AgentToolsSlug) {
		if st.effect == "Allow" && slices.Contains(st.actions, "dynamodb:UpdateItem") &&
			s.grantOn(t, st) == "table:keys="+table.AuthKeys {
			keyUpdate = true
		}
	}
	if !keyUpdate {
		t.Errorf("%s: no dynamodb:UpdateItem on key records (%s); want it to authenticate and count X-Partner-Key", manifest.AgentToolsSlug, table.AuthKeys)
	}
	// Pinned: only the dispatcher reads the stream.
	for _, f := range manifest.Functions {
		if reads := wantDynamo(f)["dynamodb:GetRecords"] != nil; reads != (f.Slug == "webhook-dispatcher") {
			t.Errorf("%s reads the table's stream: %v", f.Slug, reads)
		}
	}
}

// checkDynamo checks that f's DynamoDB grants in s are exactly
// wantDynamo's.
func checkDynamo(t *testing.T, s *synthed, f manifest.Function) {
	t.Helper()
	got := map[string][]string{}
	for _, st := range s.functionStatements(t, f.Slug) {
		if st.effect != "Allow" {
			continue
		}
		for _, a := range st.actions {
			if strings.HasPrefix(a, "dynamodb:") {
				got[a] = append(got[a], s.grantOn(t, st))
			}
		}
	}
	for _, v := range got {
		slices.Sort(v)
	}
	want := wantDynamo(f)
	for _, v := range want {
		slices.Sort(v)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: dynamodb grants = %v; want %v", f.Slug, got, want)
	}
}

// isStreamArn reports whether v is the table's stream's ARN.
func (s *synthed) isStreamArn(v any) bool {
	for id := range s.resources("AWS::DynamoDB::Table") {
		if getAtt(v, "StreamArn") == id && isEventsID(id) {
			return true
		}
	}
	return false
}

// isTableSub reports whether v is {"Fn::Join": ["", [<table ARN>, suffix]]}.
func (s *synthed) isTableSub(v any, suffix string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	j, ok := m["Fn::Join"].([]any)
	if !ok || len(j) != 2 || j[0] != "" {
		return false
	}
	parts, ok := j[1].([]any)
	return ok && len(parts) == 2 && s.isTableArn(parts[0]) && parts[1] == suffix
}

// isEventsSub is isTableSub of the events table's ARN.
func (s *synthed) isEventsSub(v any, suffix string) bool {
	m, _ := v.(map[string]any)
	j, _ := m["Fn::Join"].([]any)
	if len(j) != 2 || j[0] != "" {
		return false
	}
	parts, ok := j[1].([]any)
	return ok && len(parts) == 2 && s.isEventsArn(parts[0]) && parts[1] == suffix
}

// isIndexArn reports whether v is the ARN of the table's index name:
// {"Fn::Join": ["", [<table ARN>, "/index/<name>"]]}.
func (s *synthed) isIndexArn(v any, name string) bool { return s.isTableSub(v, "/index/"+name) }

func TestNoWildcardActions(t *testing.T) {
	for name, s := range map[string]*synthed{"dev": devStack(t), "prod": prodStack(t)} {
		t.Run(name, func(t *testing.T) {
			sts := s.allStatements()
			if len(sts) == 0 {
				t.Fatal("no IAM statements found; the walk is broken")
			}
			for _, st := range sts {
				if st.effect != "Allow" {
					continue // enforceSSL denies s3:* and sns:Publish, which is the point
				}
				for _, a := range st.actions {
					if a == "*" || a == "dynamodb:*" || a == "s3:*" {
						t.Errorf("Allow statement grants %q: %+v", a, st)
					}
				}
			}
			for id, res := range s.resources("AWS::IAM::Role") {
				for _, arn := range list(props(res)["ManagedPolicyArns"]) {
					t.Errorf("role %s has managed policy %v; want only explicit statements", id, arn)
				}
			}
		})
	}
}

// secretConstructs maps each deployed secret's name to its construct id
// (generatedSecrets and operatorSecrets).
func secretConstructs() map[string]string {
	out := map[string]string{}
	for name, g := range generatedSecrets {
		out[name] = g.id
	}
	for name, o := range operatorSecrets {
		out[name] = o.id
	}
	return out
}

// secretIDs maps each deployed secret's name to its logical id, by its
// construct id (secretConstructs).
func (s *synthed) secretIDs(t *testing.T) map[string]string {
	t.Helper()
	secrets := s.resources("AWS::SecretsManager::Secret")
	constructs := secretConstructs()
	out := map[string]string{}
	for name, cid := range constructs {
		for id := range secrets {
			if strings.HasPrefix(id, cid) && len(id) == len(cid)+8 { // CDK appends an 8-character hash
				out[name] = id
			}
		}
		if out[name] == "" {
			t.Errorf("no secret %s (construct %s) among %v", name, cid, sortedKeys(secrets))
		}
	}
	if len(secrets) != len(constructs) {
		t.Errorf("got %d secrets %v; want one per generatedSecrets and operatorSecrets entry (%d)", len(secrets), sortedKeys(secrets), len(constructs))
	}
	return out
}

// TestSecretsReadOnlyByTheirFunctions: each secret may be read
// (GetSecretValue, nothing else) exactly by the functions whose manifest
// entry lists it, and only they get its ARN, in its variable
// (secretEnv); no function gets any other variable than those
// TestFunctionEnvironment names, never a secret's value.
func TestSecretsReadOnlyByTheirFunctions(t *testing.T) {
	s := devStack(t)
	ids := s.secretIDs(t)
	names := map[string]string{} // logical id → secret name
	for name, id := range ids {
		names[id] = name
	}
	readers, fromManifest := map[string][]string{}, map[string][]string{}
	for _, f := range manifest.Functions {
		for _, name := range f.Secrets {
			fromManifest[name] = append(fromManifest[name], f.Slug)
		}
		for _, st := range s.functionStatements(t, f.Slug) {
			for _, a := range st.actions {
				if !strings.HasPrefix(a, "secretsmanager:") || st.effect != "Allow" {
					continue
				}
				name, ok := "", len(st.resources) == 1
				if ok {
					name, ok = names[ref(st.resources[0])]
				}
				if a != "secretsmanager:GetSecretValue" || !ok {
					t.Errorf("%s: %s on %v; want only GetSecretValue on one secret of the stack", f.Slug, a, st.resources)
					continue
				}
				readers[name] = append(readers[name], f.Slug)
			}
		}
	}
	if !reflect.DeepEqual(readers, fromManifest) {
		t.Errorf("secret readers = %v; functions listing each = %v", readers, fromManifest)
	}
	for name, want := range map[string][]string{
		// v1-mcp: the agent tool server runs listLeads, listEvents,
		// createDeposit and getDeposit as tools.
		manifest.SecretCursor:         {"v1-leads-list", "v1-events", "v1-mcp", "dashboard"},
		manifest.SecretWebhookSealing: {"webhook-dispatcher", "webhook-sender", "webhook-retrier"},
		manifest.SecretStripeKeys:     {"v1-deposits", "v1-deposit-status", "v1-quote", "v1-mcp"},
		manifest.SecretStripeWebhook:  {"stripe-webhook"},
	} {
		if got := readers[name]; !slices.Equal(got, want) {
			t.Errorf("%s readers = %v; want %v", name, got, want)
		}
	}
	for slug, fid := range s.functionIDs(t) {
		vars, _ := props(s.resources("AWS::Lambda::Function")[fid])["Environment"].(map[string]any)["Variables"].(map[string]any)
		for k, v := range vars {
			switch k {
			case settings.Table, settings.EventsTable, settings.ClipBucket, settings.PublicBaseURL, settings.WebhookQueueURL: // TestQueues checks the queue's
				continue
			}
			name, ok := "", false
			for n, env := range secretEnv {
				if env == k {
					name, ok = n, true
				}
			}
			if !ok {
				t.Errorf("%s: unexpected environment variable %s", slug, k)
				continue
			}
			if ref(v) != ids[name] || !slices.Contains(readers[name], slug) {
				t.Errorf("%s: %s = %v; want it only on readers of %s, as a Ref to that secret", slug, k, v, name)
			}
		}
	}
}

func TestTableGrantsDeriveFromManifest(t *testing.T) {
	partnerRoute := []manifest.Route{{Operation: "x", Auth: manifest.AuthPartnerKey}}
	agentRoute := []manifest.Route{{Operation: "z", Auth: manifest.AuthAgentKey}}
	publicRoute := []manifest.Route{{Operation: "y", Auth: manifest.AuthNone}}
	for _, tc := range []struct {
		name string
		f    manifest.Function
		want []string
	}{
		{"public, no table", manifest.Function{HTTP: publicRoute}, nil},
		{"not HTTP, no table", manifest.Function{Schedule: &manifest.ScheduleTrigger{Expression: "rate(1 day)"}}, nil},
		{"partner key only", manifest.Function{HTTP: partnerRoute}, []string{"AuthenticateAndCount"}},
		{"agent key (X-Partner-Key) only", manifest.Function{HTTP: agentRoute}, []string{"AuthenticateAndCount"}},
		{"agent key and get", manifest.Function{HTTP: agentRoute, Table: manifest.TableAccess{Get: true}}, []string{"AuthenticateAndCount", "ReadItems"}},
		{"get", manifest.Function{HTTP: partnerRoute, Table: manifest.TableAccess{Get: true}}, []string{"AuthenticateAndCount", "ReadItems"}},
		{"query", manifest.Function{HTTP: partnerRoute, Table: manifest.TableAccess{Query: true}}, []string{"AuthenticateAndCount", "QueryIndex"}},
		{"query items", manifest.Function{S3: &manifest.S3Trigger{Prefix: "clips/"}, Table: manifest.TableAccess{QueryItems: true}}, []string{"QueryItems"}},
		{"query both", manifest.Function{HTTP: partnerRoute, Table: manifest.TableAccess{Query: true, QueryItems: true}},
			[]string{"AuthenticateAndCount", "QueryIndex", "QueryItems"}},
		{"get and write", manifest.Function{HTTP: partnerRoute, Table: manifest.TableAccess{Get: true, Write: []string{table.LeadKeys}}},
			[]string{"AuthenticateAndCount", "ReadItems", "WriteItems"}},
		{"write without partner key", manifest.Function{Queue: &manifest.QueueTrigger{Name: "q"}, Table: manifest.TableAccess{Write: []string{table.LeadKeys}}},
			[]string{"WriteItems"}},
		{"read events", manifest.Function{HTTP: partnerRoute, Table: manifest.TableAccess{ReadEvents: true}},
			[]string{"AuthenticateAndCount", "ReadEvents", "QueryEventIndexes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, g := range tableGrants(tc.f) {
				got = append(got, g.sid)
				if g.sid == "WriteItems" && !slices.Equal(g.leadingKeys, tc.f.Table.Write) {
					t.Errorf("WriteItems leading keys %q; want %q", g.leadingKeys, tc.f.Table.Write)
				}
				if g.sid == "AuthenticateAndCount" && !slices.Equal(g.leadingKeys, []string{table.AuthKeys}) {
					t.Errorf("AuthenticateAndCount leading keys %q; want %q", g.leadingKeys, table.AuthKeys)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("tableGrants = %v; want %v", got, tc.want)
			}
		})
	}
}

// TestSecretEnvIsWhatFunctionsRead: the stack hands each secret's ARN in
// the variable the functions read it from (settings.SecretVar + "_ARN").
func TestSecretEnvIsWhatFunctionsRead(t *testing.T) {
	for _, name := range manifest.Secrets {
		v := settings.SecretVar(name)
		ok := v != ""
		if !ok {
			t.Errorf("secret %q has no settings.SecretVar", name)
			continue
		}
		if got, want := secretEnv[name], v+"_ARN"; got != want {
			t.Errorf("secretEnv[%q] = %q; want %q", name, got, want)
		}
	}
}

// TestQueryItemsIsOnTheTable: the functions that read a survey's partition
// (Table.QueryItems) may Query the table itself; the list function only
// the gsi1 index.
func TestQueryItemsIsOnTheTable(t *testing.T) {
	s := devStack(t)
	for slug, want := range map[string][]string{
		"v1-capture":             {"table"},
		"clip-processor":         {"table"},
		"v1-survey-video-access": {"table"},
		"v1-video":               {"table"},
		"v1-leads-list":          {"index"},
		"v1-lead-get":            nil,
		"v1-events":              {"events-indexes"},
		// The agent tool server: listLeads (the index), the
		// video-access tools (a survey's partition) and listEvents.
		manifest.AgentToolsSlug: {"index", "table", "events-indexes"},
	} {
		var got []string
		for _, st := range s.functionStatements(t, slug) {
			if st.effect == "Allow" && slices.Contains(st.actions, "dynamodb:Query") {
				got = append(got, s.grantOn(t, st))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: dynamodb:Query on %v; want %v", slug, got, want)
		}
	}
}

// TestDetectGrant: exactly the functions whose manifest entry sets Detect
// may call rekognition:DetectLabels (on "*": it has no resource type), and
// nothing else of Rekognition; the clip processor is one of them, and its
// timeout outlives one frame's detection with its retries.
func TestDetectGrant(t *testing.T) {
	s := devStack(t)
	detecting := 0
	for _, f := range manifest.Functions {
		has := false
		for _, st := range s.functionStatements(t, f.Slug) {
			for _, a := range st.actions {
				if a == "rekognition:DetectLabels" {
					has = true
					if len(st.actions) != 1 || len(st.resources) != 1 || st.resources[0] != "*" || st.condition != nil {
						t.Errorf("%s: DetectLabels statement %+v; want that action alone on *", f.Slug, st)
					}
				} else if strings.HasPrefix(a, "rekognition:") || a == "*" {
					t.Errorf("%s: granted %s", f.Slug, a)
				}
			}
		}
		if has != f.Detect {
			t.Errorf("%s: DetectLabels granted %v; manifest Detect %v", f.Slug, has, f.Detect)
		}
		if f.Detect {
			detecting++
			if timeout(f) < manifest.DetectTimeout+15*time.Second {
				t.Errorf("%s: timeout %v; want room for one frame's detection (%v) and the settle", f.Slug, timeout(f), manifest.DetectTimeout)
			}
		}
	}
	if f, ok := manifest.BySlug("clip-processor"); !ok || !f.Detect || detecting != 1 {
		t.Errorf("clip-processor Detect %v (found %v); %d detecting functions", f.Detect, ok, detecting)
	}
}

// secretReads returns the names of the secrets of the stack that the
// function slug may read (GetSecretValue), sorted.
func (s *synthed) secretReads(t *testing.T, slug string) []string {
	t.Helper()
	names := map[string]string{} // logical id → secret name
	for name, id := range s.secretIDs(t) {
		names[id] = name
	}
	var out []string
	for _, st := range s.functionStatements(t, slug) {
		if st.effect != "Allow" || !slices.Contains(st.actions, "secretsmanager:GetSecretValue") {
			continue
		}
		for _, r := range st.resources {
			name, ok := names[ref(r)]
			if !ok {
				t.Errorf("%s: GetSecretValue on %v, which is no secret of the stack", slug, r)
				continue
			}
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TestStripeSecretsOnlyForDepositFunctions: the Stripe secrets are read
// by the functions that take or follow deposits (the agent tool server
// among them: its createDeposit and getDeposit tools) and by no other;
// the webhook receiver reads the webhook signing secrets and nothing
// else (not the API keys: it never calls Stripe), and the functions that
// call Stripe read the API keys and not the webhook secrets.
func TestStripeSecretsOnlyForDepositFunctions(t *testing.T) {
	s := devStack(t)
	// Every secret each of these functions reads, sorted.
	want := map[string][]string{
		"v1-deposits":       {manifest.SecretStripeKeys},
		"v1-deposit-status": {manifest.SecretStripeKeys},
		"v1-quote":          {manifest.SecretStripeKeys},
		"stripe-webhook":    {manifest.SecretStripeWebhook},
		// Its listLeads tool signs cursors too, and its getSurveyLink
		// tool derives replayable capture links.
		manifest.AgentToolsSlug: {manifest.SecretCaptureLink, manifest.SecretCursor, manifest.SecretStripeKeys},
	}
	stripe := []string{manifest.SecretStripeKeys, manifest.SecretStripeWebhook}
	onlyStripe := func(names []string) []string {
		var out []string
		for _, name := range names {
			if slices.Contains(stripe, name) {
				out = append(out, name)
			}
		}
		return out
	}
	for _, f := range manifest.Functions {
		got := s.secretReads(t, f.Slug)
		if gotStripe, w := onlyStripe(got), onlyStripe(want[f.Slug]); !slices.Equal(gotStripe, w) {
			t.Errorf("%s reads Stripe secrets %q; want %q", f.Slug, gotStripe, w)
		}
		if w, ok := want[f.Slug]; ok && !slices.Equal(got, w) {
			t.Errorf("%s reads secrets %q; want exactly %q", f.Slug, got, w)
		}
	}
}

// TestDepositWritesArePinned: who may write the deposit feature's items,
// from the deployed statements: deposits by the functions that create,
// reconcile or receive them; the Stripe receiver's records (event ids,
// PaymentIntents) by the receiver and by reconciliation on read, which
// applies what it learns as the receiver does; quote page token records
// by the functions that mint quote page links; and none of them by a
// function of the other features.
func TestDepositWritesArePinned(t *testing.T) {
	s := devStack(t)
	writers := map[string][]string{} // leading-key pattern → slugs
	for _, f := range manifest.Functions {
		for _, st := range s.functionStatements(t, f.Slug) {
			if st.effect != "Allow" || !slices.Contains(st.actions, "dynamodb:PutItem") {
				continue
			}
			like, _ := st.condition["ForAllValues:StringLike"].(map[string]any)
			for _, k := range stringList(like["dynamodb:LeadingKeys"]) {
				writers[k] = append(writers[k], f.Slug)
			}
		}
	}
	for pattern, want := range map[string][]string{
		// v1-mcp: the agent tool server runs createQuote, createDeposit
		// and getDeposit (which reconciles) as tools.
		table.DepositKeys:    {"v1-deposits", "v1-deposit-status", "v1-quote", "stripe-webhook", "v1-mcp"},
		table.StripeKeys:     {"v1-deposit-status", "stripe-webhook", "v1-mcp"},
		table.QuoteTokenKeys: {"v1-lead-quote", "v1-deposits", "v1-quote", "v1-mcp"},
	} {
		if got := writers[pattern]; !slices.Equal(got, want) {
			t.Errorf("PutItem on %s granted to %q; want %q", pattern, got, want)
		}
	}
	// The receiver is called by Stripe, never with an API key: it may not
	// touch key records.
	for _, st := range s.functionStatements(t, "stripe-webhook") {
		if like, _ := st.condition["ForAllValues:StringLike"].(map[string]any); slices.Contains(stringList(like["dynamodb:LeadingKeys"]), table.AuthKeys) {
			t.Errorf("stripe-webhook: %v on key records", st.actions)
		}
	}
}
