package htmltest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// Console watches a browser's console: it logs every line to the test,
// and Check fails the test on each line that reports an error, an uncaught
// exception, a Content-Security-Policy violation or a refused request,
// except the lines that contain one of the strings it allows.
type Console struct {
	t     testing.TB
	allow []string
	mu    sync.Mutex
	lines []string
	bad   []string
}

// NewConsole returns a Console that allows the lines containing one of
// allow. Pass its Logf to browser.Logf, and call Check when the browser has
// stopped.
func NewConsole(t testing.TB, allow ...string) *Console {
	return &Console{t: t, allow: allow}
}

// Logf takes one console line.
func (c *Console) Logf(format string, args ...any) {
	line := strings.TrimSpace(fmt.Sprintf(format, args...))
	c.t.Log(line)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, line)
	for _, a := range c.allow {
		if strings.Contains(line, a) {
			return
		}
	}
	if strings.HasPrefix(line, "browser error") || strings.HasPrefix(line, "browser exception") ||
		strings.Contains(line, "Content Security Policy") || strings.Contains(line, "Refused to") {
		c.bad = append(c.bad, line)
	}
}

// Check fails the test for each line the Console does not allow.
func (c *Console) Check() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.bad {
		c.t.Errorf("browser console: %s", l)
	}
}

// Saw reports whether a console line contains s.
func (c *Console) Saw(s string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// StartPhone starts the browser with a phone-sized tab and opens url. The
// script, when not "", runs in every page before the page's own. A Console
// allowing the lines that contain one of allow watches the browser, and
// checks its lines when the test ends, after the browser has stopped.
func StartPhone(t testing.TB, url, script string, allow ...string) (context.Context, *Console) {
	t.Helper()
	browser.Require(t)
	log := NewConsole(t, allow...)
	ctx, cancel, err := browser.Start(context.Background(), browser.Logf(log.Logf))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); log.Check() })
	if script != "" {
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, browser.Phone(), chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	return ctx, log
}

// Shot saves a screenshot of the whole page (ScreenshotPage) as name.png
// into $SCREENSHOT_DIR (to look at), or a temporary directory.
func Shot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := ScreenshotPage(ctx, filepath.Join(dir, name+".png")); err != nil {
		t.Error(err)
	}
}

// ScreenshotPage writes a PNG of the whole page, from the top to the end of
// its content, in CSS pixels (390 px wide on browser.Phone), which keeps
// the file small. A page shorter than the viewport is shot at the
// viewport's height.
func ScreenshotPage(ctx context.Context, path string) error {
	size, err := chromedp.Run(ctx, chromedp.Evaluate[struct{ W, H, DPR float64 }](
		`({W: innerWidth, H: Math.max(innerHeight, document.documentElement.scrollHeight), DPR: devicePixelRatio})`))
	if err != nil {
		return fmt.Errorf("screenshot %s: %w", path, err)
	}
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		CaptureBeyondViewport: new(true),
		Clip:                  &page.Viewport{Width: size.W, Height: size.H, Scale: 1 / max(size.DPR, 1)},
	})
	if err != nil {
		return fmt.Errorf("screenshot %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, res.Data, 0o644)
}

// Within derives a context of ctx that ends after d (or with the test).
func Within(t testing.TB, ctx context.Context, d time.Duration) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return c
}

// WaitLocation waits up to 10 s until the tab's address starts with
// prefix (the whole address, for an exact match), and returns it.
func WaitLocation(t testing.TB, ctx context.Context, prefix string) string {
	t.Helper()
	ctx = Within(t, ctx, 10*time.Second)
	var last string
	for {
		if loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`)); err == nil {
			last = loc
			if strings.HasPrefix(loc, prefix) {
				return loc
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the browser is at %q; want an address starting %q", last, prefix)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// DocumentStatus is the HTTP status the tab's current document was
// answered with.
func DocumentStatus(t testing.TB, ctx context.Context) int {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[int](`performance.getEntriesByType("navigation")[0].responseStatus`))
	if err != nil {
		t.Fatalf("read the document's status: %v", err)
	}
	return s
}
