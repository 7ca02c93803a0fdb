package architecture

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// A package's layer is the folder after shared/ in its path, so a new
// package is checked the day it is added. Paths here are relative to the
// module for the module's packages (shared/app/leads) and full for the
// others (net/http, github.com/google/uuid).

// layer is one folder's rule.
type layer struct {
	// may lists the layers it may import; nil means every layer.
	may []string
	// rule says the rule, fix how to mend a breach of it: together one
	// sentence of a failure.
	rule, fix string
	// thirdParty lists the only packages outside the standard library and
	// the module it may import (path prefixes); nil means any.
	thirdParty []string
	// plain layers depend on no AWS, HTTP, Stripe or MCP package, directly
	// or through another, templ's net/http aside (see depsNotThroughTempl).
	plain bool
}

var layers = map[string]layer{
	"domain": {may: []string{"domain"}, thirdParty: []string{}, plain: true,
		rule: "domain/ imports only domain/ and the standard library",
		fix:  "give the domain a type or interface and let an adapter/ or app/ package fill it"},
	"spec": {may: []string{"domain", "spec"}, thirdParty: []string{}, plain: true,
		rule: "spec/ imports only domain/, spec/ and the standard library",
		fix:  "keep the table as data here and move what uses it to app/, adapter/ or wire/"},
	"app": {may: []string{"domain", "spec", "app"}, thirdParty: []string{"github.com/google/uuid", "github.com/a-h/templ"}, plain: true,
		rule: "app/ may import only domain/ and spec/ (and app/), outside the module only google/uuid and a-h/templ",
		fix:  "declare the port in the app/ package and let the adapter/ satisfy it (wired in shared/wire)"},
	"edge": {may: []string{"domain", "spec", "app", "edge"},
		rule: "edge/ may import only app/, domain/ and spec/, never adapter/",
		fix:  "take what the adapter does through the builder that shared/wire hands the edge"},
	"adapter": {may: []string{"domain", "spec", "adapter"},
		rule: "adapter/ may import only domain/ and spec/, never app/ or edge/",
		fix:  "put the types the adapter and the feature share in domain/ (the feature declares the port, the adapter satisfies it)"},
	// wire/ and functions/ see everything; local/, testkit/ and checks/ too,
	// but no function links them (linkViolations).
	"wire": {}, "local": {}, "testkit": {}, "checks": {},
}

// neverLinked are the layers no function may link: stand-ins and test kits.
var neverLinked = []string{"local", "testkit", "checks"}

// infrastructure are what plain layers never depend on (path prefixes).
var infrastructure = []string{"github.com/aws/", "github.com/stripe/", "net/http", "github.com/modelcontextprotocol/"}

// layerOf returns the layer of module package p ("" for a package outside
// shared/) and whether p is in the module.
func layerOf(p string) (string, bool) {
	if strings.HasPrefix(p, "functions/") || strings.HasPrefix(p, "scripts/") {
		return "", true
	}
	rest, ok := strings.CutPrefix(p, "shared/")
	if !ok {
		return "", false
	}
	l, _, _ := strings.Cut(rest, "/")
	return l, true
}

// standard reports whether p is a standard-library package: no dot in its
// first element.
func standard(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

func hasPrefix(p string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(pre string) bool {
		return p == strings.TrimSuffix(pre, "/") || strings.HasPrefix(p, strings.TrimSuffix(pre, "/")+"/")
	})
}

// layerViolations checks every package of the module in graph (package →
// its imports) against its folder's rule, exceptions aside, and returns
// one sentence per breach, sorted; used returns the exceptions that
// excused one.
func layerViolations(graph map[string][]string) (out []string, used map[exception]bool) {
	used = map[exception]bool{}
	for p, imports := range graph {
		from, inModule := layerOf(p)
		if !inModule || from == "" {
			continue
		}
		rule, known := layers[from]
		if !known {
			out = append(out, fmt.Sprintf("%s is in no layer folder: shared/ holds only %s; move it under the one whose rule it keeps (docs/ARCHITECTURE.md)", p, strings.Join(layerNames(), "/, ")+"/"))
			continue
		}
		for _, imp := range imports {
			to, impInModule := layerOf(imp)
			var broken bool
			switch {
			case impInModule && to != "" && rule.may != nil:
				broken = !slices.Contains(rule.may, to)
			case !impInModule && !standard(imp) && rule.thirdParty != nil:
				broken = !hasPrefix(imp, rule.thirdParty)
			}
			if !broken {
				continue
			}
			if e, ok := excused(p, imp); ok {
				used[e] = true
				continue
			}
			out = append(out, fmt.Sprintf("%s imports %s: %s; %s", p, imp, rule.rule, rule.fix))
		}
		if rule.plain {
			// What an excused import reaches is excused with it.
			kept := slices.DeleteFunc(slices.Clone(imports), func(imp string) bool { _, ok := excused(p, imp); return ok })
			seen := map[string]bool{} // one sentence per kind of infrastructure
			for _, d := range depsNotThroughTempl(graph, kept) {
				if i := slices.IndexFunc(infrastructure, func(pre string) bool { return hasPrefix(d, []string{pre}) }); i >= 0 && !seen[infrastructure[i]] {
					seen[infrastructure[i]] = true
					out = append(out, fmt.Sprintf("%s depends on %s (directly or through another package): %s/ is plain Go, with no AWS, HTTP, Stripe or MCP package; %s", p, d, from, rule.fix))
				}
			}
		}
	}
	sort.Strings(out)
	return out, used
}

// linkViolations checks what function fn links (deps: its main's import
// closure) and returns one sentence per package of a layer no function
// may link.
func linkViolations(fn string, deps []string) []string {
	var out []string
	for _, d := range deps {
		if l, in := layerOf(d); in && slices.Contains(neverLinked, l) {
			out = append(out, fmt.Sprintf("%s links %s: no function links %s/ (stand-ins and test kits for make dev and tests); move what the function needs into adapter/ or wire/ and keep the stand-in out of its builder", fn, d, l))
		}
	}
	sort.Strings(out)
	return out
}

// mainViolations checks a function main's imports: only an edge/ and a
// wire/ package.
func mainViolations(fn string, imports []string) []string {
	var out []string
	for _, imp := range imports {
		if l, in := layerOf(imp); !in || (l != "edge" && l != "wire") {
			out = append(out, fmt.Sprintf("%s imports %s: a main only wires, importing only an edge/ package's Start and a wire/ builder; move the code into the builder (shared/wire)", fn, imp))
		}
	}
	return out
}

func layerNames() []string {
	var names []string
	for n := range layers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
