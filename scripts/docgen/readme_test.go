package main

// Tests that keep the README's and docs' statements honest where a
// generator cannot write them: links, make targets, script paths, ports,
// event lists, the sam build list, the sample events table and counts.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/scripts/build/lambdafn"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// root is the repository root, relative to this package.
const root = "../.."

// docFiles returns README.md and every docs/*.md, relative to the root.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	return files
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// prose returns doc without its fenced code blocks.
func prose(doc string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(doc) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			b.WriteString("\n")
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

var (
	linkRe    = regexp.MustCompile(`\]\(([^)\s]+)\)|src="([^"]+)"`)
	headingRe = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// anchors returns the GitHub anchors of doc's headings.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	for _, m := range headingRe.FindAllStringSubmatch(prose(doc), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

// TestDocLinksResolve: every relative link of the README and docs/ names a
// file that exists, and its #anchor a heading of that file.
func TestDocLinksResolve(t *testing.T) {
	headings := map[string]map[string]bool{} // each file's anchors, computed once
	for _, name := range docFiles(t) {
		doc := readDoc(t, name)
		for _, m := range linkRe.FindAllStringSubmatch(prose(doc), -1) {
			target := m[1] + m[2]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			resolved := name
			if file != "" {
				resolved = path.Join(path.Dir(name), file)
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(resolved))); err != nil {
					t.Errorf("%s links to %s: %s does not exist", name, target, resolved)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(resolved, ".md") {
				continue
			}
			if headings[resolved] == nil {
				headings[resolved] = anchors(readDoc(t, resolved))
			}
			if !headings[resolved][anchor] {
				t.Errorf("%s links to %s: %s has no heading #%s", name, target, resolved, anchor)
			}
		}
	}
}

// makeTargets returns the targets the Makefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`).FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = true
	}
	return out
}

// TestMakeTargetsNamedExist: every `make X` the README and docs name is a
// target of the Makefile (SAM's build-<LogicalId> comes from a pattern).
func TestMakeTargetsNamedExist(t *testing.T) {
	targets := makeTargets(t)
	re := regexp.MustCompile("(?m)(?:`|^|\\$ )(?:[A-Z_]+=\\S+ )*make ([a-z][a-z0-9-]*)")
	for _, name := range docFiles(t) {
		for _, m := range re.FindAllStringSubmatch(readDoc(t, name), -1) {
			if target := m[1]; !targets[target] && !strings.HasPrefix(target, "build-") {
				t.Errorf("%s names `make %s`: the Makefile has no such target", name, target)
			}
		}
	}
}

// TestScriptPathsExist: every scripts/… path the README and docs name
// exists.
func TestScriptPathsExist(t *testing.T) {
	re := regexp.MustCompile(`scripts/[A-Za-z0-9_./-]*[A-Za-z0-9_/]`)
	for _, name := range docFiles(t) {
		for _, p := range re.FindAllString(readDoc(t, name), -1) {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				t.Errorf("%s names %s, which does not exist", name, p)
			}
		}
	}
}

// webhookListenPort reads webhook-listen's default port from its source:
// the fs.Int("port", N, …) flag.
func webhookListenPort(t *testing.T) int {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "scripts/webhook-listen/main.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	port := 0
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		name, nameOK := call.Args[0].(*ast.BasicLit)
		val, valOK := call.Args[1].(*ast.BasicLit)
		if ok && nameOK && valOK && sel.Sel.Name == "Int" && name.Value == `"port"` {
			port, _ = strconv.Atoi(val.Value)
		}
		return true
	})
	if port == 0 {
		t.Fatal(`no fs.Int("port", N, …) in scripts/webhook-listen/main.go`)
	}
	return port
}

// TestReadmePortIsNotWebhookListens: the README's example port for make dev
// must not be the one the webhook listener takes by default, or following
// the README makes the two clash.
func TestReadmePortIsNotWebhookListens(t *testing.T) {
	listen := webhookListenPort(t)
	ports := regexp.MustCompile(`PORT=(\d+) make dev`).FindAllStringSubmatch(readDoc(t, "README.md"), -1)
	if len(ports) == 0 {
		t.Fatal("README shows no `PORT=N make dev` example")
	}
	for _, m := range ports {
		if p, _ := strconv.Atoi(m[1]); p == listen {
			t.Errorf("README's example `PORT=%d make dev` is webhook-listen's default port %d", p, listen)
		}
	}
}

// TestWebhookEventListsAreComplete: a paragraph of the README or
// docs/WEBHOOKS.md that lists event types (names four or more) lists
// every type of the catalogue.
func TestWebhookEventListsAreComplete(t *testing.T) {
	for _, name := range []string{"README.md", "docs/WEBHOOKS.md"} {
		for para := range strings.SplitSeq(prose(readDoc(t, name)), "\n\n") {
			var named, missing []string
			for _, k := range webhook.Catalogue {
				if strings.Contains(para, "`"+string(k.Type)+"`") {
					named = append(named, string(k.Type))
				} else {
					missing = append(missing, string(k.Type))
				}
			}
			if len(named) >= 4 && len(missing) > 0 {
				t.Errorf("%s lists webhook events %v without %v:\n%s", name, named, missing, strings.TrimSpace(para))
			}
		}
	}
}

// TestDevelopingCoversEveryFunction: the `sam build` list names every
// function's logical id, and the sample-events table has a row per
// function with every case events/ holds for it.
func TestDevelopingCoversEveryFunction(t *testing.T) {
	doc := readDoc(t, "docs/DEVELOPING.md")
	i := strings.Index(doc, "`sam\nbuild` calls")
	if i < 0 {
		t.Fatal("docs/DEVELOPING.md has no `sam build` list")
	}
	list, _, _ := strings.Cut(doc[i:], ")")
	for _, id := range lambdafn.LogicalIDs(manifest.Functions) {
		if !strings.Contains(list, "`"+id+"`") {
			t.Errorf("the `sam build` list lacks %s", id)
		}
	}
	rows := map[string]string{}
	for line := range strings.Lines(doc) {
		if slug, ok := strings.CutPrefix(line, "| `"); ok {
			slug, _, _ = strings.Cut(slug, "`")
			rows[slug] = line
		}
	}
	events, err := filepath.Glob(filepath.Join(root, "events", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range manifest.Functions {
		if _, ok := rows[f.Slug]; !ok {
			t.Errorf("the events table has no row for %s", f.Slug)
		}
	}
	for _, e := range events {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(e), ".json"), ".")
		if len(parts) < 2 {
			continue
		}
		row, ok := rows[parts[0]]
		if ok && !strings.Contains(row, "`"+parts[1]+"`") {
			t.Errorf("the events table's %s row lacks `%s` (%s)", parts[0], parts[1], filepath.Base(e))
		}
	}
}

// TestCubeSheetRowCount: the cube sheet's size, where the docs state it,
// is the code's.
func TestCubeSheetRowCount(t *testing.T) {
	want := len(inventory.Entries())
	re := regexp.MustCompile(`(\d+)-row cube sheet|cube sheet of (\d+)`)
	found := false
	for _, name := range docFiles(t) {
		for _, m := range re.FindAllStringSubmatch(strings.ReplaceAll(readDoc(t, name), "\n", " "), -1) {
			found = true
			if n, _ := strconv.Atoi(m[1] + m[2]); n != want {
				t.Errorf("%s: %q; the cube sheet has %d rows", name, m[0], want)
			}
		}
	}
	if !found {
		t.Error("no doc states the cube sheet's row count")
	}
}

// TestBenchDurationsAgree: every duration stated for `make bench` (docs and
// the Makefile) is the same and within half of the last run's
// (docs/BENCHMARKS.md's "in N s").
func TestBenchDurationsAgree(t *testing.T) {
	m := regexp.MustCompile(`in (\d+) s\.`).FindStringSubmatch(readDoc(t, "docs/BENCHMARKS.md"))
	if m == nil {
		t.Fatal(`docs/BENCHMARKS.md does not say "in N s."`)
	}
	secs, _ := strconv.Atoi(m[1])
	measured := float64(secs) / 60
	re := regexp.MustCompile(`(?s)bench.{0,160}?about ([\d.]+) minutes`)
	var stated []string
	for _, name := range append(docFiles(t), "Makefile") {
		text := strings.ReplaceAll(readDoc(t, name), "\n## ", " ")
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			stated = append(stated, m[1])
			if v, _ := strconv.ParseFloat(m[1], 64); math.Abs(v-measured) > measured/2 {
				t.Errorf("%s says make bench takes about %s minutes; the last run took %.1f", name, m[1], measured)
			}
		}
	}
	if len(stated) == 0 {
		t.Fatal("no doc states how long make bench takes")
	}
	for _, s := range stated[1:] {
		if s != stated[0] {
			t.Errorf("make bench durations disagree: %v", stated)
			break
		}
	}
}

// TestLayoutNamesEveryScript: the layout in docs/DEVELOPING.md names every
// folder and shell script under scripts/.
func TestLayoutNamesEveryScript(t *testing.T) {
	doc := readDoc(t, "docs/DEVELOPING.md")
	entries, err := os.ReadDir(filepath.Join(root, "scripts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch {
		case e.IsDir() && !strings.Contains(doc, "scripts/"+e.Name()+" "):
			t.Errorf("the layout does not name scripts/%s", e.Name())
		case strings.HasSuffix(e.Name(), ".sh") && !strings.Contains(doc, e.Name()):
			t.Errorf("the layout does not name scripts/%s", e.Name())
		}
	}
}

// TestReadmeIsShort: the README is what a newcomer reads in the first
// hour (issue 26: "a newcomer needs the first 150" lines); the rest lives
// in docs/, linked from it.
func TestReadmeIsShort(t *testing.T) {
	const most = 165
	readme := readDoc(t, "README.md")
	if n := strings.Count(readme, "\n"); n > most {
		t.Errorf("README.md has %d lines; want at most %d: move the detail into docs/", n, most)
	}
	for _, want := range []string{"make dev ", "make test ", "PORT=", "## Walkthrough", "about 3 minutes", "about 14 minutes", "docs/DEPOSITS.md", "docs/AGENT-TOOLS.md"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}

// TestEstimateWorkedExample: docs/ESTIMATE.md's worked example and the
// README's two figures are what the code computes for the README's lead
// and the counted inventory the example lists (the package's Example
// prints the same; this keeps the prose from drifting from it).
func TestEstimateWorkedExample(t *testing.T) {
	rc := estimate.DefaultRateCard("usd")
	from, to := "1 Main St, New York, NY 10001", "9 Oak Ave, Boston, MA 02108"
	instant := estimate.Compute(rc, estimate.Input{FromAddress: from, ToAddress: to, HomeSize: "2 bedroom"})
	var items []inventory.Item
	for key, n := range map[string]int{"sofa_3_seat": 1, "bed_queen": 1, "dresser": 1, "nightstand": 2, "tv_medium": 1, "box_medium": 10} {
		e, ok := inventory.Lookup(key)
		if !ok {
			t.Fatalf("no cube sheet entry %s", key)
		}
		items = append(items, inventory.Item{Key: e.Key, Name: e.Name, Count: n, CubicFeet: e.Volume.CubicFeet()})
	}
	r, ok := inventory.Recommend(rc, inventory.Inventory{Rooms: []inventory.Room{{Name: "Home", Items: items}}}, from, to)
	if !ok || instant == nil {
		t.Fatal("the worked example has no estimate")
	}
	dollars := func(n int64) string {
		s := strconv.FormatInt(n, 10)
		if len(s) > 3 {
			s = s[:len(s)-3] + "," + s[len(s)-3:]
		}
		return s
	}
	doc := strings.ReplaceAll(readDoc(t, "docs/ESTIMATE.md"), "\n", " ")
	for _, want := range []string{
		fmt.Sprintf("**%s**", r.Volume),
		fmt.Sprintf("(%d road miles", r.Miles),
		fmt.Sprintf("%d–%d mover-minutes", r.MoverMinutes[0], r.MoverMinutes[1]),
		fmt.Sprintf("crew %d: %d–%d minutes", r.Crew, r.ClockMinutes[0], r.ClockMinutes[1]),
		fmt.Sprintf("**$%s – $%s** | **$%s – $%s**", dollars(int64(instant.Min)), dollars(int64(instant.Max)), dollars(int64(r.Estimate.Min)), dollars(int64(r.Estimate.Max))),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/ESTIMATE.md's worked example lacks %q (the code's figure)", want)
		}
	}
	readme := strings.ReplaceAll(readDoc(t, "README.md"), "\n", " ")
	for _, want := range []string{
		fmt.Sprintf(`"estimate":{"min":%d,"max":%d,`, instant.Min, instant.Max),
		fmt.Sprintf("$%s–%s", dollars(int64(instant.Min)), dollars(int64(instant.Max))),
		fmt.Sprintf("$%s–%s for %s", dollars(int64(r.Estimate.Min)), dollars(int64(r.Estimate.Max)), r.Volume),
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q (the code's figure)", want)
		}
	}
}
