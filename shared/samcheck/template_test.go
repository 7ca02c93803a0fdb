package samcheck

import (
	"context"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/awslabs/goformation/v7"
	"github.com/awslabs/goformation/v7/cloudformation"
	"github.com/awslabs/goformation/v7/cloudformation/global"
	"github.com/awslabs/goformation/v7/cloudformation/serverless"

	"github.com/moveleads/partnerapi/scripts/build/lambdafn"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/idempotency"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/settings"
	"github.com/moveleads/partnerapi/shared/table"
)

const (
	repoRoot     = "../.."
	templatePath = repoRoot + "/template.yaml"
)

// What every function must be, as deployed (infra/stack).
const (
	wantRuntime = "provided.al2023"
	wantArch    = "arm64"
	wantHandler = "bootstrap"
)

// localSecretEnv is the variable through which a local function receives
// each secret as a value (settings.SecretVar; the deployment passes an ARN
// in <variable>_ARN instead). A function listing a secret missing there
// fails the test.
func localSecretEnv(name string) string { return settings.SecretVar(name) }

// function is one function of the template as SAM sees it: its own
// properties with the template's Globals.Function merged in.
type function struct {
	id           string
	codeURI      string
	buildMethod  any
	runtime      string
	handler      string
	arch         []string
	memory       int
	timeout      int
	env          map[string]string
	events       map[string]serverless.Function_EventSource
	resourceType string
}

func openTemplate(t *testing.T) *cloudformation.Template {
	t.Helper()
	tpl, err := goformation.Open(templatePath)
	if err != nil {
		t.Fatalf("parse %s: %v", templatePath, err)
	}
	return tpl
}

// functions returns the template's serverless functions by logical id, with
// Globals.Function applied the way SAM applies it: a function's own scalar
// properties win, Environment.Variables maps are merged.
func functions(t *testing.T, tpl *cloudformation.Template) map[string]function {
	t.Helper()
	g := &global.Function{}
	if gf, err := tpl.GetServerlessGlobalFunction(); err == nil {
		g = gf
	}
	out := map[string]function{}
	for id, f := range tpl.GetAllServerlessFunctionResources() {
		fn := function{id: id, env: map[string]string{}, events: f.Events, resourceType: f.AWSCloudFormationType()}
		if f.CodeUri != nil && f.CodeUri.String != nil {
			fn.codeURI = *f.CodeUri.String
		}
		fn.buildMethod = f.AWSCloudFormationMetadata["BuildMethod"]
		fn.runtime = pick(f.Runtime, g.Runtime)
		fn.handler = pick(f.Handler, g.Handler)
		fn.memory = pick(f.MemorySize, g.MemorySize)
		fn.timeout = pick(f.Timeout, g.Timeout)
		fn.arch = f.Architectures
		if fn.arch == nil && g.Architectures != nil {
			fn.arch = *g.Architectures
		}
		if g.Environment != nil {
			for k, v := range g.Environment.Variables {
				fn.env[k] = v
			}
		}
		if f.Environment != nil {
			for k, v := range f.Environment.Variables {
				fn.env[k] = v
			}
		}
		out[id] = fn
	}
	return out
}

// pick returns *own, else *global, else the zero value.
func pick[T any](own, global *T) T {
	switch {
	case own != nil:
		return *own
	case global != nil:
		return *global
	}
	var zero T
	return zero
}

func TestTemplateIsSAM(t *testing.T) {
	tpl := openTemplate(t)
	if tpl.Transform == nil || tpl.Transform.String == nil || *tpl.Transform.String != "AWS::Serverless-2016-10-31" {
		t.Errorf("Transform is not AWS::Serverless-2016-10-31")
	}
}

// TestTemplateHasOneFunctionPerManifestEntry compares the template's
// functions with manifest.Functions through the shared logical-id rule.
func TestTemplateHasOneFunctionPerManifestEntry(t *testing.T) {
	fns := functions(t, openTemplate(t))
	var got []string
	for id := range fns {
		got = append(got, id)
	}
	want := lambdafn.LogicalIDs(manifest.Functions)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("template functions %v; want one per manifest entry: %v", got, want)
	}
}

func TestTemplateFunctions(t *testing.T) {
	tpl := openTemplate(t)
	fns := functions(t, tpl)
	for _, f := range manifest.Functions {
		id := lambdafn.LogicalID(f.Slug)
		t.Run(id, func(t *testing.T) {
			fn, ok := fns[id]
			if !ok {
				t.Fatalf("template has no function %s for %s", id, f.Slug)
			}
			checkBuild(t, fn, f)
			checkEvents(t, fn, f)
			checkEnvironment(t, fn, f)
			if fn.memory <= 0 {
				t.Errorf("MemorySize %d; want it set (Globals or the function)", fn.memory)
			}
			// A duplicate request waits up to idempotency.DefaultWait for
			// the first one; the function must outlive that wait.
			if idempotent(f) && time.Duration(fn.timeout)*time.Second <= idempotency.DefaultWait {
				t.Errorf("Timeout %ds; an idempotent route needs more than idempotency.DefaultWait (%v)", fn.timeout, idempotency.DefaultWait)
			}
			if fn.timeout <= 0 {
				t.Errorf("Timeout %d; want it set", fn.timeout)
			}
		})
	}
}

// idempotent reports whether any of f's routes is idempotent.
func idempotent(f manifest.Function) bool {
	return slices.ContainsFunc(f.HTTP, func(r manifest.Route) bool { return r.Idempotent })
}

func checkBuild(t *testing.T, fn function, f manifest.Function) {
	t.Helper()
	if fn.codeURI != "." && fn.codeURI != "functions/"+f.Slug {
		t.Errorf("CodeUri %q; want . (the Makefile's folder)", fn.codeURI)
	}
	if fn.buildMethod != "makefile" {
		t.Errorf("Metadata.BuildMethod %v; want makefile", fn.buildMethod)
	}
	if fn.runtime != wantRuntime {
		t.Errorf("Runtime %q; want %q", fn.runtime, wantRuntime)
	}
	if fn.handler != wantHandler {
		t.Errorf("Handler %q; want %q", fn.handler, wantHandler)
	}
	if !slices.Equal(fn.arch, []string{wantArch}) {
		t.Errorf("Architectures %q; want [%s]", fn.arch, wantArch)
	}
}

// wantEvents returns the "Method Path" of every HttpApi event f must have:
// a partner route's method on its pilot and logical paths, and "ANY
// $default" for the $default route (SAM's spelling of API Gateway's
// $default route). It fails the test for a trigger kind this check does
// not know yet.
func wantEvents(t *testing.T, f manifest.Function) []string {
	t.Helper()
	if kind := f.Trigger(); kind != manifest.TriggerHTTP {
		t.Errorf("trigger %q: template.yaml and this check declare only HttpApi events yet; add the %s event to both", kind, kind)
		return nil
	}
	var want []string
	for _, r := range f.HTTP {
		if r.IsDefault() {
			want = append(want, manifest.AnyMethod+" "+manifest.DefaultPath)
			continue
		}
		for _, p := range r.Paths() {
			want = append(want, r.Method+" "+p)
		}
	}
	return want
}

// checkEvents requires exactly f's HttpApi events (wantEvents), on the
// template's one (implicit) HTTP API with payload format 2.0.
func checkEvents(t *testing.T, fn function, f manifest.Function) {
	t.Helper()
	var got []string
	for name, ev := range fn.events {
		if ev.Type != "HttpApi" || ev.Properties == nil || ev.Properties.HttpApiEvent == nil {
			t.Errorf("event %s: type %q; want HttpApi with Method and Path", name, ev.Type)
			continue
		}
		h := ev.Properties.HttpApiEvent
		if h.Method == nil || h.Path == nil {
			t.Errorf("event %s: Method or Path missing (an implicit catch-all route)", name)
			continue
		}
		if h.ApiId != nil {
			t.Errorf("event %s: ApiId %q; every route belongs on the one implicit HTTP API", name, *h.ApiId)
		}
		if h.PayloadFormatVersion != nil && *h.PayloadFormatVersion != "2.0" {
			t.Errorf("event %s: PayloadFormatVersion %q; the handlers read payload 2.0", name, *h.PayloadFormatVersion)
		}
		got = append(got, *h.Method+" "+*h.Path)
	}
	want := wantEvents(t, f)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("HttpApi events %q; want exactly %q", got, want)
	}
}

// checkEnvironment requires the table settings on every function and each
// secret's local variable exactly on the functions that list it.
func checkEnvironment(t *testing.T, fn function, f manifest.Function) {
	t.Helper()
	if v, ok := fn.env[settings.Table]; !ok || v != table.DefaultName {
		t.Errorf("%s = %q (set: %v); want the parameter defaulting to make dev's table %q", settings.Table, v, ok, table.DefaultName)
	}
	if v, ok := fn.env["AWS_ENDPOINT_URL_DYNAMODB"]; !ok || v != "" {
		t.Errorf("AWS_ENDPOINT_URL_DYNAMODB = %q (set: %v); want it declared, empty by default (real DynamoDB)", v, ok)
	}
	for _, s := range f.Secrets {
		if localSecretEnv(s) == "" {
			t.Errorf("function lists secret %q, which has no local variable in settings.SecretVar", s)
		}
	}
	for _, secret := range manifest.Secrets {
		name := localSecretEnv(secret)
		if _, ok := fn.env[name+"_ARN"]; ok {
			t.Errorf("%s_ARN is set; locally the secret is passed by value (%s)", name, name)
		}
		_, has := fn.env[name]
		if wants := slices.Contains(f.Secrets, secret); has != wants {
			t.Errorf("%s declared: %v; want %v (Secrets %q)", name, has, wants, f.Secrets)
		}
	}
}

// TestSecretParametersAreNoEcho keeps secrets out of SAM's and
// CloudFormation's output.
func TestSecretParametersAreNoEcho(t *testing.T) {
	tpl := openTemplate(t)
	found := false
	for name, p := range tpl.Parameters {
		if strings.Contains(strings.ToLower(name), "secret") {
			found = true
			if p.NoEcho == nil || !*p.NoEcho {
				t.Errorf("parameter %s is not NoEcho", name)
			}
		}
	}
	if !found {
		t.Error("no secret parameter: where does CURSOR_SECRET come from?")
	}
}

// TestMakefileBuildsEveryFunctionForSAM runs make in dry-run mode the way
// SAM's makefile builder calls it, for every function, and checks that the
// target builds that function with the build script.
func TestMakefileBuildsEveryFunctionForSAM(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	for _, id := range lambdafn.LogicalIDs(manifest.Functions) {
		cmd := exec.Command("make", "-n", "-C", repoRoot, "build-"+id)
		cmd.Env = append(cmd.Environ(), "ARTIFACTS_DIR=/artifacts/"+id)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("make build-%s: %v\n%s", id, err, out)
			continue
		}
		want := "run ./scripts/build -sam-logical-id " + id + ` -out "/artifacts/` + id + `"`
		if !strings.Contains(string(out), want) {
			t.Errorf("make -n build-%s printed %q; want a line containing %q", id, out, want)
		}
	}
}

// TestFunctionsStartWithTheTemplateEnvironment builds each function's
// wiring the way its main does (awsenv.Load), with only the variables the
// template declares for it, each given a local value as
// .local/sam-env.json does, and reads every secret its manifest entry
// lists. A function that needs a variable the template does not give it
// would fail in `sam local`.
func TestFunctionsStartWithTheTemplateEnvironment(t *testing.T) {
	fns := functions(t, openTemplate(t))
	local := map[string]string{
		settings.Table:              table.DefaultName,
		"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:1",
	}
	for _, sec := range manifest.Secrets {
		local[settings.SecretVar(sec)] = strings.Repeat("ab", 32)
	}
	for _, f := range manifest.Functions {
		id := lambdafn.LogicalID(f.Slug)
		t.Run(id, func(t *testing.T) {
			fn, ok := fns[id]
			if !ok {
				t.Fatalf("no function %s", id)
			}
			// Variables SAM always sets in the container.
			t.Setenv("AWS_REGION", "us-east-1")
			t.Setenv("AWS_ACCESS_KEY_ID", "local")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
			for _, name := range []string{settings.Table, "AWS_ENDPOINT_URL_DYNAMODB"} {
				t.Setenv(name, "")
			}
			for _, sec := range manifest.Secrets {
				name := settings.SecretVar(sec)
				t.Setenv(name, "")
				t.Setenv(name+"_ARN", "")
			}
			for name := range fn.env {
				v, ok := local[name]
				if !ok {
					t.Fatalf("template declares %s, which has no local value here", name)
				}
				t.Setenv(name, v)
			}
			env, err := awsenv.Load()
			if err != nil {
				t.Fatalf("%s fails to start with its template environment %v: %v", f.Slug, keys(fn.env), err)
			}
			for _, s := range f.Secrets {
				if _, err := env.Secret(s)(context.Background()); err != nil {
					t.Errorf("%s cannot read secret %s with its template environment %v: %v", f.Slug, s, keys(fn.env), err)
				}
			}
		})
	}
}

func keys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for name := range m {
		k = append(k, name)
	}
	sort.Strings(k)
	return k
}
