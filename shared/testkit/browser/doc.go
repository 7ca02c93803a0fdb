// Package browser drives the machine's Chromium from Go tests, through
// github.com/chromedp/chromedp: headless, with a fake camera and microphone
// that need no permission prompt, in a fresh profile that is removed
// afterwards.
//
// It never downloads a browser: Start runs the "chromium-headless-shell"
// that exec.LookPath finds (Debian's package, which scripts/bootstrap.sh
// installs; Chromium's headless build, much cheaper to run than the full
// browser, see Path), else "chromium", and Require fails a test with that
// hint when there is neither.
//
// Besides starting the browser it offers what a test of a page people use
// needs: a phone viewport (Phone), screenshots, and finding, clicking and
// filling controls by their accessible role and name (Click, Fill,
// WaitFor), the way a person or a screen reader finds them, rather than by
// CSS selectors that a redesign breaks; and an accessibility check with
// axe-core (CheckAccessibility).
package browser
