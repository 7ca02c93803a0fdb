package capturepage

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// TestRejectedClipVerdictShowsLive sends a clip of the Living room and
// one of the Bedroom that the server finds unusable: without a reload, the
// Bedroom's row says why and what to do, and names the room and the time,
// the Living room's says it was checked, and the rejected clip gives its
// place back (1 of 20 clips used).
func TestRejectedClipVerdictShowsLive(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel()
	f := newFakeSurvey(t, flowPage())
	f.unusableRoom = "Bedroom"
	ctx, _, step := phoneSteps(t, f)
	dir := t.TempDir()
	living, bedroom := filepath.Join(dir, "living.webm"), filepath.Join(dir, "bedroom.webm")
	os.WriteFile(living, make([]byte, 3000), 0o644)
	os.WriteFile(bedroom, make([]byte, 3000), 0o644)

	pick(t, step, living, "Upload of Living room clip 1")
	if err := browser.Fill(step(5*time.Second), browser.RoleCombobox, "Room", "Bedroom"); err != nil {
		t.Fatal(err)
	}
	pick(t, step, bedroom, "Upload of Bedroom clip 1")
	want := "Could not be used. This is not a video we can play. Please film the Bedroom again."
	if err := browser.WaitText(step(20*time.Second), want); err != nil {
		text, _ := browser.Text(ctx)
		t.Fatalf("%v; the page shows:\n%s", err, text)
	}
	if err := browser.WaitText(step(10*time.Second), "Checked: we can use this clip."); err != nil {
		t.Error(err)
	}
	htmltest.Shot(t, ctx, "verdict-rejected-live")
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#clips li")).map(function (li) { return li.innerText; })`))
	if err != nil || len(rows) != 2 {
		t.Fatalf("clip rows %q, %v; want 2", rows, err)
	}
	named := regexp.MustCompile(`(?s)^Bedroom, clip 1.*\d{1,2}:\d\d (AM|PM) [A-Z]{2,5}.*` + regexp.QuoteMeta(want))
	if !named.MatchString(rows[1]) {
		t.Errorf("the rejected clip's row %q; want its room, its time with the zone, and %q", rows[1], want)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#clips li.is-failed").length`)); err != nil || n != 1 {
		t.Errorf("%d rows marked failed (%v); want the Bedroom's alone", n, err)
	}
	if err := browser.WaitText(step(10*time.Second), "1 of 20 clips used"); err != nil {
		t.Errorf("the rejected clip still counts against the limit: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.polls == 0 {
		t.Error("the page never asked for the verdicts")
	}
}
