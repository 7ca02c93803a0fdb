package capturepage

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// TestCountingStepShowsTheRoomsLikelyItemsFirst: in the Kitchen the
// checklist shows the kitchen's groups; the rest wait behind "Show all
// items", and the page is shorter than with every group shown.
func TestCountingStepShowsTheRoomsLikelyItemsFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeSurvey(t, flowPage())
	ctx := startPhone(t, f, "/v1-capture/tok", "")
	step := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
	if err := browser.Fill(step(10*time.Second), browser.RoleCombobox, "Room", "Kitchen"); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.Find(ctx, browser.RoleSpinbutton, "Stove"); err != nil {
		t.Errorf("the Kitchen's stove is not offered: %v", err)
	}
	if _, err := browser.Find(ctx, browser.RoleSpinbutton, "Bed, queen"); err == nil {
		t.Error("a bed is offered in the Kitchen before Show all items")
	}
	height := func() int {
		h, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollHeight`))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	short := height()
	htmltest.Shot(t, ctx, "counting-kitchen")
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Show all items (6 more groups)"); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.Find(ctx, browser.RoleSpinbutton, "Bed, queen"); err == nil {
		t.Error("a bed is offered while its group is closed")
	}
	if _, err := browser.Find(ctx, browser.RoleButton, "Show all items (6 more groups)"); err == nil {
		t.Error("Show all items is still offered after showing them")
	}
	all := height()
	t.Logf("page height at the counting step (390 px wide): %d px with the Kitchen's groups, %d px with all", short, all)
	if short >= all {
		t.Errorf("page %d px tall with the Kitchen's groups, %d px with all; want shorter", short, all)
	}
}
