package surveys_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// scripted is an inventory.Detector (this service's own interface, not an
// AWS API) that answers by the frame's bytes: the tests here are about
// frames reaching the inventory; the real detectors are tested in
// shared/adapter/rekognition (recorded DetectLabels bodies) and shared/local/detectlocal
// (the model itself), and end to end in TestE2EDetectedInventory.
type scripted struct {
	mu     sync.Mutex
	by     map[[32]byte][]inventory.Detection
	refuse map[[32]byte]error // a call on such a frame fails with its error
	err    error              // every call fails with it when set
	gate   chan struct{}      // when set, each call waits for it
	calls  int
}

func (d *scripted) Name() string { return "centernet-coco" }

func (d *scripted) Detect(ctx context.Context, jpg []byte) ([]inventory.Detection, error) {
	d.mu.Lock()
	d.calls++
	gate, err, found := d.gate, d.err, d.by[sha256.Sum256(jpg)]
	if e, ok := d.refuse[sha256.Sum256(jpg)]; ok {
		err = e
	}
	d.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return found, err
}

func (d *scripted) answer(jpg []byte, labels ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by = map[[32]byte][]inventory.Detection{}
	}
	var dets []inventory.Detection
	for _, l := range labels {
		dets = append(dets, inventory.Detection{Label: l, Confidence: 0.9, Box: inventory.Box{Width: 0.2, Height: 0.2}})
	}
	d.by[sha256.Sum256(jpg)] = dets
}

func newDetectingEnv(t *testing.T, d inventory.Detector) *env {
	t.Helper()
	e := apitest.New(t, apitest.Options{S3: true, Parallel: true, Detector: d})
	p := e.NewPartner(t, "Demo Movers")
	key, _ := e.NewKey(t, p, auth.Test)
	return &env{Env: e, partner: p, key: key}
}

// still returns a w×h JPEG of one colour: a frame as the page sends it.
func still(t *testing.T, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type sentFrame struct {
	OffsetMS int64 `json:"offset_ms"`
	Size     int   `json:"size"`
	Width    int   `json:"width"`
	Height   int   `json:"height"`
}

func (e *env) announceFrames(t *testing.T, capture, clipID string, frames ...sentFrame) apitest.Result {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"clip_id": clipID, "frames": frames})
	return e.Do(t, "POST", capture+"/frames", "", string(b))
}

func jpegFrame(offsetMS int64, jpg []byte) sentFrame {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(jpg))
	if err != nil {
		panic(err)
	}
	return sentFrame{OffsetMS: offsetMS, Size: len(jpg), Width: cfg.Width, Height: cfg.Height}
}

func (e *env) frames(t *testing.T, surveyID string) map[string]record.Frame {
	t.Helper()
	fs, err := e.Store.ListFrames(context.Background(), auth.Tenant{PartnerID: e.partner, Mode: auth.Test}, surveyID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]record.Frame{}
	for _, f := range fs {
		out[fmt.Sprintf("%s/%d", f.ClipID, f.Slot)] = f
	}
	return out
}

// waitFrames polls until every frame of the survey is decided.
func (e *env) waitFrames(t *testing.T, surveyID string, n int) map[string]record.Frame {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		fs := e.frames(t, surveyID)
		decided := 0
		for _, f := range fs {
			if f.Status.Final() {
				decided++
			}
		}
		if decided == n && len(fs) == n {
			return fs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d frames decided after 30 s: %+v; logs:\n%s", decided, n, fs, e.Logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (e *env) storedSurvey(t *testing.T, id string) record.Survey {
	t.Helper()
	rec, err := e.Store.GetSurvey(context.Background(), auth.Tenant{PartnerID: e.partner, Mode: auth.Test}, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func itemOf(inv *inventory.Inventory, room, key string) (inventory.Item, bool) {
	if inv == nil {
		return inventory.Item{}, false
	}
	for _, r := range inv.Rooms {
		if r.Name != room {
			continue
		}
		for _, it := range r.Items {
			if it.Key == key {
				return it, true
			}
		}
	}
	return inventory.Item{}, false
}

// TestFramesReachTheInventory: the page announces a clip's frames in one
// call and PUTs each to its presigned URL; the processor validates each
// (a JPEG as announced), runs the detector on the valid ones and keeps
// its findings; the settled inventory is the checklist plus what only the
// detector saw (source detected), counted the most in any one frame, and
// the frames that were not as announced are rejected with the reason.
func TestFramesReachTheInventory(t *testing.T) {
	d := &scripted{}
	e := newDetectingEnv(t, d)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))

	clip := e.upload(t, capture, "Living room", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
	f0, f1 := still(t, 640, 360, color.RGBA{200, 10, 10, 255}), still(t, 640, 360, color.RGBA{10, 200, 10, 255})
	d.answer(f0, "couch", "tv")
	d.answer(f1, "couch", "chair", "chair", "person") // a person is not furniture
	bad := bytes.Repeat([]byte{'x'}, len(f0))         // announced as a JPEG, is not one
	short := f1[:len(f1)-2]                           // cut off: no end-of-image marker

	r := want(t, e.announceFrames(t, capture, clip, jpegFrame(0, f0), jpegFrame(2500, f1), jpegFrame(4000, f0), sentFrame{6100, len(short), 640, 360}), 200, "")
	if r["clip_id"] != clip || r["frames_used"] != 4.0 || r["frames_max"] != float64(survey.MaxFrames) {
		t.Fatalf("frames answer %v", r)
	}
	fs := r["frames"].([]any)
	if len(fs) != 4 {
		t.Fatalf("frames %v; want 4, in the order sent", fs)
	}
	for i, slot := range []float64{0, 1, 2, 3} {
		f := fs[i].(map[string]any)
		up, _ := f["upload"].(map[string]any)
		if f["slot"] != slot || f["status"] != "announced" || up == nil || up["method"] != "PUT" ||
			up["headers"].(map[string]any)["Content-Type"] != "image/jpeg" || !strings.Contains(up["url"].(string), "/frames/") {
			t.Fatalf("frame %d: %v", i, f)
		}
	}
	for i, body := range [][]byte{f0, f1, bad, short} {
		if st := put(t, fs[i].(map[string]any)["upload"].(map[string]any), body); st != 200 {
			t.Fatalf("frame %d upload: %d", i, st)
		}
	}
	stored := e.waitFrames(t, surveyID, 4)
	if f := stored[clip+"/0"]; f.Status != survey.FrameValid || f.Analysis.Detector != "centernet-coco" || len(f.Analysis.Detections) != 2 {
		t.Errorf("frame 0: %+v", f)
	}
	if f := stored[clip+"/2"]; f.Status != survey.FrameRejected || f.RejectReason != "not a JPEG image" {
		t.Errorf("frame 2 (not a JPEG): %+v", f)
	}
	if f := stored[clip+"/3"]; f.Status != survey.FrameRejected || !strings.Contains(f.RejectReason, "cut short") {
		t.Errorf("frame 3 (cut short): %+v", f)
	}
	if d.calls != 2 {
		t.Errorf("detector called %d times; want 2 (only the valid frames)", d.calls)
	}

	want(t, e.Do(t, "PUT", capture+"/checklist", "", `{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":2}]}]}`), 200, "")
	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	e.waitSurvey(t, leadID, "inventory_ready")
	inv := e.storedSurvey(t, surveyID).Inventory
	if sofa, ok := itemOf(inv, "Living room", "sofa_3_seat"); !ok || sofa.Count != 2 || sofa.Source != inventory.FromChecklist || sofa.Detected != 1 {
		t.Errorf("sofa %+v (%v); want the customer's 2, seen once per frame", sofa, ok)
	}
	if tv, ok := itemOf(inv, "Living room", "tv_medium"); !ok || tv.Count != 1 || tv.Source != inventory.FromDetector {
		t.Errorf("tv %+v (%v); want 1, detected", tv, ok)
	}
	if ch, ok := itemOf(inv, "Living room", "dining_chair"); !ok || ch.Count != 2 || ch.Source != inventory.FromDetector {
		t.Errorf("chairs %+v (%v); want 2 (two in one frame), detected", ch, ok)
	}
	if rep := inv.Detector; rep == nil || rep.Status != inventory.DetectorOK || rep.FramesAnalyzed != 2 || rep.Name != "centernet-coco" || len(rep.ClipsNoFrames) != 0 {
		t.Errorf("detector report %+v", inv.Detector)
	}
}

// TestFramesPerClip: a clip holds survey.FramesPerClip frames, however
// they are announced; its 13th is refused with 422 naming the rule and
// nothing is written, while another clip still takes frames, and a
// retried announcement of a frame the clip has is still answered.
func TestFramesPerClip(t *testing.T) {
	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))
	webm := fixture(t, "mediarecorder-vp8-opus.webm")
	full, other := e.upload(t, capture, "Kitchen", webm, "video/webm"), e.upload(t, capture, "Hall", webm, "video/webm")
	frames := make([]sentFrame, survey.FramesPerClip+1)
	for i := range frames {
		frames[i] = sentFrame{OffsetMS: int64(i) * 2000, Size: 1000, Width: 640, Height: 360}
	}
	const first = 7
	want(t, e.announceFrames(t, capture, full, frames[:first]...), 200, "")
	want(t, e.announceFrames(t, capture, full, frames[first:survey.FramesPerClip]...), 200, "")

	refused := func(name string, r apitest.Result, used int) {
		t.Helper()
		m := want(t, r, 422, "validation_failed")
		det, _ := m["error"].(map[string]any)["details"].(map[string]any)
		fields, _ := det["fields"].(map[string]any)
		if fields["frames"] == nil || det["max_frames_per_clip"] != float64(survey.FramesPerClip) || det["clip_frames_used"] != float64(used) {
			t.Errorf("%s: details %v; want fields.frames, max_frames_per_clip %d, clip_frames_used %d", name, det, survey.FramesPerClip, used)
		}
	}
	refused("13th frame", e.announceFrames(t, capture, full, frames[survey.FramesPerClip]), survey.FramesPerClip)
	// One of the clip's frames again with a new one: still the 13th.
	refused("a retry with a 13th", e.announceFrames(t, capture, full, frames[0], frames[survey.FramesPerClip]), survey.FramesPerClip)
	if r := want(t, e.announceFrames(t, capture, full, frames[0]), 200, ""); r["frames_used"] != float64(survey.FramesPerClip) {
		t.Errorf("retried announcement: frames_used %v; want %d", r["frames_used"], survey.FramesPerClip)
	}
	// 13 frames in one call are refused before anything is read.
	want(t, e.announceFrames(t, capture, other, frames...), 422, "validation_failed")
	if r := want(t, e.announceFrames(t, capture, other, frames[:survey.FramesPerClip]...), 200, ""); r["frames_used"] != float64(2*survey.FramesPerClip) {
		t.Errorf("another clip's frames: frames_used %v; want %d", r["frames_used"], 2*survey.FramesPerClip)
	}
	stored := e.frames(t, surveyID)
	perClip := map[string]int{}
	for _, f := range stored {
		perClip[f.ClipID]++
	}
	if perClip[full] != survey.FramesPerClip || perClip[other] != survey.FramesPerClip || len(perClip) != 2 ||
		e.storedSurvey(t, surveyID).FrameCount != 2*survey.FramesPerClip {
		t.Errorf("stored frames per clip %v, survey count %d; want %d each", perClip, e.storedSurvey(t, surveyID).FrameCount, survey.FramesPerClip)
	}
}

// TestFrameAnnouncementsRefused: a frames call that breaks a rule is a
// 4xx naming the field, and writes nothing.
func TestFrameAnnouncementsRefused(t *testing.T) {
	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))
	clip := e.upload(t, capture, "Kitchen", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
	ok := sentFrame{OffsetMS: 0, Size: 1000, Width: 640, Height: 360}
	many := make([]sentFrame, survey.MaxFramesPerRequest+1)
	for i := range many {
		many[i] = sentFrame{OffsetMS: int64(i) * 2000, Size: 1000, Width: 640, Height: 360}
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	for _, c := range []struct {
		name, body string
		status     int
		code       string
		field      string
	}{
		{"not json", `{`, 422, "invalid_json", ""},
		{"unknown field", `{"clip_id":"` + clip + `","frames":[],"extra":1}`, 422, "validation_failed", "extra"},
		{"clip id not a uuid", js(map[string]any{"clip_id": "x", "frames": []sentFrame{ok}}), 422, "validation_failed", "clip_id"},
		{"no frames", js(map[string]any{"clip_id": clip, "frames": []sentFrame{}}), 422, "validation_failed", "frames"},
		{"too many frames", js(map[string]any{"clip_id": clip, "frames": many}), 422, "validation_failed", "frames"},
		{"two in one slot", js(map[string]any{"clip_id": clip, "frames": []sentFrame{ok, {OffsetMS: 1999, Size: 9, Width: 64, Height: 64}}}), 422, "validation_failed", "frames[1].offset_ms"},
		{"negative offset", js(map[string]any{"clip_id": clip, "frames": []sentFrame{{OffsetMS: -1, Size: 9, Width: 64, Height: 64}}}), 422, "validation_failed", "frames[0].offset_ms"},
		{"past ten minutes", js(map[string]any{"clip_id": clip, "frames": []sentFrame{{OffsetMS: 600000, Size: 9, Width: 64, Height: 64}}}), 422, "validation_failed", "frames[0].offset_ms"},
		{"empty", js(map[string]any{"clip_id": clip, "frames": []sentFrame{{Size: 0, Width: 64, Height: 64}}}), 422, "validation_failed", "frames[0].size"},
		{"over 1 MiB", js(map[string]any{"clip_id": clip, "frames": []sentFrame{{Size: survey.MaxFrameBytes + 1, Width: 64, Height: 64}}}), 422, "validation_failed", "frames[0].size"},
		{"too small", js(map[string]any{"clip_id": clip, "frames": []sentFrame{{Size: 9, Width: 63, Height: 64}}}), 422, "validation_failed", "frames[0].width"},
		{"too large", js(map[string]any{"clip_id": clip, "frames": []sentFrame{{Size: 9, Width: 64, Height: 4000}}}), 422, "validation_failed", "frames[0].height"},
		{"unknown clip", js(map[string]any{"clip_id": uuid.NewString(), "frames": []sentFrame{ok}}), 404, "not_found", ""},
		{"body too large", strings.Repeat(" ", 9<<10), 413, "payload_too_large", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := want(t, e.Do(t, "POST", capture+"/frames", "", c.body), c.status, c.code)
			if c.field != "" {
				fields, _ := m["error"].(map[string]any)["details"].(map[string]any)["fields"].(map[string]any)
				if _, ok := fields[c.field]; !ok {
					t.Errorf("details.fields %v; want %s named", fields, c.field)
				}
			}
		})
	}
	if n := len(e.frames(t, surveyID)); n != 0 || e.storedSurvey(t, surveyID).FrameCount != 0 {
		t.Fatalf("refused calls stored %d frames", n)
	}

	// A retried announcement signs fresh uploads without counting again;
	// another frame in a used slot is a conflict.
	first := want(t, e.announceFrames(t, capture, clip, ok), 200, "")
	again := want(t, e.announceFrames(t, capture, clip, ok, sentFrame{OffsetMS: 2000, Size: 1000, Width: 640, Height: 360}), 200, "")
	if first["frames_used"] != 1.0 || again["frames_used"] != 2.0 || e.storedSurvey(t, surveyID).FrameCount != 2 {
		t.Errorf("frames_used %v then %v; want 1 then 2", first["frames_used"], again["frames_used"])
	}
	m := want(t, e.announceFrames(t, capture, clip, sentFrame{OffsetMS: 500, Size: 999, Width: 640, Height: 360}), 409, "conflict")
	if m["error"].(map[string]any)["details"].(map[string]any)["slot"] != 0.0 {
		t.Errorf("conflict %v; want details.slot 0", m)
	}

	// The survey's 61st frame is refused, whatever clip it belongs to
	// (its clips hold survey.FramesPerClip each).
	for left := survey.MaxFrames - 2; left > 0; left -= survey.FramesPerClip {
		other := e.upload(t, capture, "Kitchen", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
		want(t, e.announceFrames(t, capture, other, many[:min(left, survey.FramesPerClip)]...), 200, "")
	}
	full := want(t, e.announceFrames(t, capture, clip, sentFrame{OffsetMS: 8000, Size: 1000, Width: 640, Height: 360}), 422, "validation_failed")
	if det := full["error"].(map[string]any)["details"].(map[string]any); det["max_frames"] != float64(survey.MaxFrames) || det["frames_used"] != float64(survey.MaxFrames) {
		t.Errorf("full survey details %v", det)
	}
	if n := e.storedSurvey(t, surveyID).FrameCount; n != survey.MaxFrames {
		t.Errorf("frame count %d; want %d", n, survey.MaxFrames)
	}

	// Frames announced but never uploaded do not hold the survey: the
	// finish rejects them, and it settles.
	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	e.waitSurvey(t, leadID, "inventory_ready")
	for k, f := range e.frames(t, surveyID) {
		if f.Status != survey.FrameRejected || f.RejectReason != "never uploaded" {
			t.Errorf("frame %s: %s %q; want rejected, never uploaded", k, f.Status, f.RejectReason)
		}
	}
}

// TestSurveyWaitsForItsFrames: a customer who finishes while a frame is
// still being analysed does not lose it: the survey stays processing
// until the frame is decided, and its detections count.
func TestSurveyWaitsForItsFrames(t *testing.T) {
	d := &scripted{gate: make(chan struct{})}
	e := newDetectingEnv(t, d)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))
	clip := e.upload(t, capture, "Bedroom", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
	e.waitClip(t, surveyID, clip)
	f := still(t, 320, 240, color.RGBA{1, 2, 3, 255})
	d.answer(f, "bed")
	r := want(t, e.announceFrames(t, capture, clip, jpegFrame(1000, f)), 200, "")
	if st := put(t, r["frames"].([]any)[0].(map[string]any)["upload"].(map[string]any), f); st != 200 {
		t.Fatalf("upload %d", st)
	}
	// The processor is now inside the detector, held by the gate.
	deadline := time.Now().Add(20 * time.Second)
	for {
		d.mu.Lock()
		n := d.calls
		d.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the detector was not called; logs:\n%s", e.Logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if fin := want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, ""); fin["status"] != "processing" {
		t.Fatalf("finish answered %v; want processing (a frame is on its way)", fin)
	}
	time.Sleep(300 * time.Millisecond)
	if st := surveyStatus(e.getLead(t, leadID)); st != "processing" {
		t.Fatalf("survey %s while its frame is analysed; want processing", st)
	}
	close(d.gate)
	e.waitSurvey(t, leadID, "inventory_ready")
	if bed, ok := itemOf(e.storedSurvey(t, surveyID).Inventory, "Bedroom", "bed_unknown"); !ok || bed.Source != inventory.FromDetector {
		t.Errorf("bed %+v (%v); want the frame's bed, detected", bed, ok)
	}
}

// TestDetectorDownMidSurvey: frames the detector cannot analyse are kept
// (valid, with the detector's error), the survey still reaches
// inventory_ready from the checklist, and the inventory says the detector
// failed and why.
func TestDetectorDownMidSurvey(t *testing.T) {
	d := &scripted{}
	e := newDetectingEnv(t, d)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))
	clip := e.upload(t, capture, "Living room", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
	f0, f1 := still(t, 320, 240, color.RGBA{9, 9, 9, 255}), still(t, 320, 240, color.RGBA{99, 9, 9, 255})
	d.answer(f0, "tv")
	r := want(t, e.announceFrames(t, capture, clip, jpegFrame(0, f0), jpegFrame(2000, f1)), 200, "")
	fs := r["frames"].([]any)
	put(t, fs[0].(map[string]any)["upload"].(map[string]any), f0)
	for deadline := time.Now().Add(30 * time.Second); !e.frames(t, surveyID)[clip+"/0"].Status.Final(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("frame 0 undecided after 30 s; logs:\n%s", e.Logs)
		}
	}
	d.mu.Lock()
	d.err = fmt.Errorf("dial tcp 127.0.0.1:1: connect: connection refused")
	d.mu.Unlock()
	put(t, fs[1].(map[string]any)["upload"].(map[string]any), f1)
	stored := e.waitFrames(t, surveyID, 2)
	if f := stored[clip+"/1"]; f.Status != survey.FrameValid || f.Analysis.Error != inventory.ReasonUnavailable {
		t.Errorf("frame analysed by a dead detector: %+v; want kept (valid) with the reason %q", f, inventory.ReasonUnavailable)
	}
	waitLog(t, e, "connection refused")
	want(t, e.Do(t, "PUT", capture+"/checklist", "", `{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":1}]}]}`), 200, "")
	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	l := e.waitSurvey(t, leadID, "inventory_ready")
	inv := e.storedSurvey(t, surveyID).Inventory
	if rep := inv.Detector; rep == nil || rep.Status != inventory.DetectorPartial || rep.FramesAnalyzed != 1 || rep.FramesFailed != 1 || rep.Error != inventory.ReasonUnavailable {
		t.Errorf("report %+v; want partial, 1 analysed, 1 failed, %q", inv.Detector, inventory.ReasonUnavailable)
	}
	if det := leadInventory(t, l)["detector"].(map[string]any); det["error"] != inventory.ReasonUnavailable {
		t.Errorf("getLead's detector %v; want error %q", det, inventory.ReasonUnavailable)
	}
	if _, ok := itemOf(inv, "Living room", "sofa_3_seat"); !ok {
		t.Errorf("the checklist's sofa is missing: %+v", inv)
	}
	if l["recommended_estimate"] == nil {
		t.Error("no recommended estimate")
	}
}

// garbled keeps jpg's JPEG header (up to its scan's start) and its
// end-of-image marker, with random bytes between: a customer's broken
// frame, announced with jpg's size and dimensions.
func garbled(t *testing.T, jpg []byte) []byte {
	t.Helper()
	sos := bytes.Index(jpg, []byte{0xff, 0xda})
	if sos < 0 {
		t.Fatal("no start of scan")
	}
	start := sos + 2 + (int(jpg[sos+2])<<8 | int(jpg[sos+3]))
	out := bytes.Clone(jpg)
	r := rand.New(rand.NewPCG(7, 11))
	for i := start; i < len(out)-2; i++ {
		out[i] = byte(r.UintN(256))
	}
	return out
}

// TestBadCustomerFrame: a frame with a real JPEG header over random
// bytes, and a frame the detector itself cannot read, are the customer's
// rejected frames, not detector failures: the survey's report says every
// analysed frame was analysed, and no detector text reaches the partner.
func TestBadCustomerFrame(t *testing.T) {
	d := &scripted{}
	e := newDetectingEnv(t, d)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))
	clip := e.upload(t, capture, "Living room", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
	good := still(t, 320, 240, color.RGBA{200, 10, 10, 255})
	odd := still(t, 320, 240, color.RGBA{10, 10, 200, 255})
	d.answer(good, "couch")
	d.refuse = map[[32]byte]error{sha256.Sum256(odd): fmt.Errorf(
		"detect with centernet-coco: sidecar answered 400 Bad Request: not a JPEG the detector reads: Cannot read properties of undefined (reading '0'): %w",
		inventory.ErrBadFrame)}
	bad := garbled(t, still(t, 320, 240, color.RGBA{10, 200, 10, 255}))
	putFrames(t, e, capture, clip, good, bad, odd)
	stored := e.waitFrames(t, surveyID, 3)
	if f := stored[clip+"/1"]; f.Status != survey.FrameRejected || f.RejectReason != survey.FrameCorruptReason {
		t.Errorf("garbled frame: %s %q; want rejected, %q", f.Status, f.RejectReason, survey.FrameCorruptReason)
	}
	if f := stored[clip+"/2"]; f.Status != survey.FrameRejected || f.RejectReason != inventory.ReasonBadFrame || f.Analysis.Error != "" {
		t.Errorf("frame the detector cannot read: %s %q %+v; want rejected, %q", f.Status, f.RejectReason, f.Analysis, inventory.ReasonBadFrame)
	}
	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	l := e.waitSurvey(t, leadID, "inventory_ready")
	det, _ := leadInventory(t, l)["detector"].(map[string]any)
	if det["status"] != inventory.DetectorOK || det["frames_analyzed"] != 1.0 || det["frames_failed"] != 0.0 || det["error"] != nil {
		t.Errorf("getLead's detector %v; want ok, 1 analysed, 0 failed, no error", det)
	}
	if b, _ := json.Marshal(l); strings.Contains(string(b), "Cannot read") || strings.Contains(string(b), "sidecar") {
		t.Errorf("getLead carries the detector's text: %s", b)
	}
	waitLog(t, e, "Cannot read properties")
}
