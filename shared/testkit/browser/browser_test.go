package browser

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const testPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<h1>Harness</h1>
<button id="b" type="button">Count</button> <output id="n">0</output>
<label for="name">Your name</label> <input id="name">
<label for="qty">Sofa, 3 seats</label> <input id="qty" type="number">
<label for="f">Upload a video</label> <input id="f" type="file">
<button type="button">Twice</button><button type="button">Twice</button>
<button type="button" hidden>Hidden</button>
<p id="log"></p>
<script>
let n = 0, changes = 0;
document.getElementById("b").addEventListener("click", () => { document.getElementById("n").textContent = String(++n); });
document.getElementById("qty").addEventListener("change", () => { changes++; });
document.getElementById("f").addEventListener("change", e => { document.getElementById("log").textContent = "chose " + e.target.files[0].name; });
</script></body></html>`

func start(t *testing.T, opts ...Option) context.Context {
	t.Helper()
	Require(t)
	ctx, cancel, err := Start(context.Background(), append(opts, Logf(t.Logf))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return ctx
}

func serve(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRoleHelpers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ctx := start(t)
	if err := chromedp.Do(ctx, Phone(), chromedp.Navigate(serve(t, testPage))); err != nil {
		t.Fatal(err)
	}
	step, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	vp, err := chromedp.Run(step, chromedp.Evaluate[[]float64](`[innerWidth, innerHeight, devicePixelRatio, navigator.maxTouchPoints > 0 ? 1 : 0]`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{390, 844, 2, 1}; !equal(vp, want) {
		t.Errorf("phone viewport [width height dpr touch] = %v; want %v", vp, want)
	}

	for range 2 {
		if err := Click(step, RoleButton, "Count"); err != nil {
			t.Fatal(err)
		}
	}
	if err := WaitText(step, "Count 2"); err != nil {
		t.Error(err)
	}
	if err := Fill(step, RoleTextbox, "Your name", "Ada"); err != nil {
		t.Fatal(err)
	}
	if err := Fill(step, RoleSpinbutton, "Sofa, 3 seats", "3"); err != nil {
		t.Fatal(err)
	}
	if v, err := Value(step, RoleSpinbutton, "Sofa, 3 seats"); err != nil || v != "3" {
		t.Errorf("Value = %q, %v; want 3", v, err)
	}
	if v, err := Value(step, RoleTextbox, "Your name"); err != nil || v != "Ada" {
		t.Errorf("Value = %q, %v; want Ada", v, err)
	}
	if n, err := chromedp.Run(step, chromedp.Evaluate[int](`changes`)); err != nil || n != 1 {
		t.Errorf("change events = %d, %v; want 1", n, err)
	}

	file := filepath.Join(t.TempDir(), "clip.webm")
	os.WriteFile(file, []byte("x"), 0o644)
	if err := SetFiles(step, "Upload a video", file); err != nil {
		t.Fatal(err)
	}
	if err := WaitText(step, "chose clip.webm"); err != nil {
		t.Error(err)
	}

	for _, name := range []string{"Twice", "Hidden", "Nothing"} {
		if _, err := Find(step, RoleButton, name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Find(%q) = %v; want ErrNotFound", name, err)
		}
	}
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	if _, err := WaitFor(short, RoleButton, "Hidden"); err == nil {
		t.Error("WaitFor found a hidden button")
	}
	if err := WaitText(short, "never shown"); err == nil {
		t.Error("WaitText found text the page does not show")
	}
}

func TestFakeCameraAndScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ctx := start(t)
	// getUserMedia needs a secure context: http://127.0.0.1 is one.
	if err := chromedp.Do(ctx, Phone(), chromedp.Navigate(serve(t, `<!doctype html><title>cam</title><p>camera</p>`))); err != nil {
		t.Fatal(err)
	}
	tracks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`navigator.mediaDevices.getUserMedia({video: {facingMode: "environment"}, audio: true}).then(s => s.getTracks().map(t => t.kind).sort())`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("getUserMedia with the fake camera: %v", err)
	}
	if !equal(tracks, []string{"audio", "video"}) {
		t.Errorf("tracks %v; want audio and video", tracks)
	}

	dir := t.TempDir()
	full, first := filepath.Join(dir, "full.png"), filepath.Join(dir, "first.png")
	if err := Screenshot(ctx, full); err != nil {
		t.Fatal(err)
	}
	if err := ScreenshotViewport(ctx, first, 1); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{full, first} {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s is not a PNG (%v)", p, err)
		}
	}
}

func TestMain(m *testing.M) { os.Exit(RunTests(m)) }

// TestStartSharesOneBrowserWithFreshContexts: two Starts of one process
// get tabs of one Chromium, each in a browser context of its own, so what
// one page stores the other does not see, and closing one tab leaves the
// other working.
func TestStartSharesOneBrowserWithFreshContexts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	url := serve(t, `<!doctype html><title>storage</title><p>storage</p>`)
	a, b := start(t), start(t)
	if ba, bb := chromedp.FromContext(a).Browser, chromedp.FromContext(b).Browser; ba == nil || ba != bb {
		t.Errorf("browsers %p and %p; want one shared browser", ba, bb)
	}
	if ca, cb := chromedp.FromContext(a).BrowserContextID, chromedp.FromContext(b).BrowserContextID; ca == "" || ca == cb {
		t.Errorf("browser contexts %q and %q; want two new ones", ca, cb)
	}
	if err := chromedp.Do(a, chromedp.Navigate(url), chromedp.Evaluate[chromedp.Void](`localStorage.setItem("k", "a"); document.cookie = "c=a"`)); err != nil {
		t.Fatal(err)
	}
	stored := func(ctx context.Context) string {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(localStorage.getItem("k") || "") + "|" + document.cookie`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := stored(b); got != "|" {
		t.Errorf("the second tab sees %q; want no storage and no cookie of the first", got)
	}
	// A hidden tab's timers are throttled; a page's clock must not be.
	for i, ctx := range []context.Context{a, b} {
		if v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.visibilityState`)); err != nil || v != "visible" {
			t.Errorf("tab %d: visibilityState %q, %v; want visible", i+1, v, err)
		}
	}
	if got := stored(a); got != "a|c=a" {
		t.Errorf("the first tab sees %q; want its own storage and cookie", got)
	}
	_, cancel, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if got := stored(b); got != "|" {
		t.Errorf("after another tab closed, the second tab sees %q; want it working, still empty", got)
	}
}

func TestStartFailsWithoutChromium(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, _, err := Start(context.Background()); err == nil || !bytes.Contains([]byte(err.Error()), []byte("scripts/bootstrap.sh")) {
		t.Errorf("Start without chromium = %v; want the install hint", err)
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Path prefers Chromium's headless shell and falls back to the full
// browser; the order is what makes the browser tests cheap (see binaries).
func TestPathPrefersTheHeadlessShell(t *testing.T) {
	exe := func(dir, name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	both, onlyFull := t.TempDir(), t.TempDir()
	shell := exe(both, "chromium-headless-shell")
	exe(both, "chromium")
	full := exe(onlyFull, "chromium")
	for _, c := range []struct{ path, want string }{{both, shell}, {onlyFull, full}} {
		t.Setenv("PATH", c.path)
		if got, err := Path(); err != nil || got != c.want {
			t.Errorf("PATH=%s: Path() = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
}
