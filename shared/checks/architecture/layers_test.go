package architecture

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/scripts/build/lambdafn"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// TestLayerRules: every package of the module keeps its folder's rule.
func TestLayerRules(t *testing.T) {
	graph := importGraph(t)
	got, used := layerViolations(graph)
	for _, v := range got {
		t.Error(v)
	}
	for e, why := range exceptions {
		if !used[e] {
			t.Errorf("exception %s -> %s (%s) excuses no import any more: delete it from exceptions_test.go", e.from, e.to, why)
		}
	}
	if n := len(graph); n < 50 {
		t.Fatalf("import graph has %d packages; want the module's", n)
	}
}

// TestFunctionsLinkNoStandIns: no function links local/, testkit/ or
// checks/, nor the DynamoDB Streams client (Lambda reads the stream, not
// the function). A function's linked packages are its main's import
// closure under its release build's GOOS, GOARCH, cgo setting and tags
// (scripts/build/lambdafn): the linker takes every package of that
// closure and runs each one's init at cold start, whatever dead-code
// elimination later drops, so it is what the binary carries (a symbol
// table would miss a package whose functions are all dropped, and a
// stripped release binary has none). go version -m names modules, not the
// module's own packages.
func TestFunctionsLinkNoStandIns(t *testing.T) {
	deps := releaseDeps(t)
	for _, f := range manifest.Functions {
		d, ok := deps[lambdafn.Package(f.Slug)]
		if !ok || !slices.ContainsFunc(d, func(p string) bool { return strings.HasPrefix(p, "shared/edge/") }) {
			t.Errorf("%s: no import closure with an edge/ package read; the check checks nothing", f.Slug)
		}
		for _, v := range linkViolations("functions/"+f.Slug, d) {
			t.Error(v)
		}
		if slices.Contains(d, "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams") {
			t.Errorf("functions/%s links the DynamoDB Streams client: only shared/local/streamlocal reads the stream itself (make dev, tests)", f.Slug)
		}
	}
	if len(manifest.Functions) == 0 {
		t.Error("the manifest has no functions")
	}
}

// releaseDeps returns each function's import closure (by
// lambdafn.Package) as its release build compiles it, the module's paths
// relative to it: one go list per set of build tags.
func releaseDeps(t *testing.T) map[string][]string {
	t.Helper()
	byTags := map[string][]string{}
	for _, f := range manifest.Functions {
		tags := strings.Join(lambdafn.BuildTags(f), ",")
		byTags[tags] = append(byTags[tags], lambdafn.Package(f.Slug))
	}
	deps := map[string][]string{}
	for tags, pkgs := range byTags {
		cmd := exec.Command("go", append([]string{"list", "-json", "-tags", tags}, pkgs...)...)
		cmd.Dir = moduleRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -tags %s: %v", tags, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			var p pkg
			if err := dec.Decode(&p); err != nil {
				t.Fatalf("decode go list: %v", err)
			}
			d := make([]string, len(p.Deps))
			for i, dep := range p.Deps {
				d[i] = strings.TrimPrefix(dep, module)
			}
			deps["./"+strings.TrimPrefix(p.ImportPath, module)] = d
		}
	}
	return deps
}

// moduleRoot is the module's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestMainsOnlyWire: a function's main imports only an edge/ package and
// a wire/ builder.
func TestMainsOnlyWire(t *testing.T) {
	n := 0
	for name, p := range listPackages(t) {
		if !strings.HasPrefix(name, "functions/") {
			continue
		}
		n++
		imports := make([]string, len(p.Imports))
		for i, imp := range p.Imports {
			imports[i] = strings.TrimPrefix(imp, module)
		}
		for _, v := range mainViolations(name, imports) {
			t.Error(v)
		}
	}
	if n == 0 {
		t.Error("no functions/ packages found")
	}
}

// TestRulesOnSyntheticGraphs proves each rule fails, with its sentence.
func TestRulesOnSyntheticGraphs(t *testing.T) {
	tests := []struct {
		name  string
		graph map[string][]string
		want  []string
	}{
		{"allowed imports", map[string][]string{
			"shared/domain/lead":   {"errors", "shared/domain/errcode"},
			"shared/spec/manifest": {"shared/domain/errcode", "shared/spec/table"},
			"shared/app/leads":     {"shared/domain/lead", "shared/spec/manifest", "shared/app/pipeline", "github.com/google/uuid"},
			"shared/edge/apigw":    {"shared/app/pipeline", "github.com/aws/aws-lambda-go/events"},
			"shared/adapter/x":     {"shared/domain/lead", "github.com/aws/aws-sdk-go-v2/service/dynamodb"},
			"shared/wire/wiring":   {"shared/adapter/x", "shared/app/leads", "shared/edge/apigw"},
			"shared/local/y":       {"shared/adapter/x"},
			"functions/v1-leads":   {"shared/edge/apigw", "shared/wire/wiring"},
		}, nil},
		{"app imports an adapter", map[string][]string{
			"shared/app/deposits": {"shared/adapter/stripepay"},
		}, []string{"shared/app/deposits imports shared/adapter/stripepay: app/ may import only domain/ and spec/ (and app/), outside the module only google/uuid and a-h/templ; declare the port in the app/ package and let the adapter/ satisfy it (wired in shared/wire)"}},
		{"app imports wire, local, testkit, edge", map[string][]string{
			"shared/app/a": {"shared/wire/w", "shared/local/l", "shared/testkit/k", "shared/edge/e"},
		}, []string{
			"shared/app/a imports shared/edge/e: app/ may import only domain/ and spec/ (and app/), outside the module only google/uuid and a-h/templ; declare the port in the app/ package and let the adapter/ satisfy it (wired in shared/wire)",
			"shared/app/a imports shared/local/l: app/ may import only domain/ and spec/ (and app/), outside the module only google/uuid and a-h/templ; declare the port in the app/ package and let the adapter/ satisfy it (wired in shared/wire)",
			"shared/app/a imports shared/testkit/k: app/ may import only domain/ and spec/ (and app/), outside the module only google/uuid and a-h/templ; declare the port in the app/ package and let the adapter/ satisfy it (wired in shared/wire)",
			"shared/app/a imports shared/wire/w: app/ may import only domain/ and spec/ (and app/), outside the module only google/uuid and a-h/templ; declare the port in the app/ package and let the adapter/ satisfy it (wired in shared/wire)",
		}},
		{"domain imports spec and a third party", map[string][]string{
			"shared/domain/d": {"shared/spec/table", "github.com/google/uuid"},
		}, []string{
			"shared/domain/d imports github.com/google/uuid: domain/ imports only domain/ and the standard library; give the domain a type or interface and let an adapter/ or app/ package fill it",
			"shared/domain/d imports shared/spec/table: domain/ imports only domain/ and the standard library; give the domain a type or interface and let an adapter/ or app/ package fill it",
		}},
		{"domain imports net/http", map[string][]string{
			"shared/domain/d": {"net/http"},
		}, []string{"shared/domain/d depends on net/http (directly or through another package): domain/ is plain Go, with no AWS, HTTP, Stripe or MCP package; give the domain a type or interface and let an adapter/ or app/ package fill it"}},
		{"app reaches AWS through an allowed import", map[string][]string{
			"shared/app/a":    {"shared/domain/d"},
			"shared/domain/d": {"shared/domain/e"},
			"shared/domain/e": {"github.com/aws/aws-sdk-go-v2/aws"},
		}, []string{
			"shared/app/a depends on github.com/aws/aws-sdk-go-v2/aws (directly or through another package): app/ is plain Go, with no AWS, HTTP, Stripe or MCP package; declare the port in the app/ package and let the adapter/ satisfy it (wired in shared/wire)",
			"shared/domain/d depends on github.com/aws/aws-sdk-go-v2/aws (directly or through another package): domain/ is plain Go, with no AWS, HTTP, Stripe or MCP package; give the domain a type or interface and let an adapter/ or app/ package fill it",
			"shared/domain/e depends on github.com/aws/aws-sdk-go-v2/aws (directly or through another package): domain/ is plain Go, with no AWS, HTTP, Stripe or MCP package; give the domain a type or interface and let an adapter/ or app/ package fill it",
			"shared/domain/e imports github.com/aws/aws-sdk-go-v2/aws: domain/ imports only domain/ and the standard library; give the domain a type or interface and let an adapter/ or app/ package fill it",
		}},
		{"a page's net/http through templ is not its dependency", map[string][]string{
			"shared/app/page":      {"github.com/a-h/templ"},
			"github.com/a-h/templ": {"net/http"},
		}, nil},
		{"spec imports an app package", map[string][]string{
			"shared/spec/s": {"shared/app/a"},
		}, []string{"shared/spec/s imports shared/app/a: spec/ imports only domain/, spec/ and the standard library; keep the table as data here and move what uses it to app/, adapter/ or wire/"}},
		{"edge imports an adapter", map[string][]string{
			"shared/edge/e": {"shared/adapter/dynamo"},
		}, []string{"shared/edge/e imports shared/adapter/dynamo: edge/ may import only app/, domain/ and spec/, never adapter/; take what the adapter does through the builder that shared/wire hands the edge"}},
		{"adapter imports app and edge", map[string][]string{
			"shared/adapter/x": {"shared/app/leads", "shared/edge/apigw"},
		}, []string{
			"shared/adapter/x imports shared/app/leads: adapter/ may import only domain/ and spec/, never app/ or edge/; put the types the adapter and the feature share in domain/ (the feature declares the port, the adapter satisfies it)",
			"shared/adapter/x imports shared/edge/apigw: adapter/ may import only domain/ and spec/, never app/ or edge/; put the types the adapter and the feature share in domain/ (the feature declares the port, the adapter satisfies it)",
		}},
		{"a package in no layer folder", map[string][]string{
			"shared/util/u": {},
		}, []string{"shared/util/u is in no layer folder: shared/ holds only adapter/, app/, checks/, domain/, edge/, local/, spec/, testkit/, wire/; move it under the one whose rule it keeps (docs/ARCHITECTURE.md)"}},
		{"a listed exception", map[string][]string{
			"shared/edge/apigw": {"shared/wire/awsenv"},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := layerViolations(tt.graph)
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestLinkAndMainRulesOnSyntheticGraphs(t *testing.T) {
	got := linkViolations("functions/v1-leads", []string{"shared/edge/apigw", "shared/local/streamlocal", "shared/testkit/apitest", "shared/wire/wiring", "net/http"})
	want := []string{
		"functions/v1-leads links shared/local/streamlocal: no function links local/ (stand-ins and test kits for make dev and tests); move what the function needs into adapter/ or wire/ and keep the stand-in out of its builder",
		"functions/v1-leads links shared/testkit/apitest: no function links testkit/ (stand-ins and test kits for make dev and tests); move what the function needs into adapter/ or wire/ and keep the stand-in out of its builder",
	}
	if !slices.Equal(got, want) {
		t.Errorf("linkViolations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = mainViolations("functions/v1-leads", []string{"shared/edge/apigw", "shared/wire/wiring", "shared/app/leads", "fmt"})
	want = []string{
		"functions/v1-leads imports shared/app/leads: a main only wires, importing only an edge/ package's Start and a wire/ builder; move the code into the builder (shared/wire)",
		"functions/v1-leads imports fmt: a main only wires, importing only an edge/ package's Start and a wire/ builder; move the code into the builder (shared/wire)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mainViolations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
