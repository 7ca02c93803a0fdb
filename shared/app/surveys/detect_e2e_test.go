package surveys_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/local/detectlocal"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// TestE2EDetectedInventory is issue 11 end to end on the local stack: in
// a real headless Chromium sized as a phone, the customer films the living
// room for about seven seconds with a fake camera that shows a rendered
// living room (a couch, a tv), ticks nothing on the checklist and
// finishes. The page takes a still every two seconds and uploads them
// beside the clip; the clip processor runs the real CenterNet sidecar on
// each; the partner then sees the survey inventory_ready with the sofa and
// the tv found by the detector, each counted once however many frames show
// it, and an estimate priced from them.
//
// The frames the sidecar sees are the camera's, after Chromium's YUV
// conversion and the page's JPEG encoding (quality 0.8), not the committed
// JPEG, so the scores move: couch 0.46 and tv 0.62 here (0.50 and 0.54 on
// the committed picture; the threshold is 0.3). A still picture gives the
// same frame bytes at every slot and in every run, so both are reliable.
func TestE2EDetectedInventory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser and the detector sidecar")
	}
	t.Parallel() // mostly waiting (recording, uploads, detection); its own table, bucket, tab or sidecar
	browser.Require(t)
	camera := makeCamera(t, "living-room.jpg")
	sidecar := sharedSidecar(t)

	// Everything, browser included, ends within this bound.
	ctx, cancelAll := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancelAll()

	e := newDetectingEnv(t, sidecar.Client())
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID := link["survey_id"].(string)
	captureURL := link["capture_url"].(string)

	log := &pageLog{t: t}
	bctx, cancelBrowser, err := browser.Start(ctx, browser.Logf(log.logf), browser.FakeVideo(camera))
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

	// Film the living room for seven seconds: stills at about 1, 3, 5 (and
	// perhaps 7) seconds. Nothing is ticked: what the inventory holds, the
	// detector found.
	pickRoom(t, step(5*time.Second), "Living room")
	recordFor(t, step(40*time.Second), 7)
	waitUploaded(t, step(45*time.Second), "Upload of Living room clip 1")
	shot(t, bctx, "detected-after-recording")
	if err := browser.Click(step(10*time.Second), browser.RoleButton, "Finish survey"); err != nil {
		t.Fatal(err)
	}
	// The page waits up to 20 s for its frame uploads before it finishes.
	if err := browser.WaitText(step(45*time.Second), "Thanks! Demo Movers will review your video and send your estimate."); err != nil {
		t.Fatal(err)
	}

	// The survey settles once every frame is decided; the sidecar takes
	// 0.2-4 s a frame.
	l, seen := waitReady(t, ctx, e, leadID, 60*time.Second)
	t.Logf("survey statuses seen after the finish: %v", seen)

	clips, err := e.Store.ListClips(context.Background(), auth.Tenant{PartnerID: e.partner, Mode: auth.Test}, surveyID)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 1 || clips[0].Status != survey.ClipPlayable {
		t.Fatalf("clips %+v; want one, playable", clips)
	}
	frames := e.frames(t, surveyID)
	analysed := 0
	for _, k := range sortedKeys(frames) {
		f := frames[k]
		t.Logf("frame %s: %d ms, %dx%d, %d bytes, %s %s: %s", k, f.Offset.Milliseconds(), f.Width, f.Height, f.AnnouncedSize,
			f.Status, f.Analysis.Error, detectionSummary(f.Analysis.Detections))
		if f.ClipID != clips[0].ID || f.Status != survey.FrameValid || f.Analysis.Detector != detectlocal.Name || f.Analysis.Error != "" {
			t.Errorf("frame %s: clip %s, %s %q, detector %q, error %q; want of clip %s, valid, analysed by %s; the detector's own error is in the log:\n%s",
				k, f.ClipID, f.Status, f.RejectReason, f.Analysis.Detector, f.Analysis.Error, clips[0].ID, detectlocal.Name, detailLines(e.Logs.String()))
			continue
		}
		analysed++
	}
	if len(frames) < 2 || len(frames) > 4 {
		t.Errorf("%d frames stored for a 7-second clip; want 2 to 4 (one per 2 s); the browser's console is in the log above", len(frames))
	}

	inv := leadInventory(t, l)
	for _, key := range []string{"sofa_3_seat", "tv_medium"} {
		it := leadItem(inv, "Living room", key)
		if it == nil || it["source"] != string(inventory.FromDetector) || it["count"] != 1.0 {
			t.Errorf("Living room %s: %v; want source detected, count 1 (seen in %d frames, never summed); inventory: %v", key, it, analysed, inv["rooms"])
		}
	}
	rep, _ := inv["detector"].(map[string]any)
	if rep == nil || rep["name"] != detectlocal.Name || rep["status"] != inventory.DetectorOK || rep["frames_analyzed"] != float64(analysed) {
		t.Errorf("detector report %v; want %s, ok, %d frames analysed", inv["detector"], detectlocal.Name, analysed)
	}
	if l["recommended_estimate"] == nil {
		t.Errorf("no recommended_estimate for the detected items; inventory: %v", inv["rooms"])
	}
}

// TestDeadSidecarMidSurvey: the detector sidecar dies (SIGKILL) between
// two clips. The frames of the first clip keep their detections; the
// frames of the second are still stored, valid, with the detector's error;
// the survey settles inventory_ready from the checklist plus the first
// clip's detections, and the report says the detector failed on half.
func TestDeadSidecarMidSurvey(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the detector sidecar (Node.js, CenterNet)")
	}
	t.Parallel() // mostly waiting (recording, uploads, detection); its own table, bucket, tab or sidecar
	// A sidecar of its own: this test kills it.
	startCtx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := detectlocal.Start(startCtx)
	cancel()
	if err != nil {
		t.Fatalf("%v (scripts/bootstrap.sh installs the detector)", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })

	e := newDetectingEnv(t, srv.Client())
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))
	living, kitchen, bedroom := testFrame(t, "living-room.jpg"), testFrame(t, "kitchen.jpg"), testFrame(t, "bedroom.jpg")

	// The open-plan living room: one still of each end, analysed.
	clip1 := e.upload(t, capture, "Living room", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
	putFrames(t, e, capture, clip1, living, kitchen)
	before := e.waitFrames(t, surveyID, 2)
	for k, f := range before {
		if f.Status != survey.FrameValid || f.Analysis.Error != "" || f.Analysis.Detector != detectlocal.Name {
			t.Fatalf("frame %s before the kill: %s %q, analysis %+v; want valid, analysed", k, f.Status, f.RejectReason, f.Analysis)
		}
		t.Logf("frame %s before the kill: %s", k, detectionSummary(f.Analysis.Detections))
	}

	// Stop sends SIGKILL to the sidecar's process group: a crash, as the
	// client sees it. Its port then refuses connections at once.
	if err := srv.Stop(); err != nil {
		t.Fatalf("the sidecar had died by itself before the kill: %v", err)
	}
	killed := time.Now()
	clip2 := e.upload(t, capture, "Bedroom", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
	putFrames(t, e, capture, clip2, bedroom, bedroom)
	all := e.waitFrames(t, surveyID, 4)
	t.Logf("the frames after the kill were decided %v after it", time.Since(killed).Round(time.Millisecond))
	for _, slot := range []int{0, 1} {
		k := fmt.Sprintf("%s/%d", clip2, slot)
		f, ok := all[k]
		if !ok || f.Status != survey.FrameValid || f.Analysis.Error != inventory.ReasonUnavailable || len(f.Analysis.Detections) != 0 {
			t.Errorf("frame %s after the kill: %+v (stored %v); want kept (valid) with the reason %q", k, f, ok, inventory.ReasonUnavailable)
			continue
		}
		t.Logf("frame %s after the kill: %s", k, f.Analysis.Error)
	}

	want(t, e.Do(t, "PUT", capture+"/checklist", "", `{"rooms":[{"name":"Bedroom","items":[{"key":"bed_queen","count":1}]}]}`), 200, "")
	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	l := e.waitSurvey(t, leadID, "inventory_ready")

	for _, c := range []string{clip1, clip2} {
		if st := e.clipStatus(t, surveyID, c); st != string(survey.ClipPlayable) {
			t.Errorf("clip %s: %s; want playable", c, st)
		}
	}
	inv := leadInventory(t, l)
	items := []struct {
		room, key string
		source    inventory.Source
	}{
		{"Bedroom", "bed_queen", inventory.FromChecklist},
		{"Living room", "sofa_3_seat", inventory.FromDetector},
		{"Living room", "tv_medium", inventory.FromDetector},
		{"Living room", "refrigerator", inventory.FromDetector},
	}
	for _, w := range items {
		if it := leadItem(inv, w.room, w.key); it == nil || it["source"] != string(w.source) || it["count"] != 1.0 {
			t.Errorf("%s %s: %v; want source %s, count 1; inventory: %v", w.room, w.key, it, w.source, inv["rooms"])
		}
	}
	if it := leadItem(inv, "Bedroom", "bed_unknown"); it != nil {
		t.Errorf("Bedroom has a detected bed %v; the bedroom's frames reached a dead sidecar", it)
	}
	rep, _ := inv["detector"].(map[string]any)
	if rep == nil || rep["status"] != inventory.DetectorPartial ||
		rep["frames_analyzed"] != 2.0 || rep["frames_failed"] != 2.0 || rep["error"] != inventory.ReasonUnavailable {
		t.Errorf("detector report %v; want partial, 2 analysed, 2 failed, %q", inv["detector"], inventory.ReasonUnavailable)
	}
	// The refused connection is for the operator: in the log only.
	if !deadSidecar(detailLines(e.Logs.String())) {
		t.Errorf("the log does not hold the dead sidecar's error:\n%s", e.Logs)
	}
	if l["recommended_estimate"] == nil {
		t.Errorf("no recommended_estimate; inventory: %v", inv["rooms"])
	}
}

// sharedSidecar returns the test binary's detector sidecar (the one at
// $DETECTOR_URL when set). It fails, never skips, when the sidecar cannot
// start: make test installs Node.js and the model (scripts/bootstrap.sh).
// The sidecar is never stopped here: apitest.MainS3 exits the binary, and
// the sidecar dies with it (childproc's parent-death signal).
func sharedSidecar(t *testing.T) *detectlocal.Server {
	t.Helper()
	srv, _, err := detectlocal.ForTests()
	if err != nil {
		t.Fatalf("%v (scripts/bootstrap.sh installs Node.js and the detector)", err)
	}
	return srv
}

// testFrame reads one of shared/local/detectlocal's test pictures: rooms
// rendered by this repository from its committed POV-Ray sources and
// licensed with it (shared/local/detectlocal/testdata/README.md).
func testFrame(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "local", "detectlocal", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// makeCamera makes the fake camera's film with ffmpeg: three seconds of a
// still picture at 10 fps, 640x480 as rendered, yuv420p, as Y4M (which
// Chromium's --use-file-for-fake-video-capture reads, and loops). The
// picture is one of shared/local/detectlocal's test rooms (see testFrame): made
// for this repository and licensed with it.
func makeCamera(t *testing.T, picture string) string {
	t.Helper()
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("ffmpeg not found on PATH: run scripts/bootstrap.sh (installs ffmpeg)")
	}
	in := filepath.Join("..", "..", "local", "detectlocal", "testdata", picture)
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(picture, filepath.Ext(picture))+".y4m")
	cmd := exec.Command(ff, "-hide_banner", "-loglevel", "error", "-loop", "1", "-framerate", "10", "-i", in,
		"-t", "3", "-vf", "scale=640:480", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	return out
}

// recordFor films a clip of a bit over secs seconds with the fake camera.
func recordFor(t *testing.T, ctx context.Context, secs int) {
	t.Helper()
	if err := browser.Click(ctx, browser.RoleButton, "Start recording"); err != nil {
		t.Fatal(err)
	}
	// The page's own timer (mm:ss) says when secs seconds are filmed.
	if err := browser.WaitText(ctx, fmt.Sprintf("00:%02d", secs)); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(ctx, browser.RoleButton, "Stop recording"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(ctx, "Clip saved."); err != nil {
		t.Fatal(err)
	}
}

// putFrames announces jpgs as the frames of clip, one per 2-second slot,
// with their exact sizes and dimensions, and uploads each.
func putFrames(t *testing.T, e *env, capture, clip string, jpgs ...[]byte) {
	t.Helper()
	sent := make([]sentFrame, len(jpgs))
	for i, jpg := range jpgs {
		sent[i] = jpegFrame(int64(i)*survey.FrameInterval.Milliseconds()+500, jpg)
	}
	r := want(t, e.announceFrames(t, capture, clip, sent...), 200, "")
	fs := r["frames"].([]any)
	if len(fs) != len(jpgs) {
		t.Fatalf("frames answer %v; want %d frames", r, len(jpgs))
	}
	for i, jpg := range jpgs {
		if st := put(t, fs[i].(map[string]any)["upload"].(map[string]any), jpg); st != 200 {
			t.Fatalf("frame %d of clip %s: S3 answered %d", i, clip, st)
		}
	}
}

// deadSidecar reports whether msg is the error of a detector whose process
// is gone: its port refuses connections, or (a kept-alive connection) the
// connection was reset or closed under the request.
func deadSidecar(msg string) bool {
	for _, s := range []string{"connection refused", "connection reset", "EOF"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// leadInventory returns getLead's survey.inventory, failing when it is
// null.
func leadInventory(t *testing.T, lead map[string]any) map[string]any {
	t.Helper()
	s, _ := lead["survey"].(map[string]any)
	inv, _ := s["inventory"].(map[string]any)
	if inv == nil {
		t.Fatalf("getLead's survey has no inventory: %v", lead["survey"])
	}
	return inv
}

// leadItem returns the item key of room in getLead's inventory, or nil.
func leadItem(inv map[string]any, room, key string) map[string]any {
	rooms, _ := inv["rooms"].([]any)
	for _, r := range rooms {
		r, _ := r.(map[string]any)
		if r["name"] != room {
			continue
		}
		items, _ := r["items"].([]any)
		for _, it := range items {
			if it, _ := it.(map[string]any); it["key"] == key {
				return it
			}
		}
	}
	return nil
}

// detectionSummary lists detections as "label score", for the test log.
func detectionSummary(dets []inventory.Detection) string {
	out := make([]string, len(dets))
	for i, d := range dets {
		out[i] = fmt.Sprintf("%s %.2f", d.Label, d.Confidence)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]record.Frame) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// detailLines returns the log lines that carry a detector's own error
// (detector_detail), which only the log keeps.
func detailLines(logs string) string {
	var out []string
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, `"detector_detail":"`) && !strings.Contains(line, `"detector_detail":""`) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// waitLog waits (at most 30 s) until the log holds want: the processor
// writes its line just after the state the test saw.
func waitLog(t *testing.T, e *env, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(e.Logs.String(), want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("the log does not hold %q:\n%s", want, e.Logs)
			return
		}
	}
}
