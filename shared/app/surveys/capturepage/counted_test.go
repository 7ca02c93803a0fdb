package capturepage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// countHint returns the warning shown above "Finish survey" while nothing
// is counted ("" when it is not shown).
func countHint(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function () { var h = document.getElementById("count-hint"); return h && h.offsetParent ? h.innerText : ""; })()`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNothingCountedIsWarnedAndExplained: with a video sent and nothing
// counted, the recommended estimate may never come (an empty inventory has
// none). The page warns above "Finish survey" while nothing is counted,
// and the thank-you page says what happens then, instead of promising an
// estimate.
func TestNothingCountedIsWarnedAndExplained(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel()
	f := newFakeSurvey(t, flowPage())
	ctx, _, step := phoneSteps(t, f)
	video := filepath.Join(t.TempDir(), "living.webm")
	os.WriteFile(video, make([]byte, 3000), 0o644)
	pick(t, step, video, "Upload of Living room clip 1")

	if got := countHint(t, ctx); !strings.HasPrefix(got, "You have not counted any items yet.") || !strings.Contains(got, "Demo Movers will contact you about your estimate") {
		t.Errorf("warning while nothing is counted = %q; want it to say the estimate may not come", got)
	}
	if err := browser.Fill(step(5*time.Second), browser.RoleSpinbutton, "Sofa, 3 seats", "1"); err != nil {
		t.Fatal(err)
	}
	if got := countHint(t, ctx); got != "" {
		t.Errorf("warning with a sofa counted = %q; want none", got)
	}
	if err := browser.Fill(step(5*time.Second), browser.RoleSpinbutton, "Sofa, 3 seats", "0"); err != nil {
		t.Fatal(err)
	}
	if got := countHint(t, ctx); got == "" {
		t.Error("no warning once the count is back to 0")
	}
	htmltest.Shot(t, ctx, "nothing-counted")
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Finish survey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(20*time.Second), "you did not count any items"); err != nil {
		text, _ := browser.Text(ctx)
		t.Fatalf("%v; the thank-you page shows:\n%s", err, text)
	}
	if err := browser.WaitText(step(5*time.Second), "Demo Movers will contact you about it instead."); err != nil {
		t.Error(err)
	}
}
