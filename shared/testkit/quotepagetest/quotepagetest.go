// Package quotepagetest drives the quote page (shared/app/quotes/quotepage) in
// Chromium for tests: the page's own tests, against a stand-in service,
// and the end-to-end tests of shared/app/deposits, against the real one.
package quotepagetest

import (
	"context"
	"math"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// pressMouse says the left button is held, as a mouse move while drawing
// reports it.
func pressMouse(p *input.DispatchMouseEventParams) { p.Buttons = 1 }

// DrawSignature draws on the page's signature pad with the mouse, as a
// person would: press, move along a wave in many steps, release; then a
// second stroke under it. It fails the test when the pad is too small to
// sign on or the strokes left no ink.
func DrawSignature(t testing.TB, ctx context.Context) {
	t.Helper()
	box, err := chromedp.Run(ctx, chromedp.Evaluate[struct{ X, Y, W, H float64 }](`(() => {
		const c = document.getElementById("signature");
		c.scrollIntoView({block: "center"});
		const r = c.getBoundingClientRect();
		return {X: r.left, Y: r.top, W: r.width, H: r.height};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if box.W < 100 || box.H < 100 {
		t.Fatalf("the signature pad is %.0f × %.0f CSS px; want room to sign", box.W, box.H)
	}
	var wave [][2]float64
	for i := 0; i <= 40; i++ {
		wave = append(wave, [2]float64{box.X + box.W*(0.1+0.7*float64(i)/40), box.Y + box.H*(0.5+0.25*math.Sin(float64(i)/3))})
	}
	line := [][2]float64{{box.X + box.W*0.15, box.Y + box.H*0.8}, {box.X + box.W*0.5, box.Y + box.H*0.78}, {box.X + box.W*0.85, box.Y + box.H*0.8}}
	for _, s := range [][][2]float64{wave, line} {
		actions := []chromedp.Action[chromedp.Void]{
			chromedp.MouseEvent(chromedp.MouseMoved, s[0][0], s[0][1]),
			chromedp.MouseEvent(chromedp.MousePressed, s[0][0], s[0][1], chromedp.ButtonLeft, chromedp.ClickCount(1)),
		}
		for _, p := range s[1:] {
			actions = append(actions, chromedp.MouseEvent(chromedp.MouseMoved, p[0], p[1], chromedp.ButtonLeft, pressMouse))
		}
		end := s[len(s)-1]
		actions = append(actions, chromedp.MouseEvent(chromedp.MouseReleased, end[0], end[1], chromedp.ButtonLeft, chromedp.ClickCount(1)))
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("draw: %v", err)
		}
	}
	if ink, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("pad").classList.contains("has-ink")`)); err != nil || !ink {
		t.Fatalf("the mouse left no ink on the pad (%v)", err)
	}
}
