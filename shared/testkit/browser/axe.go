package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/local/childproc"
	"github.com/moveleads/partnerapi/shared/local/repo"
)

// Violation is one axe-core rule that a page breaks, with the elements
// that break it.
type Violation struct {
	ID     string   // the axe rule, e.g. "image-alt"
	Impact string   // "serious" or "critical" (CheckAccessibility returns no others)
	Help   string   // what the rule asks, in a sentence
	Nodes  []string // CSS selectors of the offending elements
}

func (v Violation) String() string {
	return fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", "))
}

// axeScript is axe.min.js, read once per process.
var axeScript = sync.OnceValues(func() (string, error) {
	dir, err := childproc.InstallDir("AXE_DIR", "axe")
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
	if _, err := os.Stat(file); err != nil {
		root, rerr := repo.Root()
		if rerr != nil {
			return "", fmt.Errorf("axe-core missing (%w): run scripts/install-axe.sh", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := childproc.RunInstaller(ctx, filepath.Join(root, "scripts", "install-axe.sh"), "AXE_DIR", dir); err != nil {
			return "", fmt.Errorf("install axe-core: %w", err)
		}
	}
	b, err := os.ReadFile(file)
	return string(b), err
})

// axeRun runs axe on the whole document (WCAG 2 A and AA and best
// practices) and keeps the serious and critical violations.
const axeRun = `axe.run(document).then(r => r.violations
	.filter(v => v.impact === "serious" || v.impact === "critical")
	.map(v => ({ID: v.id, Impact: v.impact, Help: v.help, Nodes: v.nodes.map(n => n.target.join(" "))})))`

// CheckAccessibility injects axe-core (npm axe-core, installed by
// scripts/install-axe.sh into .cache/axe; installed on first use when
// missing) into the tab's current page and returns its serious and
// critical violations; none is an empty slice. It is injected through
// DevTools, which a page's Content-Security-Policy does not block, so
// pages are checked with their real headers. Set the viewport (Phone)
// before calling it: some rules depend on the layout.
func CheckAccessibility(ctx context.Context) ([]Violation, error) {
	src, err := axeScript()
	if err != nil {
		return nil, fmt.Errorf("accessibility check: %w", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](src+";\ntypeof axe === 'object'")); err != nil {
		return nil, fmt.Errorf("accessibility check: inject axe-core: %w", err)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]Violation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("accessibility check: axe.run: %w", err)
	}
	if v == nil {
		v = []Violation{}
	}
	return v, nil
}
