package capturepage

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// TestReopenedLinkSaysWhatWasSent reopens the link of a survey that holds
// a checked clip of the Kitchen, one of the Bathroom that could not be
// used, and a count: the banner at the top of the page names them and
// says which room to film again.
func TestReopenedLinkSaysWhatWasSent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	p := flowPage()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	p.Clips = []Clip{
		{ID: "9b2f0000-0000-4000-8000-000000000001", Room: "Kitchen", Verdict: "checked", At: at},
		{ID: "9b2f0000-0000-4000-8000-000000000002", Room: "Bathroom", Verdict: "unusable", Reason: "This is not a video we can play.", At: at.Add(time.Minute)},
	}
	p.ClipsUsed = 1
	p.Checklist = map[string]map[string]int{"Kitchen": {"stove": 1}}
	f := newFakeSurvey(t, p)
	ctx := startPhone(t, f, "/v1-capture/tok", "")
	want := "Welcome back. You already sent 2 clips (Kitchen, Bathroom) and counted 1 kind of item. " +
		"1 clip could not be used: please film the Bathroom again. Carry on where you left off; your clips are listed under “Your clips”."
	if err := browser.WaitText(htmltest.Within(t, ctx, 10*time.Second), want); err != nil {
		t.Fatal(err)
	}
	// It is the first thing in the page's content, above the introduction.
	above, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () {
		var w = document.getElementById("welcome"), h = document.getElementById("intro-title");
		return !w.hidden && w.getBoundingClientRect().bottom <= h.getBoundingClientRect().top;
	})()`))
	if err != nil || !above {
		t.Errorf("banner above the title = %v, %v; want it at the top", above, err)
	}
	htmltest.Shot(t, ctx, "welcome-back")
}

// TestNextRoomClearsTheClipMessage: "Video added" is about the room just
// filmed; "Next room" starts the next one without it.
func TestNextRoomClearsTheClipMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := newFakeSurvey(t, flowPage())
	ctx := startPhone(t, f, "/v1-capture/tok", "")
	clip := filepath.Join(t.TempDir(), "living.webm")
	if err := os.WriteFile(clip, make([]byte, 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := browser.SetFiles(htmltest.Within(t, ctx, 10*time.Second), "Upload a video", clip); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(htmltest.Within(t, ctx, 5*time.Second), "Video added."); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(htmltest.Within(t, ctx, 5*time.Second), browser.RoleButton, "Next room: Dining room"); err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("camera-message").textContent`))
	if err != nil || msg != "" {
		t.Errorf("after Next room the message box says %q, %v; want it empty", msg, err)
	}
	if v, err := browser.Value(ctx, browser.RoleCombobox, "Room"); err != nil || v != "Dining room" {
		t.Errorf("room %q, %v; want Dining room", v, err)
	}
	htmltest.Shot(t, ctx, "next-room")
	waitUploaded(t, htmltest.Within(t, ctx, 20*time.Second), "Upload of Living room clip 1")
}
