package stack

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// assetDir holds a placeholder zip per function, shared by every synth of
// the package's tests (the real zips come from make build, which the tests
// do not need). Cloud assemblies go under outRoot, which, unlike
// t.TempDir(), outlives the test that first synthesises a cached stack.
var assetDir, outRoot string

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "infra-test-")
	if err == nil {
		assetDir, outRoot = filepath.Join(root, "assets"), filepath.Join(root, "out")
		err = errors.Join(os.Mkdir(assetDir, 0o755), os.Mkdir(outRoot, 0o755))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	jsii.Close()
	os.RemoveAll(root)
	os.Exit(code)
}

// writeAssets writes <slug>.zip, holding a one-line bootstrap, into dir
// for every function of fns.
func writeAssets(t *testing.T, dir string, fns []manifest.Function) {
	t.Helper()
	for _, fn := range fns {
		f, err := os.Create(assetPath(dir, fn.Slug))
		if err != nil {
			t.Fatal(err)
		}
		zw := zip.NewWriter(f)
		w, err := zw.Create("bootstrap")
		if err == nil {
			_, err = fmt.Fprintf(w, "#!/bin/sh\n# placeholder for %s\n", fn.Slug)
		}
		if err == nil {
			err = zw.Close()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// synthed is one synthesised stack: the construct (for annotations), the
// assertions template and its JSON.
type synthed struct {
	stack    awscdk.Stack
	template assertions.Template
	json     map[string]any
}

var (
	synthMu    sync.Mutex
	synthCache = map[string]*synthed{}
)

// synth synthesises the stack for p once per name and test binary (each
// synth costs a second or so in the jsii node process). p.AssetDir is
// filled with placeholder zips for p's functions.
func synth(t *testing.T, name string, p Props) *synthed {
	t.Helper()
	synthMu.Lock()
	defer synthMu.Unlock()
	if s, ok := synthCache[name]; ok {
		return s
	}
	p.AssetDir = assetDir
	writeAssets(t, assetDir, p.functions())
	out, err := os.MkdirTemp(outRoot, name+"-")
	if err != nil {
		t.Fatal(err)
	}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(out)})
	st, err := New(app, "PartnerApi-"+name, p)
	if err != nil {
		t.Fatalf("New(%s) error = %v", name, err)
	}
	tpl := assertions.Template_FromStack(st.Stack, nil)
	raw, err := json.Marshal(tpl.ToJSON())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	s := &synthed{stack: st.Stack, template: tpl, json: m}
	synthCache[name] = s
	return s
}

// The stacks the tests look at.
func devStack(t *testing.T) *synthed { return synth(t, "dev", Props{Env: Dev}) }

func prodStack(t *testing.T) *synthed {
	return synth(t, "prod", Props{Env: Prod, AlarmEmail: "ops@example.com"})
}

// assert runs an assertions-library check, which panics on failure, and
// reports the panic as a test error.
func assert(t *testing.T, what string, check func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	check()
}

// resources returns the template's resources of type typ by logical id.
func (s *synthed) resources(typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range s.json["Resources"].(map[string]any) {
		res := r.(map[string]any)
		if res["Type"] == typ {
			out[id] = res
		}
	}
	return out
}

// props returns a resource's Properties.
func props(res map[string]any) map[string]any {
	p, _ := res["Properties"].(map[string]any)
	return p
}

// functionIDs maps each function's slug to its logical id, found by the
// function tag every resource of a function carries. CDK's
// bucket-notifications handler (notificationsHandler) is not a manifest
// function and is left out.
func (s *synthed) functionIDs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	handler := s.notificationsHandler(t)
	for id, res := range s.resources("AWS::Lambda::Function") {
		if id == handler {
			continue
		}
		slug := tag(props(res), functionTag)
		if slug == "" {
			t.Errorf("function %s has no %q tag", id, functionTag)
			continue
		}
		out[slug] = id
	}
	return out
}

// notificationsHandler returns the logical id of the function CDK declares
// to set bucket notifications (the ServiceToken of the
// Custom::S3BucketNotifications resource), or "" when there is none.
func (s *synthed) notificationsHandler(t *testing.T) string {
	t.Helper()
	var id string
	for cid, res := range s.resources("Custom::S3BucketNotifications") {
		h := getAtt(props(res)["ServiceToken"], "Arn")
		if _, ok := s.resources("AWS::Lambda::Function")[h]; !ok {
			t.Fatalf("%s: ServiceToken %v is not a function of the stack", cid, props(res)["ServiceToken"])
		}
		if id != "" && id != h {
			t.Fatalf("two bucket-notification handlers: %s and %s", id, h)
		}
		id = h
	}
	return id
}

// tag returns the value of the tag key in a resource's Tags list.
func tag(p map[string]any, key string) string {
	tags, _ := p["Tags"].([]any)
	for _, tg := range tags {
		kv := tg.(map[string]any)
		if kv["Key"] == key {
			return fmt.Sprint(kv["Value"])
		}
	}
	return ""
}

// getAtt returns the logical id of v when v is {"Fn::GetAtt": [id, attr]}.
func getAtt(v any, attr string) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	ga, ok := m["Fn::GetAtt"].([]any)
	if !ok || len(ga) != 2 || ga[1] != attr {
		return ""
	}
	id, _ := ga[0].(string)
	return id
}

// ref returns the logical id of v when v is {"Ref": id}.
func ref(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	id, _ := m["Ref"].(string)
	return id
}

// statement is one IAM statement, flattened.
type statement struct {
	effect    string
	actions   []string
	resources []any
	condition map[string]any
}

func parseStatements(doc any) []statement {
	var out []statement
	d, _ := doc.(map[string]any)
	sts, _ := d["Statement"].([]any)
	for _, s := range sts {
		m := s.(map[string]any)
		st := statement{effect: fmt.Sprint(m["Effect"]), actions: stringList(m["Action"]), resources: list(m["Resource"])}
		st.condition, _ = m["Condition"].(map[string]any)
		out = append(out, st)
	}
	return out
}

// roleStatements returns every statement granted to the role with logical
// id role: its inline policies and every AWS::IAM::Policy attached to it.
func (s *synthed) roleStatements(role string) []statement {
	var out []statement
	if r, ok := s.resources("AWS::IAM::Role")[role]; ok {
		pols, _ := props(r)["Policies"].([]any)
		for _, p := range pols {
			out = append(out, parseStatements(p.(map[string]any)["PolicyDocument"])...)
		}
	}
	for _, pol := range s.resources("AWS::IAM::Policy") {
		for _, r := range list(props(pol)["Roles"]) {
			if ref(r) == role {
				out = append(out, parseStatements(props(pol)["PolicyDocument"])...)
			}
		}
	}
	return out
}

// functionStatements returns the statements of the role of the function
// slug.
func (s *synthed) functionStatements(t *testing.T, slug string) []statement {
	t.Helper()
	fid, ok := s.functionIDs(t)[slug]
	if !ok {
		t.Fatalf("no function for %s", slug)
	}
	role := getAtt(props(s.resources("AWS::Lambda::Function")[fid])["Role"], "Arn")
	if role == "" {
		t.Fatalf("function %s: Role is not a GetAtt of a role in the stack", slug)
	}
	return s.roleStatements(role)
}

// list returns v as a list (a lone value becomes a list of one).
func list(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	default:
		return []any{x}
	}
}

// stringList returns v (a string or a list of strings) as sorted strings.
func stringList(v any) []string {
	var out []string
	for _, x := range list(v) {
		out = append(out, fmt.Sprint(x))
	}
	sort.Strings(out)
	return out
}

// allStatements walks the whole template and returns every IAM statement
// of every policy document in it (roles, policies, bucket, topic and key
// policies).
func (s *synthed) allStatements() []statement {
	var out []statement
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["Statement"]; ok {
				out = append(out, parseStatements(x)...)
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
	walk(s.json["Resources"])
	return out
}

// isTableArn reports whether v is the main table's ARN.
func (s *synthed) isTableArn(v any) bool {
	for id := range s.resources("AWS::DynamoDB::Table") {
		if getAtt(v, "Arn") == id && !isEventsID(id) {
			return true
		}
	}
	return false
}

// isEventsArn reports whether v is the events table's ARN.
func (s *synthed) isEventsArn(v any) bool {
	for id := range s.resources("AWS::DynamoDB::Table") {
		if getAtt(v, "Arn") == id && isEventsID(id) {
			return true
		}
	}
	return false
}

// isEventsID reports whether the logical id is the events table's
// (newEventsTable's construct id, "EventsTable").
func isEventsID(id string) bool { return strings.HasPrefix(id, "EventsTable") }

// eventsTableID returns the events table's logical id.
func (s *synthed) eventsTableID(t *testing.T) string {
	t.Helper()
	for id := range s.resources("AWS::DynamoDB::Table") {
		if isEventsID(id) {
			return id
		}
	}
	t.Fatal("no events table")
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
