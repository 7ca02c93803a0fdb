package capturepage

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// maxCountingHeight bounds the counting step of one room, before "Show more
// items", on a 390 px wide phone: about 1.5 screens of 844 px.
const maxCountingHeight = 1300

// TestCountingStepFitsAPhone: in every room the counting step shows the
// room's likely items alone and fits about 1.5 phone screens; "Show more
// items" reaches every other item with the counts kept, and an item
// counted there stays in the room's list after leaving the room.
func TestCountingStepFitsAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	p := flowPage()
	f := newFakeSurvey(t, p)
	ctx := startPhone(t, f, "/v1-capture/tok", "")
	step := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
	eval := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	const stepHeight = `Math.round(document.getElementById("count-title").closest("section").getBoundingClientRect().height)`
	const pageHeight = `document.documentElement.scrollHeight`
	for _, room := range survey.Rooms {
		if err := browser.Fill(step(5*time.Second), browser.RoleCombobox, "Room", room); err != nil {
			t.Fatal(err)
		}
		if h := eval(stepHeight); h > maxCountingHeight {
			t.Errorf("%s: the counting step is %d px tall at 390 px wide; want at most %d", room, h, maxCountingHeight)
		}
	}

	if err := browser.Fill(step(5*time.Second), browser.RoleCombobox, "Room", "Kitchen"); err != nil {
		t.Fatal(err)
	}
	t.Logf("Kitchen at 390x844: counting step %d px, page %d px", eval(stepHeight), eval(pageHeight))
	htmltest.Shot(t, ctx, "counting-kitchen")
	if err := browser.Fill(step(5*time.Second), browser.RoleSpinbutton, "Stove", "2"); err != nil {
		t.Errorf("the Kitchen's stove is not offered: %v", err)
	}
	if _, err := browser.Find(ctx, browser.RoleSpinbutton, "Bed, queen"); err == nil {
		t.Error("a bed is offered in the Kitchen before Show more items")
	}
	more := "Show more items (" + strconv.Itoa(len(p.Items)-len(p.RoomItems["Kitchen"])) + " more)"
	if err := browser.Click(step(5*time.Second), browser.RoleButton, more); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.Find(ctx, browser.RoleButton, more); err == nil {
		t.Error("Show more items is still offered after showing them")
	}
	// Every item can be reached: open each group and count the counters
	// a person can see and use.
	usable := eval(`(function () {
		document.querySelectorAll("#checklist details").forEach(function (d) { d.open = true; });
		return Array.prototype.filter.call(document.querySelectorAll("input.count"), function (i) {
			return i.getClientRects().length > 0 && !i.disabled;
		}).length;
	})()`)
	if usable != len(p.Items) {
		t.Errorf("%d counters can be used after Show more items; want all %d", usable, len(p.Items))
	}
	if v, err := browser.Value(ctx, browser.RoleSpinbutton, "Stove"); err != nil || v != "2" {
		t.Errorf("stoves = %q, %v after Show more items; want 2 kept", v, err)
	}
	if err := browser.Fill(step(5*time.Second), browser.RoleSpinbutton, "Bed, queen", "1"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "counting-kitchen-all")

	// Back in the Kitchen, the bed counted there is in its list.
	for _, room := range []string{"Bedroom", "Kitchen"} {
		if err := browser.Fill(step(5*time.Second), browser.RoleCombobox, "Room", room); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"Stove": "2", "Bed, queen": "1"} {
		if v, err := browser.Value(ctx, browser.RoleSpinbutton, name); err != nil || v != want {
			t.Errorf("back in the Kitchen, %s = %q, %v; want %s shown without Show more items", name, v, err, want)
		}
	}
	if _, err := browser.Find(ctx, browser.RoleButton, fmt.Sprintf("Show more items (%d more)", len(p.Items)-len(p.RoomItems["Kitchen"])-1)); err != nil {
		t.Errorf("back in the Kitchen: %v; want the other items behind Show more items", err)
	}
}
