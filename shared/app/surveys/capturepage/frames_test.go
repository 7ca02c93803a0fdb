package capturepage

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// frameKey names a frame as the server does: its clip and its slot,
// offset_ms / survey.FrameInterval.
type frameKey struct {
	clip string
	slot int
}

// frameAnnouncement is one frame of a POST /frames body.
type frameAnnouncement struct {
	OffsetMS int64 `json:"offset_ms"`
	Size     int64 `json:"size"`
	Width    int   `json:"width"`
	Height   int   `json:"height"`
}

// frameCall is a POST /frames the fake received and the status it answered.
type frameCall struct {
	ClipID string
	Frames []frameAnnouncement
	Status int
}

// fakeFrame is an accepted announcement and, once its PUT arrived, the
// bytes it carried.
type fakeFrame struct {
	frameAnnouncement
	data []byte
}

// announceFrames answers POST /frames as the server does. It fails the test
// on what the page must never send: frames of a clip not yet received, a
// body the server refuses as invalid (a field it does not know, 0 or too
// many frames, two in a slot, a size or side out of bounds) or a slot
// announced again differently. A
// survey that would hold more than survey.MaxFrames is refused with 422
// and details.max_frames, which is not the page's fault: the page only
// knows the count of when it was loaded and of its own announcements.
func (f *fakeSurvey) announceFrames(w http.ResponseWriter, body []byte) {
	var req struct {
		ClipID string              `json:"clip_id"`
		Frames []frameAnnouncement `json:"frames"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		f.t.Errorf("POST /frames: %v: %s", err, body)
		apiError(w, 422, "invalid_json", "The body is not JSON.")
		return
	}
	call := frameCall{ClipID: req.ClipID, Frames: req.Frames}
	defer func() { f.frameCalls = append(f.frameCalls, call) }()
	if f.failFrames {
		call.Status = 500
		apiError(w, 500, "internal", "Something went wrong.")
		return
	}
	if _, ok := f.uploads[req.ClipID]; !ok {
		f.t.Errorf("frames of clip %s announced before the clip arrived", req.ClipID)
	}
	if msg := checkFrames(req.Frames); msg != "" {
		f.t.Errorf("POST /frames of clip %s: %s", req.ClipID, msg)
		call.Status = 422
		apiError(w, 422, "validation_failed", msg)
		return
	}
	interval := survey.FrameInterval.Milliseconds()
	added := 0
	for _, fr := range req.Frames {
		old, ok := f.frames[frameKey{req.ClipID, int(fr.OffsetMS / interval)}]
		if !ok {
			added++
		} else if old.frameAnnouncement != fr {
			f.t.Errorf("clip %s: frame %+v announced again as %+v", req.ClipID, old.frameAnnouncement, fr)
			call.Status = 409
			apiError(w, 409, "conflict", "That slot holds another frame.")
			return
		}
	}
	if f.framesUsed+added > survey.MaxFrames {
		call.Status = 422
		writeJSON(w, 422, map[string]any{"error": map[string]any{
			"code":    "validation_failed",
			"message": fmt.Sprintf("A survey holds at most %d frames; this one has %d.", survey.MaxFrames, f.framesUsed),
			"details": map[string]any{"fields": map[string]any{"frames": "a survey holds at most 60 frames"}, "max_frames": survey.MaxFrames},
		}})
		return
	}
	entries := []map[string]any{}
	for _, fr := range req.Frames {
		k := frameKey{req.ClipID, int(fr.OffsetMS / interval)}
		got, ok := f.frames[k]
		if !ok {
			got = &fakeFrame{frameAnnouncement: fr}
			f.frames[k] = got
		}
		e := map[string]any{"slot": k.slot, "offset_ms": fr.OffsetMS, "status": "announced", "upload": map[string]any{
			"method": "PUT", "url": f.base + "/frame/" + k.clip + "/" + strconv.Itoa(k.slot) + "?X-Amz-Signature=secret",
			"headers": map[string]string{"Content-Type": "image/jpeg", "If-None-Match": "*"},
		}}
		if got.data != nil {
			e["status"], e["upload"] = "valid", nil
		}
		entries = append(entries, e)
	}
	f.framesUsed += added
	call.Status = 200
	writeJSON(w, 200, map[string]any{
		"clip_id": req.ClipID, "frames": entries, "frames_used": f.framesUsed, "frames_max": survey.MaxFrames,
		"expires_at": time.Now().Add(15 * time.Minute).UTC().Format(time.RFC3339),
	})
}

// checkFrames returns why the server refuses an announcement, "" when it
// takes it.
func checkFrames(frames []frameAnnouncement) string {
	if len(frames) < 1 || len(frames) > survey.MaxFrames {
		return fmt.Sprintf("%d frames; want 1 to %d", len(frames), survey.MaxFrames)
	}
	slots := map[int64]bool{}
	for _, fr := range frames {
		slot := fr.OffsetMS / survey.FrameInterval.Milliseconds()
		switch {
		case fr.OffsetMS < 0 || fr.OffsetMS >= survey.MaxClipDuration.Milliseconds():
			return fmt.Sprintf("offset_ms %d out of the clip", fr.OffsetMS)
		case slots[slot]:
			return fmt.Sprintf("two frames in slot %d", slot)
		case fr.Size < 1 || fr.Size > survey.MaxFrameBytes:
			return fmt.Sprintf("size %d", fr.Size)
		case min(fr.Width, fr.Height) < survey.MinFrameSide || max(fr.Width, fr.Height) > survey.MaxFrameSide:
			return fmt.Sprintf("%d×%d pixels", fr.Width, fr.Height)
		}
		slots[slot] = true
	}
	return ""
}

// receiveFrame is the presigned PUT of one frame: it takes the announced
// size as image/jpeg, as a URL signed with those would.
func (f *fakeSurvey) receiveFrame(w http.ResponseWriter, r *http.Request, body []byte) {
	clip, slot, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/frame/"), "/")
	n, _ := strconv.Atoi(slot)
	fr, ok := f.frames[frameKey{clip, n}]
	switch {
	case !ok:
		f.t.Errorf("PUT of frame %s/%s, which was not announced", clip, slot)
		w.WriteHeader(403)
	case f.failFramePuts:
		f.framePutsRefused++
		w.WriteHeader(403)
	case r.Header.Get("Content-Type") != "image/jpeg" || r.ContentLength != fr.Size || int64(len(body)) != fr.Size || r.Header.Get("If-None-Match") != "*":
		f.t.Errorf("PUT of frame %s/%s: Content-Type %q, Content-Length %d, %d bytes, If-None-Match %q; announced image/jpeg, %d bytes, *",
			clip, slot, r.Header.Get("Content-Type"), r.ContentLength, len(body), r.Header.Get("If-None-Match"), fr.Size)
		w.WriteHeader(403)
	case fr.data != nil:
		w.WriteHeader(412) // S3's answer to If-None-Match: * on a key that holds an object
	default:
		fr.data = body
		f.events = append(f.events, "frame "+clip+" "+slot)
		w.WriteHeader(200)
	}
}

// framesOf returns the frames accepted for clip, by slot. Call it with f.mu
// held.
func (f *fakeSurvey) framesOf(clip string) []*fakeFrame {
	var out []*fakeFrame
	for slot := range survey.MaxClipSlots {
		if fr, ok := f.frames[frameKey{clip, slot}]; ok {
			out = append(out, fr)
		}
	}
	return out
}

// waitUntil waits until cond, called with f.mu held, is true.
func (f *fakeSurvey) waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for {
		f.mu.Lock()
		ok := cond()
		f.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting until %s: %v", what, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// checkJPEGs fails the test for a frame that did not arrive, is not a JPEG,
// or is not of the size it was announced with.
func checkJPEGs(t *testing.T, frames []*fakeFrame) {
	t.Helper()
	for _, fr := range frames {
		if fr.data == nil {
			t.Errorf("frame at %d ms announced, never uploaded", fr.OffsetMS)
			continue
		}
		t.Logf("frame at %d ms: %d×%d, %d bytes", fr.OffsetMS, fr.Width, fr.Height, fr.Size)
		img, err := jpeg.Decode(bytes.NewReader(fr.data))
		if err != nil {
			t.Errorf("frame at %d ms: %v", fr.OffsetMS, err)
			continue
		}
		if b := img.Bounds(); b.Dx() != fr.Width || b.Dy() != fr.Height {
			t.Errorf("frame at %d ms is %d×%d; announced %d×%d", fr.OffsetMS, b.Dx(), b.Dy(), fr.Width, fr.Height)
		}
	}
}

// phoneSteps opens the capture page on a phone as startPhone does, and
// returns its console and a function that gives each step a deadline.
func phoneSteps(t *testing.T, f *fakeSurvey) (context.Context, *htmltest.Console, func(time.Duration) context.Context) {
	t.Helper()
	ctx, log := htmltest.StartPhone(t, f.base+"/v1-capture/tok", "", "Failed to load resource: the server responded with a status of")
	return ctx, log, func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
}

// pick chooses a video in the file input and waits until it is sent.
func pick(t *testing.T, step func(time.Duration) context.Context, file, progress string) {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := browser.SetFiles(step(10*time.Second), "Upload a video", abs); err != nil {
		t.Fatal(err)
	}
	waitUploaded(t, step(20*time.Second), progress)
}

// record films the room shown with the fake camera until the timer reads
// secs seconds, and waits until the clip is sent.
func record(t *testing.T, step func(time.Duration) context.Context, secs int, progress string) {
	t.Helper()
	if err := browser.Click(step(10*time.Second), browser.RoleButton, "Start recording"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(time.Duration(secs+10)*time.Second), fmt.Sprintf("00:%02d", secs)); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Stop recording"); err != nil {
		t.Fatal(err)
	}
	waitUploaded(t, step(20*time.Second), progress)
}

// finishSurvey finishes and waits for the thank-you, checking first that
// nothing on the page reports a problem.
func finishSurvey(t *testing.T, ctx context.Context, step func(time.Duration) context.Context) {
	t.Helper()
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".is-error, .is-failed").length`)); err != nil || n != 0 {
		text, _ := browser.Text(ctx)
		t.Errorf("%d elements show an error (%v); the page shows:\n%s", n, err, text)
	}
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Finish survey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(40*time.Second), "Thanks! Demo Movers will review your video and send your estimate."); err != nil {
		t.Fatal(err)
	}
}

// TestFramesWhileRecording films about 7 s: the page takes a frame every
// 2 s from the camera's preview and uploads them after the clip, and
// finishing, tapped at once, waits for them on a slow uplink.
func TestFramesWhileRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel() // mostly waits on the page's real-time recording and uploads; own fake server and tab
	f := newFakeSurvey(t, flowPage())
	f.frameDelay = time.Second
	ctx, _, step := phoneSteps(t, f)
	record(t, step, 7, "Upload of Living room clip 1")
	finishSurvey(t, ctx, step)

	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.announced) != 1 {
		t.Fatalf("clip requests %+v; want 1", f.announced)
	}
	clip := f.announced[0].ClipID
	frames := f.framesOf(clip)
	if len(frames) < 3 || len(frames) > 4 || len(f.frameCalls) != 1 || f.frameCalls[0].Status != 200 {
		t.Fatalf("%d frames in %d calls %+v; want 3 or 4 in one", len(frames), len(f.frameCalls), f.frameCalls)
	}
	checkJPEGs(t, frames)
	for i, fr := range frames {
		if max(fr.Width, fr.Height) > 1280 {
			t.Errorf("frame %d is %d×%d; want at most 1280 px a side", i, fr.Width, fr.Height)
		}
		if i > 0 && fr.OffsetMS-frames[i-1].OffsetMS < 2000 {
			t.Errorf("frames at %d and %d ms; want them 2 s apart at least", frames[i-1].OffsetMS, fr.OffsetMS)
		}
	}
	// The clip first, then its frames, then finishing.
	at := func(e string) int { return slices.Index(f.events, e) }
	for slot := range survey.MaxClipSlots {
		if i := at(fmt.Sprintf("frame %s %d", clip, slot)); i >= 0 && (i < at("upload "+clip) || i > at("finish")) {
			t.Errorf("frame %d uploaded out of order: %v", slot, f.events)
		}
	}
}

// TestFramesOfAPickedVideo picks a WebM the browser plays, random bytes
// named .mp4 and an MPEG-4 Part 2 video, which Chromium cannot decode: the
// first gets frames evenly spread over its 7 s, the others get none and
// are sent all the same.
func TestFramesOfAPickedVideo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel() // mostly waits on the page's real-time recording and uploads; own fake server and tab
	noise := filepath.Join(t.TempDir(), "noise.mp4")
	junk := make([]byte, 20000)
	rand.Read(junk)
	if err := os.WriteFile(noise, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFakeSurvey(t, flowPage())
	ctx, _, step := phoneSteps(t, f)
	for i, file := range []string{"testdata/walkthrough.webm", noise, "testdata/mpeg4.mp4"} {
		pick(t, step, file, fmt.Sprintf("Upload of Living room clip %d", i+1))
	}
	finishSurvey(t, ctx, step)

	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.announced) != 3 || len(f.uploads) != 3 {
		t.Fatalf("clip requests %+v, uploads %v; want 3", f.announced, f.uploads)
	}
	frames := f.framesOf(f.announced[0].ClipID)
	// 7 s give 3 slots' worth: 2333 ms apart, from 1166 ms.
	var offsets []int64
	for _, fr := range frames {
		offsets = append(offsets, fr.OffsetMS)
	}
	if !slices.Equal(offsets, []int64{1166, 3499, 5832}) {
		t.Errorf("frames of the WebM at %v ms; want [1166 3499 5832]", offsets)
	}
	checkJPEGs(t, frames)
	for i, fr := range frames {
		if fr.Width != 320 || fr.Height != 240 {
			t.Errorf("frame %d is %d×%d; want the video's 320×240", i, fr.Width, fr.Height)
		}
		if i > 0 && bytes.Equal(fr.data, frames[i-1].data) {
			t.Errorf("frames %d and %d are the same picture; want each taken at its own time", i-1, i)
		}
	}
	for _, c := range f.frameCalls {
		if c.ClipID != f.announced[0].ClipID {
			t.Errorf("frames announced for a video the browser cannot play: %+v", c)
		}
	}
}

// TestFramesPerSurveyCap opens a survey that holds 58 frames, while the
// server counts 59 already (one sent from elsewhere since): a 7 s clip
// keeps 2 frames spread over it, which the server refuses as too many; the
// page then takes no more, and a picked video is sent without frames.
func TestFramesPerSurveyCap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel() // mostly waits on the page's real-time recording and uploads; own fake server and tab
	p := flowPage()
	p.FramesUsed = 58
	f := newFakeSurvey(t, p)
	f.framesUsed = 59
	ctx, _, step := phoneSteps(t, f)
	record(t, step, 7, "Upload of Living room clip 1")
	f.waitUntil(t, step(10*time.Second), "the frames are announced", func() bool { return len(f.frameCalls) > 0 })
	pick(t, step, "testdata/walkthrough.webm", "Upload of Living room clip 2")
	finishSurvey(t, ctx, step)

	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.frameCalls) != 1 || f.frameCalls[0].Status != 422 {
		t.Fatalf("frame calls %+v; want one, refused", f.frameCalls)
	}
	got := f.frameCalls[0].Frames
	if len(got) != 2 || got[1].OffsetMS-got[0].OffsetMS < 4000 {
		t.Errorf("announced %+v; want 2 frames, every other of those taken (4 s apart)", got)
	}
	if len(f.uploads) != 2 || len(f.finishes) != 1 {
		t.Errorf("uploads %v, finishes %d; want 2 clips and finished", f.uploads, len(f.finishes))
	}
}

// TestFrameFailuresStayHidden has the frames call fail (500) for one clip
// and every frame PUT refused (403) for the next: the customer sees
// nothing of it and finishes as usual, and the console, which the
// customer's phone may report, holds no URL with the token or a signature.
func TestFrameFailuresStayHidden(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel() // mostly waits on the page's real-time recording and uploads; own fake server and tab
	f := newFakeSurvey(t, flowPage())
	f.failFrames = true
	ctx, log, step := phoneSteps(t, f)
	pick(t, step, "testdata/walkthrough.webm", "Upload of Living room clip 1")
	// One retry, then the page gives up on them.
	f.waitUntil(t, step(15*time.Second), "the frames call is tried twice", func() bool { return len(f.frameCalls) == 2 })
	f.mu.Lock()
	f.failFrames, f.failFramePuts = false, true
	f.mu.Unlock()
	pick(t, step, "testdata/walkthrough.webm", "Upload of Living room clip 2")
	f.waitUntil(t, step(15*time.Second), "each frame PUT is tried twice", func() bool {
		return len(f.frameCalls) == 3 && f.framePutsRefused == 2*len(f.frameCalls[2].Frames)
	})
	finishSurvey(t, ctx, step)
	for _, secret := range []string{"/v1-capture/tok", "X-Amz-Signature"} {
		if log.Saw(secret) {
			t.Errorf("the console shows %q", secret)
		}
	}
	if !log.Saw("not sent") {
		t.Error("the console does not say what was not sent")
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.uploads) != 2 || len(f.finishes) != 1 {
		t.Errorf("uploads %v, finishes %d; want 2 clips and finished", f.uploads, len(f.finishes))
	}
	for _, fr := range f.frames {
		if fr.data != nil {
			t.Errorf("frame at %d ms received; every PUT was refused", fr.OffsetMS)
		}
	}
}
