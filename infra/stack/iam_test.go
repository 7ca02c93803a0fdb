package stack

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/settings"
)

// keyRecordsCondition is the only condition under which a read-only
// function may update the table.
var keyRecordsCondition = map[string]any{
	"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []any{"APIKEY#*"}},
}

// writeActions are the DynamoDB actions that change items.
var writeActions = []string{
	"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem",
	"dynamodb:PartiQLInsert", "dynamodb:PartiQLUpdate", "dynamodb:PartiQLDelete",
}

// isWrite reports whether action may change items (wildcards included).
func isWrite(action string) bool {
	return slices.Contains(writeActions, action) || action == "*" ||
		(strings.HasPrefix(action, "dynamodb:") && strings.Contains(action, "*"))
}

func TestReadOnlyFunctionsUpdateOnlyKeyRecords(t *testing.T) {
	s := devStack(t)
	for _, slug := range []string{"v1-lead-get", "v1-leads-list"} {
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
						t.Errorf("write action %s granted; want only the key-record UpdateItem", a)
						continue
					}
					updates++
					if !reflect.DeepEqual(st.condition, keyRecordsCondition) {
						t.Errorf("UpdateItem condition = %v; want %v", st.condition, keyRecordsCondition)
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

// wantDynamo is the oracle for a route's DynamoDB grants: action to the
// resource it is granted on ("table", "index") and whether it is limited
// to key records.
func wantDynamo(r manifest.Route) map[string][]string {
	w := map[string][]string{"dynamodb:UpdateItem": {"table:keys"}}
	if r.Data.Has(route.ReadItems) {
		w["dynamodb:GetItem"] = []string{"table"}
	}
	if r.Data.Has(route.QueryIndex) {
		w["dynamodb:Query"] = []string{"index"}
	}
	if r.Data.Has(route.WriteItems) {
		w["dynamodb:PutItem"] = []string{"table"}
		w["dynamodb:UpdateItem"] = append(w["dynamodb:UpdateItem"], "table")
	}
	return w
}

func TestDynamoGrantsFollowRouteData(t *testing.T) {
	s := devStack(t)
	for _, r := range route.Table {
		t.Run(r.Slug, func(t *testing.T) {
			got := map[string][]string{}
			for _, st := range s.functionStatements(t, r.Slug) {
				for _, a := range st.actions {
					if !strings.HasPrefix(a, "dynamodb:") || st.effect != "Allow" {
						continue
					}
					if len(st.resources) != 1 {
						t.Errorf("%s on %d resources; want 1", a, len(st.resources))
						continue
					}
					on := "?"
					switch {
					case s.isTableArn(st.resources[0]):
						on = "table"
					case s.isIndexArn(st.resources[0], "gsi1"):
						on = "index"
					}
					if st.condition != nil {
						if !reflect.DeepEqual(st.condition, keyRecordsCondition) {
							t.Errorf("%s: unexpected condition %v", a, st.condition)
						}
						on += ":keys"
					}
					got[a] = append(got[a], on)
				}
			}
			for _, v := range got {
				slices.Sort(v)
			}
			want := wantDynamo(r)
			for _, v := range want {
				slices.Sort(v)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("dynamodb grants = %v; want %v", got, want)
			}
		})
	}
}

// isIndexArn reports whether v is the ARN of the table's index name:
// {"Fn::Join": ["", [<table ARN>, "/index/<name>"]]}.
func (s *synthed) isIndexArn(v any, name string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	j, ok := m["Fn::Join"].([]any)
	if !ok || len(j) != 2 || j[0] != "" {
		return false
	}
	parts, ok := j[1].([]any)
	return ok && len(parts) == 2 && s.isTableArn(parts[0]) && parts[1] == "/index/"+name
}

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

func TestOnlyListReadsCursorSecret(t *testing.T) {
	s := devStack(t)
	secrets := s.resources("AWS::SecretsManager::Secret")
	if len(secrets) != 1 {
		t.Fatalf("got %d secrets; want 1", len(secrets))
	}
	var secretID string
	for id := range secrets {
		secretID = id
	}
	var readers, fromTable []string
	for _, r := range route.Table {
		if slices.Contains(r.Secrets, manifest.SecretCursor) {
			fromTable = append(fromTable, r.Slug)
		}
		for _, st := range s.functionStatements(t, r.Slug) {
			for _, a := range st.actions {
				if !strings.HasPrefix(a, "secretsmanager:") || st.effect != "Allow" {
					continue
				}
				if a != "secretsmanager:GetSecretValue" || len(st.resources) != 1 || ref(st.resources[0]) != secretID {
					t.Errorf("%s: %s on %v; want only GetSecretValue on the cursor secret", r.Slug, a, st.resources)
					continue
				}
				readers = append(readers, r.Slug)
			}
		}
	}
	if want := []string{"v1-leads-list"}; !slices.Equal(readers, want) {
		t.Errorf("cursor secret readers = %v; want %v", readers, want)
	}
	if !slices.Equal(readers, fromTable) {
		t.Errorf("cursor secret readers = %v; routes listing it = %v", readers, fromTable)
	}
	// Only readers get the secret's ARN, and no function gets more than
	// the table name and secret ARNs: no value in the environment.
	for slug, fid := range s.functionIDs(t) {
		vars, _ := props(s.resources("AWS::Lambda::Function")[fid])["Environment"].(map[string]any)["Variables"].(map[string]any)
		for k, v := range vars {
			switch k {
			case settings.Table:
			case settings.CursorSecretARN:
				if ref(v) != secretID || !slices.Contains(readers, slug) {
					t.Errorf("%s: %s = %v; want only on readers, as a Ref to the secret", slug, k, v)
				}
			default:
				t.Errorf("%s: unexpected environment variable %s", slug, k)
			}
		}
	}
}

func TestTableGrantsDeriveFromData(t *testing.T) {
	for _, tc := range []struct {
		data route.Access
		want []string
	}{
		{0, []string{"AuthenticateAndCount"}},
		{route.ReadItems, []string{"AuthenticateAndCount", "ReadItems"}},
		{route.QueryIndex, []string{"AuthenticateAndCount", "QueryIndex"}},
		{route.ReadItems | route.WriteItems, []string{"AuthenticateAndCount", "ReadItems", "WriteItems"}},
	} {
		var got []string
		for _, g := range tableGrants(manifest.Route{Data: tc.data}) {
			got = append(got, g.sid)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("tableGrants(Data %b) = %v; want %v", tc.data, got, tc.want)
		}
	}
}
