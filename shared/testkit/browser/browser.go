package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// InstallHint is what to do when Chromium is missing.
const InstallHint = "run scripts/bootstrap.sh (installs chromium-headless-shell)"

// binaries are the Chromium builds Path looks for on PATH, in order.
// Debian's chromium-headless-shell (which scripts/bootstrap.sh installs) is
// Chromium's own headless build: the same Blink, V8 and media stack, without
// the browser's tab strip, profile services and WebUI renderers that the
// full chromium starts even under --headless. The browser tests pass on
// both; on the shell Chromium used 58 s of CPU instead of 146 s for the
// browser packages other than dashboardapp, and 17 s instead of 40-47 s
// for dashboardapp (go test -race through scripts/teststack, a sampler of
// the Chromium processes' /proc stat over the run). The full
// chromium is the fallback for a machine that has only it.
var binaries = []string{"chromium-headless-shell", "chromium"}

// Path returns the first of binaries on PATH (Debian's packages install
// them in /usr/bin). It fails when there is none; no browser is ever
// downloaded.
func Path() (string, error) {
	for _, name := range binaries {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %v found on PATH: %s", binaries, InstallHint)
}

// Require fails the test (it does not skip it) when Chromium is missing,
// saying how to install it, and returns its path otherwise.
func Require(t testing.TB) string {
	t.Helper()
	p, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Option changes how Start runs the browser.
type Option func(*config)

type config struct {
	fakeVideo string
	flags     [][2]any
	logf      func(format string, args ...any)
}

// FakeVideo makes the fake camera film file (a .y4m or .mjpeg, as Chromium
// requires) instead of its built-in test pattern.
func FakeVideo(file string) Option { return func(c *config) { c.fakeVideo = file } }

// Flag passes one more command-line switch to Chromium: --name=value for a
// string, --name for true.
func Flag(name string, value any) Option {
	return func(c *config) { c.flags = append(c.flags, [2]any{name, value}) }
}

// Logf receives the page's console messages, uncaught exceptions and
// browser log entries (a blocked request, a Content-Security-Policy
// violation), one line each; pass t.Logf. It stops before Start's cancel
// returns, so it is never called after the test ends.
func Logf(f func(format string, args ...any)) Option { return func(c *config) { c.logf = f } }

// Start returns a chromedp context of a new tab, in a browser context of
// its own (its own cookies, storage and cache, like a fresh profile), of a
// headless Chromium (no sandbox, no GPU, a profile in a temporary
// directory, a fake camera and microphone whose use is granted without a
// prompt). The browser is started on the first call and shared by every
// later call of the process with the same options, so a test binary runs
// one Chromium; [RunTests] closes it. Run actions on the tab with
// chromedp.Run and chromedp.Do, or with this package's helpers; derive
// per-step timeouts from it with context.WithTimeout.
//
// cancel closes the tab and its browser context, and waits until the
// console stops reaching Logf; call it before the test ends. The tab also
// closes when ctx ends. Start fails when Chromium is missing or does not
// start.
func Start(ctx context.Context, opts ...Option) (context.Context, context.CancelFunc, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	// Checked on every call, not only when a browser starts.
	if _, err := Path(); err != nil {
		return nil, nil, err
	}
	browserCtx, err := sharedBrowser(c)
	if err != nil {
		return nil, nil, err
	}
	tabCtx, cancelTab := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	stopAfter := context.AfterFunc(ctx, cancelTab)

	var wg sync.WaitGroup
	if c.logf != nil {
		// Subscribe before the tab opens, so nothing is missed.
		messages := chromedp.Console(tabCtx)
		wg.Go(func() {
			for m, err := range messages {
				if err != nil {
					return
				}
				c.logf("browser %s: %s", m.Type, m)
			}
		})
	}
	var once sync.Once
	cancel := func() {
		once.Do(func() {
			stopAfter()
			cancelTab() // closes the tab and disposes its browser context
			wg.Wait()
		})
	}
	// The first action opens the tab; it must not run under a timeout,
	// which would close the tab with it.
	if err := chromedp.Do(tabCtx); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("open a chromium tab: %w", err)
	}
	return tabCtx, cancel, nil
}

// browsers are the process's running browsers, by their options (a fake
// video or a flag needs a browser of its own).
var browsers struct {
	sync.Mutex
	byKey map[string]*running
}

type running struct {
	ctx   context.Context // the browser's first tab, parent of every Start's
	close func()
}

// sharedBrowser returns the context of the running browser with c's
// options, starting one when there is none or it has exited.
func sharedBrowser(c config) (context.Context, error) {
	key := fmt.Sprintf("%q %q", c.fakeVideo, c.flags)
	browsers.Lock()
	defer browsers.Unlock()
	if b := browsers.byKey[key]; b != nil {
		if b.ctx.Err() == nil {
			return b.ctx, nil
		}
		b.close()
		delete(browsers.byKey, key)
	}
	b, err := startBrowser(c)
	if err != nil {
		return nil, err
	}
	if browsers.byKey == nil {
		browsers.byKey = map[string]*running{}
	}
	browsers.byKey[key] = b
	return b.ctx, nil
}

// startBrowser runs Chromium with c's options, outliving any one test's
// context.
func startBrowser(c config) (*running, error) {
	bin, err := Path()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "browser-profile-")
	if err != nil {
		return nil, fmt.Errorf("make browser profile: %w", err)
	}
	allocOpts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(dir),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.WindowSize(1280, 900),
	)
	if c.fakeVideo != "" {
		abs, err := filepath.Abs(c.fakeVideo)
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("fake video: %w", err)
		}
		allocOpts = append(allocOpts, chromedp.Flag("use-file-for-fake-video-capture", abs))
	}
	for _, f := range c.flags {
		allocOpts = append(allocOpts, chromedp.Flag(f[0].(string), f[1]))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	closeBrowser := func() {
		cancelBrowser()
		cancelAlloc() // waits for the browser to exit
		os.RemoveAll(dir)
	}
	// The first action starts the browser.
	if err := chromedp.Do(browserCtx); err != nil {
		closeBrowser()
		return nil, fmt.Errorf("start chromium (%s): %w", bin, err)
	}
	return &running{ctx: browserCtx, close: closeBrowser}, nil
}

// RunTests runs a test binary's tests (m.Run), then closes the browsers
// that Start shared and removes their profiles, and returns the tests'
// exit code. Call it from TestMain: os.Exit(browser.RunTests(m)). A
// binary that does not still gets its browser killed when it exits (see
// chromedp's Pdeathsig), but leaves its profile directory behind.
func RunTests(m interface{ Run() int }) int {
	code := m.Run()
	CloseAll()
	return code
}

// CloseAll closes every browser Start shared; a later Start starts a new
// one.
func CloseAll() {
	browsers.Lock()
	defer browsers.Unlock()
	for key, b := range browsers.byKey {
		b.close()
		delete(browsers.byKey, key)
	}
}

// Phone sizes the page as a phone held upright: 390×844 CSS pixels (an
// iPhone 12 to 15), device pixel ratio 2, mobile layout and touch events.
func Phone() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(390, 844,
		chromedp.EmulateScale(2),
		chromedp.EmulateMobile,
		chromedp.EmulateTouch,
		chromedp.EmulateOrientation(emulation.ScreenOrientationTypePortraitPrimary, 0),
	)
}

// Screenshot writes a PNG of the whole page, beyond the viewport, to path.
func Screenshot(ctx context.Context, path string) error {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return writeFile(path, png)
}

// ScreenshotViewport writes a PNG of what the viewport shows (the first
// screen, before any scrolling, when the page is at the top) to path,
// scaled by scale: 1 keeps CSS pixels (390 px wide for Phone) whatever the
// device pixel ratio, which keeps the file small.
func ScreenshotViewport(ctx context.Context, path string, scale float64) error {
	size, err := chromedp.Run(ctx, chromedp.Evaluate[struct{ W, H, X, Y, DPR float64 }](
		`({W: innerWidth, H: innerHeight, X: scrollX, Y: scrollY, DPR: devicePixelRatio})`))
	if err != nil {
		return fmt.Errorf("screenshot: read the viewport: %w", err)
	}
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng,
		// The clip's scale multiplies the device pixel ratio.
		Clip: &page.Viewport{X: size.X, Y: size.Y, Width: size.W, Height: size.H, Scale: scale / max(size.DPR, 1)},
	})
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return writeFile(path, res.Data)
}

func writeFile(path string, b []byte) error {
	if len(b) == 0 {
		return errors.New("screenshot: the browser returned no image")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return os.WriteFile(path, b, 0o644)
}
