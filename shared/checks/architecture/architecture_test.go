package architecture

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/moveleads/partnerapi/"

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
}

// listPackages runs `go list -json` over the module's packages.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	pkgs := map[string]pkg{}
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// templ is the pages' HTML library. Its runtime links net/http for
// templ.Handler, which no page calls: what a plain package reaches only
// through templ is not its dependency.
const templ = "github.com/a-h/templ"

// depsNotThroughTempl returns the packages imports reach, directly or
// through others, without passing through templ; graph maps each package
// to its imports.
func depsNotThroughTempl(graph map[string][]string, imports []string) []string {
	seen := map[string]bool{}
	var out []string
	for todo := slices.Clone(imports); len(todo) > 0; {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[p] || p == templ || strings.HasPrefix(p, templ+"/") {
			continue
		}
		seen[p] = true
		out = append(out, p)
		todo = append(todo, graph[p]...)
	}
	return out
}

// importGraph runs `go list -deps -json` over the module: every package it
// links, the module's and others', with its imports; the module's paths
// are relative to it, as the layer rules read them.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json", module+"...").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	graph := map[string][]string{}
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		imports := make([]string, len(p.Imports))
		for i, imp := range p.Imports {
			imports[i] = strings.TrimPrefix(imp, module)
		}
		graph[strings.TrimPrefix(p.ImportPath, module)] = imports
	}
	return graph
}

// TestOnlyStripepayImportsStripe: shared/adapter/stripepay is the Stripe adapter,
// the one package (with its tests) that imports stripe-go; everything else
// reaches Stripe through it, so only the binaries that link it carry the
// SDK.
func TestOnlyStripepayImportsStripe(t *testing.T) {
	const stripeGo = "github.com/stripe/stripe-go/"
	pkgs := listPackages(t)
	if p, ok := pkgs["shared/adapter/stripepay"]; !ok || !slices.ContainsFunc(p.Imports, func(imp string) bool { return strings.HasPrefix(imp, stripeGo) }) {
		t.Fatal("shared/adapter/stripepay not found or imports no stripe-go package; the rule checks nothing")
	}
	for name, p := range pkgs {
		if name == "shared/adapter/stripepay" {
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if strings.HasPrefix(imp, stripeGo) {
				t.Errorf("%s imports %s; only shared/adapter/stripepay may import stripe-go", name, imp)
			}
		}
	}
}

// TestOnlyS3StoreReachesS3: in every function, the SDK's S3 client is
// imported only by the clip bucket's adapter (shared/adapter/s3store), and that
// only by the builders (shared/wire/wiring): no function reaches S3 another
// way. Which functions open the bucket is their builders' choice, checked
// against the manifest's grants by shared/checks/samcheck (each function starts
// with only its template's variables); the one wiring package links the
// adapter into every function, so linking is no longer that check.
func TestOnlyS3StoreReachesS3(t *testing.T) {
	const sdkS3 = "github.com/aws/aws-sdk-go-v2/service/s3"
	pkgs := listPackages(t)
	if !slices.Contains(pkgs["shared/adapter/s3store"].Imports, sdkS3) {
		t.Fatalf("shared/adapter/s3store does not import %s; the rule checks nothing", sdkS3)
	}
	checkOnlyImporters(t, pkgs, map[string][]string{
		sdkS3:                             {module + "shared/adapter/s3store"},
		module + "shared/adapter/s3store": {module + "shared/wire/s3wiring"},
	})
}

// checkOnlyImporters fails when a package that some function links imports
// one of only's keys without being among its allowed importers.
func checkOnlyImporters(t *testing.T, pkgs map[string]pkg, only map[string][]string) {
	t.Helper()
	n := 0
	for name, p := range pkgs {
		if !strings.HasPrefix(name, "functions/") {
			continue
		}
		n++
		for _, dep := range append([]string{p.ImportPath}, p.Deps...) {
			d, ok := pkgs[strings.TrimPrefix(dep, module)]
			if !ok || !strings.HasPrefix(dep, module) {
				continue
			}
			for _, imp := range d.Imports {
				if allowed, guarded := only[imp]; guarded && !slices.Contains(allowed, dep) {
					t.Errorf("%s (linked by %s) imports %s; only %v may", dep, name, imp, allowed)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no functions/ packages found")
	}
}

// TestOnlyWebhookFunctionsCallOut: the HTTP client that calls partners'
// endpoints and the signing library (shared/adapter/webhookhttp) are used, in every
// function, only by the webhook builders (shared/wire/wiring's hooks.go is the
// only importer). Since the one wiring package links them into every
// function, which functions call out is their builders' choice
// (Dispatcher, Attempts, Retrier: the functions holding the sealing key).
// The dashboard's builder imports it only for CheckURL, the endpoints' URL
// rule when a partner adds one; it builds no Sender, so it never calls out.
func TestOnlyWebhookFunctionsCallOut(t *testing.T) {
	pkgs := listPackages(t)
	checkOnlyImporters(t, pkgs, map[string][]string{
		module + "shared/adapter/webhookhttp": {module + "shared/wire/hookwiring", module + "shared/wire/dashwiring"},
	})
}
