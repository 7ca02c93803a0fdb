package surveys_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// TestE2ESurveyOnAPhone is the survey end to end, as the customer does it:
// a partner creates a lead and gets its capture link; in a real headless
// Chromium sized as a phone, the customer films two rooms with the fake
// camera, uploads a video made by ffmpeg, counts three large items and
// finishes. Every byte goes the real way: the page's JSON calls to the
// v1-capture routes, the clips straight to MinIO through presigned PUTs,
// MinIO's notifications to the clip processor. The partner then sees the
// survey inventory_ready with the estimate the three items price to, three
// playable clips, and listLeads with updated_since returns the lead after
// each state change.
//
// The page is driven by what a person sees: controls are found by their
// accessible role and name, never by CSS selectors. A phone screenshot
// after the uploads is kept (set SCREENSHOT_DIR to look at it).
func TestE2ESurveyOnAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel() // mostly waiting (recording, uploads, detection); its own table, bucket, tab or sidecar
	browser.Require(t)
	clipFile := makeClip(t)

	// Everything, browser included, ends within this bound.
	ctx, cancelAll := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancelAll()

	e := newEnv(t)
	leadID := e.newLead(t, e.key)

	// 1. The partner asks for the capture link: the survey is invited.
	since := rfc3339(time.Now())
	time.Sleep(2 * time.Millisecond)
	link := e.link(t, leadID)
	surveyID := link["survey_id"].(string)
	captureURL := link["capture_url"].(string)
	if st := surveyStatus(e.getLead(t, leadID)); st != "invited" {
		t.Fatalf("after getSurveyLink: survey %q; want invited", st)
	}
	if !contains(e.listSince(t, since), leadID) {
		t.Errorf("listLeads updated_since=%s misses the lead after the link (invited)", since)
	}

	// 2. The customer opens the link on a phone.
	log := &pageLog{t: t}
	bctx, cancelBrowser, err := browser.Start(ctx, browser.Logf(log.logf))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancelBrowser(); log.check() }()
	step := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(bctx, d)
		t.Cleanup(cancel)
		return c
	}
	if err := chromedp.Do(step(30*time.Second), browser.Phone(), chromedp.Navigate(captureURL)); err != nil {
		t.Fatalf("open %s: %v", captureURL, err)
	}
	if _, err := browser.WaitFor(step(15*time.Second), browser.RoleButton, "Start recording"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(5*time.Second), "Show us your home"); err != nil {
		t.Error(err)
	}

	// Film the living room: the first clip moves the survey to recording.
	pickRoom(t, step(5*time.Second), "Living room")
	since = rfc3339(time.Now())
	time.Sleep(2 * time.Millisecond)
	filmClip(t, step(30*time.Second))
	waitUploaded(t, step(45*time.Second), "Upload of Living room clip 1")
	if st := surveyStatus(e.getLead(t, leadID)); st != "recording" {
		t.Errorf("after the first upload: survey %q; want recording", st)
	}
	if !contains(e.listSince(t, since), leadID) {
		t.Errorf("listLeads updated_since=%s misses the lead after the first upload (recording)", since)
	}
	count(t, step(10*time.Second), "Sofa, 3 seats")

	// Film the bedroom, then send a video the phone already holds.
	pickRoom(t, step(5*time.Second), "Bedroom")
	filmClip(t, step(30*time.Second))
	waitUploaded(t, step(45*time.Second), "Upload of Bedroom clip 1")
	if err := browser.SetFiles(step(10*time.Second), "Upload a video", clipFile); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(10*time.Second), "Video added."); err != nil {
		t.Fatal(err)
	}
	waitUploaded(t, step(45*time.Second), "Upload of Bedroom clip 2")
	if err := browser.WaitText(step(5*time.Second), "3 of 20 clips used"); err != nil {
		t.Error(err)
	}
	count(t, step(10*time.Second), "Bed, queen")
	count(t, step(10*time.Second), "Dresser")
	shot(t, bctx, "after-recording")

	// 3. Finish: the page saves the counts, then finishes.
	since = rfc3339(time.Now())
	time.Sleep(2 * time.Millisecond)
	if err := browser.Click(step(10*time.Second), browser.RoleButton, "Finish survey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(30*time.Second), "Thanks! Demo Movers will review your video and send your estimate."); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(5*time.Second), "Thank you!"); err != nil {
		t.Error(err)
	}
	shot(t, bctx, "done")

	// 4. The partner sees the survey processed, with the estimate the three
	// counted items price to.
	l, seen := waitReady(t, ctx, e, leadID, 60*time.Second)
	t.Logf("survey statuses seen after the finish: %v", seen)
	if !contains(e.listSince(t, since), leadID) {
		t.Errorf("listLeads updated_since=%s misses the lead after the finish (processing/inventory_ready)", since)
	}
	checklist := inventory.Checklist{Rooms: []inventory.ChecklistRoom{
		{Name: "Living room", Items: []inventory.ChecklistItem{{Key: "sofa_3_seat", Count: 1}}},
		{Name: "Bedroom", Items: []inventory.ChecklistItem{{Key: "bed_queen", Count: 1}, {Key: "dresser", Count: 1}}},
	}}
	inv, err := inventory.ChecklistBuilder{}.Build(context.Background(), inventory.Input{Checklist: checklist})
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := inventory.Recommend(estimate.DefaultRateCard("usd"), inv, "1 Main St, New York, NY 10001", "9 Oak Ave, Boston, MA 02108")
	if !ok {
		t.Fatal("the three items cannot be priced")
	}
	got, _ := l["recommended_estimate"].(map[string]any)
	if got == nil || got["min"] != float64(rec.Estimate.Min) || got["max"] != float64(rec.Estimate.Max) || got["currency"] != rec.Estimate.Currency {
		t.Errorf("recommended_estimate %v; want %+v", l["recommended_estimate"], rec.Estimate)
	}

	tenant := auth.Tenant{PartnerID: e.partner, Mode: auth.Test}
	stored, err := e.Store.GetSurvey(context.Background(), tenant, surveyID)
	if err != nil {
		t.Fatal(err)
	}
	if want := roomItems(inv); stored.Inventory == nil || roomItems(*stored.Inventory) != want {
		t.Errorf("stored inventory %+v; want %s", stored.Inventory, want)
	}
	clips, err := e.Store.ListClips(context.Background(), tenant, surveyID)
	if err != nil {
		t.Fatal(err)
	}
	var rooms []string
	for _, c := range clips {
		rooms = append(rooms, c.Room)
		if c.Status != survey.ClipPlayable || c.Size != c.AnnouncedSize || c.Duration <= 0 {
			t.Errorf("clip %s (%s, %s): status %s, %d of %d bytes, %v long, codec %q; want playable and whole (%s)",
				c.ID, c.Room, c.ContentType, c.Status, c.Size, c.AnnouncedSize, c.Duration, c.Codec, c.RejectReason)
		}
		t.Logf("clip %s: %s %s %s %dx%d %v %d bytes", c.Room, c.Status, c.ContentType, c.Codec, c.Width, c.Height, c.Duration.Round(10*time.Millisecond), c.Size)
	}
	sort.Strings(rooms)
	if strings.Join(rooms, ",") != "Bedroom,Bedroom,Living room" {
		t.Errorf("stored clips are of rooms %v; want Living room once, Bedroom twice", rooms)
	}
	if stored.ClipCount != 3 {
		t.Errorf("survey counts %d clips; want 3", stored.ClipCount)
	}
}

// makeClip makes a 2-second H.264 MP4 with ffmpeg, as a phone's camera
// app would have filmed it.
func makeClip(t *testing.T) string {
	t.Helper()
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("ffmpeg not found on PATH: run scripts/bootstrap.sh (installs ffmpeg)")
	}
	out := filepath.Join(t.TempDir(), "bedroom.mp4")
	cmd := exec.Command(ff, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=15",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	return out
}

// pickRoom chooses the room in the page's room list.
func pickRoom(t *testing.T, ctx context.Context, room string) {
	t.Helper()
	if err := browser.Fill(ctx, browser.RoleCombobox, "Room", room); err != nil {
		t.Fatal(err)
	}
	if v, err := browser.Value(ctx, browser.RoleCombobox, "Room"); err != nil || v != room {
		t.Fatalf("room = %q, %v; want %q", v, err, room)
	}
}

// filmClip films a clip of a bit over two seconds with the fake camera.
func filmClip(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := browser.Click(ctx, browser.RoleButton, "Start recording"); err != nil {
		t.Fatal(err)
	}
	// The page's own timer (mm:ss) says when two seconds are filmed.
	if err := browser.WaitText(ctx, "00:02"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(ctx, browser.RoleButton, "Stop recording"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(ctx, "Clip saved."); err != nil {
		t.Fatal(err)
	}
}

// count adds one of the item with the "One more" button next to its name,
// and checks its count went from 0 to 1.
func count(t *testing.T, ctx context.Context, item string) {
	t.Helper()
	if err := browser.Click(ctx, browser.RoleButton, "One more: "+item); err != nil {
		t.Fatal(err)
	}
	for {
		v, err := browser.Value(ctx, browser.RoleSpinbutton, item)
		if err == nil && v == "1" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("count of %q = %q, %v; want 1", item, v, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitUploaded waits until the named upload progress bar is full and the
// page says the clip was sent.
func waitUploaded(t *testing.T, ctx context.Context, progress string) {
	t.Helper()
	for {
		v, err := browser.Value(ctx, browser.RoleProgress, progress)
		if err == nil && v == "100" {
			return
		}
		select {
		case <-ctx.Done():
			text, _ := browser.Text(context.WithoutCancel(ctx))
			t.Fatalf("%s not at 100%% (value %q, %v); the page shows:\n%s", progress, v, err, text)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitReady polls getLead until the survey is inventory_ready, and returns
// the lead and the statuses seen on the way.
func waitReady(t *testing.T, ctx context.Context, e *env, leadID string, d time.Duration) (map[string]any, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var seen []string
	for {
		l := e.getLead(t, leadID)
		st := surveyStatus(l)
		if len(seen) == 0 || seen[len(seen)-1] != st {
			seen = append(seen, st)
		}
		switch st {
		case "inventory_ready":
			return l, seen
		case "processing":
		default:
			t.Fatalf("after the finish: survey %q (seen %v): %v; logs:\n%s", st, seen, l["survey"], e.Logs)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("survey still %q after %v (seen %v); logs:\n%s", st, d, seen, e.Logs)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// roomItems is an inventory as "room: key×count, …; …", sorted.
func roomItems(inv inventory.Inventory) string {
	var rooms []string
	for _, r := range inv.Rooms {
		var items []string
		for _, it := range r.Items {
			items = append(items, fmt.Sprintf("%s×%d", it.Key, it.Count))
		}
		sort.Strings(items)
		rooms = append(rooms, r.Name+": "+strings.Join(items, ", "))
	}
	sort.Strings(rooms)
	return strings.Join(rooms, "; ")
}

// shot saves a full-page screenshot into $SCREENSHOT_DIR, or a temporary
// directory, and logs where.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	p := filepath.Join(dir, name+".png")
	if err := browser.Screenshot(ctx, p); err != nil {
		t.Error(err)
		return
	}
	t.Logf("screenshot: %s", p)
}

// pageLog logs the browser's console, and fails the test on an uncaught
// exception or a refused request (a Content-Security-Policy violation, a
// CORS refusal by MinIO).
type pageLog struct {
	t   *testing.T
	mu  sync.Mutex
	bad []string
}

func (c *pageLog) logf(format string, args ...any) {
	line := strings.TrimSpace(fmt.Sprintf(format, args...))
	c.t.Log(line)
	if strings.Contains(line, "Content Security Policy") || strings.Contains(line, "browser exception") ||
		strings.Contains(line, "Refused to") || strings.Contains(line, "CORS") {
		c.mu.Lock()
		c.bad = append(c.bad, line)
		c.mu.Unlock()
	}
}

func (c *pageLog) check() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.bad {
		c.t.Errorf("browser console: %s", l)
	}
}
