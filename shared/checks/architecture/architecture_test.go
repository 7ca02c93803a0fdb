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

// forbidden reports whether importing dep breaks the plain-Go rule.
func forbidden(dep string) bool {
	for _, p := range []string{"github.com/aws/", "github.com/stripe/", "net/http", "github.com/modelcontextprotocol/"} {
		if dep == strings.TrimSuffix(p, "/") || strings.HasPrefix(dep, p) {
			return true
		}
	}
	return false
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
// links, the module's and others', with its imports.
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
		graph[p.ImportPath] = p.Imports
	}
	return graph
}

func TestPlainGoLayersImportNoInfrastructure(t *testing.T) {
	pkgs := listPackages(t)
	graph := importGraph(t)
	plain := []string{
		"shared/domain/auth", "shared/domain/lead", "shared/domain/estimate", "shared/app/pipeline/idempotency",
		"shared/domain/errcode", "shared/spec/manifest", "shared/spec/table", "shared/spec/settings",
		"shared/app/pipeline", "shared/app/leads", "shared/domain/survey", "shared/domain/inventory", "shared/domain/clip",
		"shared/app/record", "shared/app/surveys", "shared/app/surveys/capturepage",
		"shared/domain/videolink", "shared/app/videolinks", "shared/app/videolinks/viewerpage", "shared/app/htmlpage",
		"shared/domain/webhook", "shared/app/webhooks", "shared/domain/deposit",
	}
	for _, name := range plain {
		t.Run(name, func(t *testing.T) {
			p, ok := pkgs[name]
			if !ok {
				t.Fatalf("package %s not found", name)
			}
			for _, d := range depsNotThroughTempl(graph, p.Imports) {
				if forbidden(d) {
					t.Errorf("%s depends on %s (directly or through another package)", name, d)
				}
			}
		})
	}
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

func TestFeaturesImportNoEdgeOrAdapter(t *testing.T) {
	pkgs := listPackages(t)
	for _, feature := range []string{"shared/app/leads", "shared/app/pipeline", "shared/app/surveys", "shared/app/videolinks", "shared/app/webhooks"} {
		for _, d := range pkgs[feature].Deps {
			for _, banned := range []string{"shared/edge/apigw", "shared/edge/s3event", "shared/edge/streamevent", "shared/local/streamlocal", "shared/edge/queueevent", "shared/local/queuelocal", "shared/adapter/sqsqueue", "shared/edge/schedule", "shared/adapter/dynamo", "shared/adapter/s3store", "shared/adapter/webhookhttp", "shared/wire/awsenv", "shared/wire/catalog", "shared/local/localgw"} {
				if d == module+banned {
					t.Errorf("%s imports %s", feature, banned)
				}
			}
		}
	}
}

func TestMainsOnlyWire(t *testing.T) {
	pkgs := listPackages(t)
	n := 0
	for name, p := range pkgs {
		if !strings.HasPrefix(name, "functions/") {
			continue
		}
		n++
		for _, imp := range p.Imports {
			switch imp {
			case module + "shared/edge/apigw", module + "shared/edge/s3event", module + "shared/edge/streamevent", module + "shared/edge/schedule", module + "shared/edge/queueevent",
				module + "shared/wire/wiring", module + "shared/wire/mcpwiring", module + "shared/wire/hookwiring", module + "shared/wire/s3wiring", module + "shared/wire/clipwiring":
			default:
				t.Errorf("%s imports %s; a main imports only an edge (shared/edge/apigw, shared/edge/s3event, shared/edge/streamevent, shared/edge/queueevent, shared/edge/schedule) and its builder's package (shared/wire/wiring, or its s3wiring, clipwiring, hookwiring or mcpwiring)", name, imp)
			}
		}
	}
	if n == 0 {
		t.Error("no functions/ packages found")
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

// TestNoFunctionLinksStreamlocal: shared/local/streamlocal (and the DynamoDB
// Streams client it reads with) drives stream handlers, and
// shared/local/queuelocal queue handlers, in make dev and tests only; in AWS,
// Lambda reads the stream and the queue.
func TestNoFunctionLinksStreamlocal(t *testing.T) {
	for name, p := range listPackages(t) {
		if !strings.HasPrefix(name, "functions/") {
			continue
		}
		for _, banned := range []string{module + "shared/local/streamlocal", module + "shared/local/queuelocal", "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"} {
			if slices.Contains(p.Deps, banned) {
				t.Errorf("%s links %s", name, banned)
			}
		}
	}
}

// TestNoFunctionLinksDetectlocal: the local detector (shared/local/detectlocal,
// a client of a Node.js sidecar) serves make dev and tests only; in AWS
// the inventory's detector is Amazon Rekognition.
func TestNoFunctionLinksDetectlocal(t *testing.T) {
	n := 0
	for name, p := range listPackages(t) {
		if !strings.HasPrefix(name, "functions/") {
			continue
		}
		n++
		if slices.Contains(p.Deps, module+"shared/local/detectlocal") {
			t.Errorf("%s links shared/local/detectlocal", name)
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
func TestOnlyWebhookFunctionsCallOut(t *testing.T) {
	pkgs := listPackages(t)
	checkOnlyImporters(t, pkgs, map[string][]string{
		module + "shared/adapter/webhookhttp": {module + "shared/wire/hookwiring"},
	})
}
