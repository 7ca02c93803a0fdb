package capturepage

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// fakeSurvey serves a capture page and stands in for its JSON calls and
// the presigned upload target, recording what the page sends. It checks
// requests the way the real ones do: the upload must carry the announced
// Content-Type and size.
type fakeSurvey struct {
	t    *testing.T
	srv  *httptest.Server
	base string
	page Page

	mu             sync.Mutex
	failNextUpload bool              // answer the next PUT 403, as an expired URL would
	dropNextUpload bool              // store the next PUT, then close the connection unanswered
	uploadsExisted int               // PUTs answered 412: the clip was already stored
	expired        bool              // answer the JSON calls 410 link_expired
	announced      []clipRequest     // POST /clips bodies, in order
	clipIDs        map[string]int    // distinct clip ids, for clips_used
	uploads        map[string]int    // clip id → bytes received with a 2xx
	checklists     []string          // PUT /checklist bodies
	finishes       []string          // POST /finish bodies
	events         []string          // "upload <clip>", "frame <clip> <slot>", "checklist", "finish", in order
	verdicts       map[string]string // clip id → verdict of an uploaded clip ("checked" when not set; "unusable" gives its place back)
	polls          int               // GET /clips calls

	frameDelay       time.Duration           // how long each frame PUT takes; set before the first request
	framesUsed       int                     // frames the survey holds, as the server counts them
	failFrames       bool                    // answer POST /frames 500
	failFramePuts    bool                    // answer the frame PUTs 403
	frameCalls       []frameCall             // POST /frames bodies with the status answered, in order
	frames           map[frameKey]*fakeFrame // frames announced and accepted
	framePutsRefused int                     // frame PUTs answered 403 for failFramePuts
}

type clipRequest struct {
	ClipID      string `json:"clip_id"`
	Room        string `json:"room"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type"`
}

func newFakeSurvey(t *testing.T, p Page) *fakeSurvey {
	f := &fakeSurvey{t: t, clipIDs: map[string]int{}, uploads: map[string]int{}, frames: map[frameKey]*fakeFrame{}, framesUsed: p.FramesUsed}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.base = "http://" + f.srv.Listener.Addr().String()
	p.APIBase = "/v1-capture/tok"
	p.UploadOrigin = f.base
	f.page = p
	for _, c := range p.Clips {
		f.clipIDs[c.ID] = len(f.clipIDs)
	}
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSurvey) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/frame/") {
		time.Sleep(f.frameDelay) // a slow uplink, without holding up other requests
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	switch {
	case f.expired && strings.HasPrefix(r.URL.Path, "/v1-capture/tok/"):
		apiError(w, 410, "link_expired", "This link has expired.")
	case r.Method == "GET" && r.URL.Path == "/v1-capture/tok":
		f.write(w, Render(f.page))
	case r.Method == "GET" && r.URL.Path == "/v1-capture/expired":
		f.write(w, ErrorPage(410, f.page.Company))
	case r.Method == "GET" && r.URL.Path == "/v1-capture/finished":
		f.write(w, ErrorPage(409, f.page.Company))
	case r.Method == "GET" && r.URL.Path == "/v1-capture/unknown":
		f.write(w, ErrorPage(404, ""))
	case r.Method == "POST" && r.URL.Path == "/v1-capture/tok/clips":
		var c clipRequest
		if err := json.Unmarshal(body, &c); err != nil {
			apiError(w, 422, "invalid_json", "The body is not JSON.")
			return
		}
		base := mediaType(c.ContentType)
		if (base != "video/mp4" && base != "video/webm" && base != "video/quicktime") || c.Size < 1 || c.ClipID == "" || c.Room == "" {
			apiError(w, 422, "validation_failed", "Bad clip: "+string(body))
			return
		}
		f.announced = append(f.announced, c)
		if _, ok := f.clipIDs[c.ClipID]; !ok {
			f.clipIDs[c.ClipID] = len(f.clipIDs)
		}
		writeJSON(w, 200, map[string]any{
			"clip_id": c.ClipID, "room": c.Room, "status": "announced",
			"upload": map[string]any{
				"method": "PUT", "url": f.base + "/upload/" + c.ClipID + "?size=" + itoa64(c.Size),
				"headers": map[string]string{"Content-Type": base, "If-None-Match": "*"},
			},
			"expires_at": time.Now().Add(15 * time.Minute).UTC().Format(time.RFC3339),
			"clips_used": len(f.clipIDs), "clips_max": f.page.ClipsMax,
		})
	case r.Method == "PUT" && strings.HasPrefix(r.URL.Path, "/upload/"):
		id := strings.TrimPrefix(r.URL.Path, "/upload/")
		var want clipRequest
		for _, c := range f.announced {
			if c.ClipID == id {
				want = c
			}
		}
		wantType := mediaType(want.ContentType)
		_, stored := f.uploads[id]
		switch {
		case f.failNextUpload:
			f.failNextUpload = false
			w.WriteHeader(403) // what S3 answers a URL that has expired
		case r.Header.Get("Content-Type") != wantType || r.URL.Query().Get("size") != itoa64(int64(len(body))) || r.Header.Get("If-None-Match") != "*":
			f.t.Errorf("upload of %s: Content-Type %q, %d bytes, If-None-Match %q; announced %q, %d bytes, *",
				id, r.Header.Get("Content-Type"), len(body), r.Header.Get("If-None-Match"), wantType, want.Size)
			w.WriteHeader(403)
		case stored:
			f.uploadsExisted++
			w.WriteHeader(412) // S3's answer to If-None-Match: * on a key that holds an object
		case f.dropNextUpload:
			f.dropNextUpload = false
			f.uploads[id] = len(body)
			f.events = append(f.events, "upload "+id)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				f.t.Errorf("hijack: %v", err)
				return
			}
			conn.Close() // stored, but the answer is lost
		default:
			f.uploads[id] = len(body)
			f.events = append(f.events, "upload "+id)
			w.WriteHeader(200)
		}
	case r.Method == "GET" && r.URL.Path == "/v1-capture/tok/clips":
		f.clipVerdicts(w)
	case r.Method == "POST" && r.URL.Path == "/v1-capture/tok/frames":
		f.announceFrames(w, body)
	case r.Method == "PUT" && strings.HasPrefix(r.URL.Path, "/frame/"):
		f.receiveFrame(w, r, body)
	case r.Method == "PUT" && r.URL.Path == "/v1-capture/tok/checklist":
		f.checklists = append(f.checklists, string(body))
		f.events = append(f.events, "checklist")
		writeJSON(w, 200, map[string]any{"saved": true, "items": strings.Count(string(body), `"key"`)})
	case r.Method == "POST" && r.URL.Path == "/v1-capture/tok/finish":
		f.finishes = append(f.finishes, string(body))
		f.events = append(f.events, "finish")
		writeJSON(w, 200, map[string]any{"status": "processing", "clips": len(f.uploads)})
	default:
		apiError(w, 404, "not_found", "No such route.")
	}
}

// clipVerdicts answers the page's poll as the real server does: an
// uploaded clip is checked unless f.verdicts says otherwise, and an
// unusable one does not count.
func (f *fakeSurvey) clipVerdicts(w http.ResponseWriter) {
	f.polls++
	clips, used := []map[string]any{}, 0
	for _, c := range f.page.Clips {
		clips = append(clips, map[string]any{"clip_id": c.ID, "room": c.Room, "verdict": c.Verdict, "reason": c.Reason, "announced_at": c.At})
		if c.Verdict != "unusable" {
			used++
		}
	}
	seen := map[string]bool{}
	for _, c := range f.announced {
		if seen[c.ClipID] {
			continue
		}
		seen[c.ClipID] = true
		v, reason := "sending", ""
		if _, ok := f.uploads[c.ClipID]; ok {
			v = "checked"
			if f.verdicts[c.ClipID] != "" {
				v = f.verdicts[c.ClipID]
			}
		}
		if v == "unusable" {
			reason = "This is not a video we can play."
		} else {
			used++
		}
		clips = append(clips, map[string]any{"clip_id": c.ClipID, "room": c.Room, "verdict": v, "reason": reason, "announced_at": time.Now().UTC()})
	}
	writeJSON(w, 200, map[string]any{"clips": clips, "clips_used": used, "clips_max": f.page.ClipsMax})
}

func (f *fakeSurvey) write(w http.ResponseWriter, d Document) {
	for k, v := range d.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(d.Status)
	w.Write(d.Body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": code, "message": message, "details": map[string]any{}}})
}

// mediaType is a content type without its parameters, which the real
// server ignores ("video/webm;codecs=vp8,opus" is video/webm; a codecs list
// is not a valid MIME parameter, so mime.ParseMediaType refuses it).
func mediaType(ct string) string {
	base, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(base))
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }

// startPhone starts the browser with a phone-sized tab and opens path on
// f. The script, when given, runs in the page before the page's own. The
// test fails on an exception, an error or a Content-Security-Policy
// violation in the browser's console, except the refused requests the
// tests provoke (an expired upload URL, the error pages' statuses).
func startPhone(t *testing.T, f *fakeSurvey, path, script string) context.Context {
	t.Helper()
	ctx, _ := htmltest.StartPhone(t, f.base+path, script, "Failed to load resource: the server responded with a status of")
	return ctx
}

func flowPage() Page {
	p := samplePage()
	p.Clips = nil
	p.Checklist = nil
	return p
}

// TestCaptureFlowOnAPhone films one clip with the fake camera, has its
// first upload refused as an expired URL would be and retries it, counts
// items in two rooms and finishes; then checks what the server received.
func TestCaptureFlowOnAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel() // mostly waits on the page's real-time recording and uploads; own fake server and tab
	f := newFakeSurvey(t, flowPage())
	f.failNextUpload = true
	ctx := startPhone(t, f, "/v1-capture/tok", "")
	step := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}

	if _, err := browser.WaitFor(step(10*time.Second), browser.RoleButton, "Start recording"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "1-start")

	if err := browser.Click(step(10*time.Second), browser.RoleButton, "Start recording"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(10*time.Second), "00:02"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "2-recording")
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Stop recording"); err != nil {
		t.Fatal(err)
	}

	// The first upload fails; the clip is sent again without filming it again.
	if _, err := browser.WaitFor(step(15*time.Second), browser.RoleButton, "Retry upload"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "3-upload-failed")
	if err := browser.Click(step(15*time.Second), browser.RoleButton, "Retry upload"); err != nil {
		t.Fatal(err)
	}
	waitUploaded(t, step(20*time.Second), "Upload of Living room clip 1")
	if err := browser.WaitText(step(5*time.Second), "1 of 20 clips used"); err != nil {
		t.Error(err)
	}

	if err := browser.Fill(step(5*time.Second), browser.RoleSpinbutton, "Sofa, 3 seats", "2"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "4-uploaded-and-counted")
	if err := browser.Fill(step(5*time.Second), browser.RoleCombobox, "Room", "Bedroom"); err != nil {
		t.Fatal(err)
	}
	if v, err := browser.Value(ctx, browser.RoleSpinbutton, "Sofa, 3 seats"); err == nil && v != "0" {
		t.Errorf("the Bedroom shows %s sofas; want the Living room's count kept apart", v)
	}
	if err := browser.Fill(step(5*time.Second), browser.RoleSpinbutton, "Bed, queen", "1"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Finish survey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(20*time.Second), "Thanks! Demo Movers will review your video and send your estimate."); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "5-done")

	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.announced) != 2 || f.announced[0] != f.announced[1] {
		t.Fatalf("clip requests %+v; want the same clip twice (first upload, then retry)", f.announced)
	}
	c := f.announced[0]
	if c.Room != "Living room" || c.Size < 1000 || !(strings.HasPrefix(c.ContentType, "video/mp4") || strings.HasPrefix(c.ContentType, "video/webm")) {
		t.Errorf("clip request %+v", c)
	}
	if len(c.ClipID) != 36 || c.ClipID[14] != '4' {
		t.Errorf("clip_id %q is not a random UUID", c.ClipID)
	}
	if got := f.uploads[c.ClipID]; int64(got) != c.Size {
		t.Errorf("uploaded %d bytes; announced %d", got, c.Size)
	}
	if len(f.checklists) == 0 {
		t.Fatal("no checklist saved")
	}
	var got, want any
	json.Unmarshal([]byte(f.checklists[len(f.checklists)-1]), &got)
	json.Unmarshal([]byte(`{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":2}]},{"name":"Bedroom","items":[{"key":"bed_queen","count":1}]}]}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("last checklist %s; want %v", f.checklists[len(f.checklists)-1], want)
	}
	if len(f.finishes) != 1 || strings.TrimSpace(f.finishes[0]) != "{}" {
		t.Errorf("finish bodies %q; want one {}", f.finishes)
	}
	if f.events[len(f.events)-1] != "finish" {
		t.Errorf("calls %v; want the checklist saved before finish", f.events)
	}
}

// TestRetryAfterALostAnswer: the clip's upload arrives but its answer is
// lost (the connection drops). The next PUT of the clip, Chromium's own
// retry of the idempotent PUT or the customer's "Retry upload", is
// answered 412, since the upload URL only creates (If-None-Match: *), and
// the page counts the clip as sent, once.
func TestRetryAfterALostAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel() // mostly waits on the page's real-time recording and uploads; own fake server and tab
	f := newFakeSurvey(t, flowPage())
	f.dropNextUpload = true
	ctx, _ := htmltest.StartPhone(t, f.base+"/v1-capture/tok", "", "Failed to load resource")
	step := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
	if err := browser.Click(step(10*time.Second), browser.RoleButton, "Start recording"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(10*time.Second), "00:02"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Stop recording"); err != nil {
		t.Fatal(err)
	}
	// The customer retries when the page asks, as long as it asks.
	for deadline := time.Now().Add(30 * time.Second); ; {
		if v, err := browser.Value(ctx, browser.RoleProgress, "Upload of Living room clip 1"); err == nil && v == "100" {
			break
		}
		if _, err := browser.WaitFor(step(200*time.Millisecond), browser.RoleButton, "Retry upload"); err == nil {
			if err := browser.Click(step(5*time.Second), browser.RoleButton, "Retry upload"); err != nil {
				t.Fatal(err)
			}
		}
		if time.Now().After(deadline) {
			text, _ := browser.Text(ctx)
			t.Fatalf("the clip is not sent after 30 s; the page shows:\n%s", text)
		}
	}
	waitUploaded(t, step(10*time.Second), "Upload of Living room clip 1")
	htmltest.Shot(t, ctx, "retry-after-lost-answer")
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.announced) == 0 || f.uploadsExisted == 0 {
		t.Fatalf("%d clip requests, %d PUTs answered 412; want the stored clip's PUT refused at least once", len(f.announced), f.uploadsExisted)
	}
	uploads := 0
	for _, ev := range f.events {
		if strings.HasPrefix(ev, "upload ") {
			uploads++
		}
	}
	if c := f.announced[0]; uploads != 1 || f.uploads[c.ClipID] != int(c.Size) {
		t.Errorf("events %v, uploads %v; want the clip stored once, whole", f.events, f.uploads)
	}
}

// waitUploaded waits until the named upload progress bar is full and a
// clip's row says it was sent (or, already, what the check found).
func waitUploaded(t *testing.T, ctx context.Context, progress string) {
	t.Helper()
	for {
		v, err := browser.Value(ctx, browser.RoleProgress, progress)
		if err == nil && v == "100" {
			// The row says "Sent" until the server's verdict replaces it,
			// which on a busy machine can come before the next look.
			if _, err := browser.WaitAnyText(ctx, "Sent", "Received", "Checked:", "Could not be used"); err != nil {
				t.Fatal(err)
			}
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

// TestFilePickerWhenTheBrowserCannotRecord opens the page again (one clip
// and a checklist saved earlier) in a browser without MediaRecorder: it
// offers the camera app through the file input, refuses a file over the
// size limit before uploading, sends one that fits, and refuses a clip over
// the survey's limit.
func TestFilePickerWhenTheBrowserCannotRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	p := flowPage()
	p.MaxClipBytes = 4000
	p.ClipsMax = 2
	p.Clips = []Clip{{ID: "9b2f0000-0000-4000-8000-000000000001", Room: "Kitchen", Verdict: "checked", At: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}
	p.ClipsUsed = 1
	p.Checklist = map[string]map[string]int{"Kitchen": {"stove": 1}, "Shed": {"box_large": 4}}
	f := newFakeSurvey(t, p)
	ctx := startPhone(t, f, "/v1-capture/tok", `delete window.MediaRecorder;`)
	step := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
	if err := browser.WaitText(step(10*time.Second), "Tap “Upload a video” below to film with your camera app instead."); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.Find(ctx, browser.RoleButton, "Start recording"); err == nil {
		t.Error("Start recording is offered without MediaRecorder")
	}
	capture, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("file").getAttribute("capture")`))
	if err != nil || capture != "environment" {
		t.Errorf("file input capture = %q, %v; want environment", capture, err)
	}
	htmltest.Shot(t, ctx, "6-no-recorder")

	dir := t.TempDir()
	big, small := filepath.Join(dir, "big.webm"), filepath.Join(dir, "kitchen.webm")
	os.WriteFile(big, make([]byte, 5000), 0o644)
	os.WriteFile(small, make([]byte, 3000), 0o644)
	if err := browser.SetFiles(step(5*time.Second), "Upload a video", big); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(5*time.Second), "larger than the"); err != nil {
		t.Error(err)
	}
	if err := browser.Fill(step(5*time.Second), browser.RoleCombobox, "Room", "Kitchen"); err != nil {
		t.Fatal(err)
	}
	if err := browser.SetFiles(step(5*time.Second), "Upload a video", small); err != nil {
		t.Fatal(err)
	}
	if v, err := browser.Value(ctx, browser.RoleSpinbutton, "Stove"); err != nil || v != "1" {
		t.Errorf("the Kitchen's stoves = %q, %v; want the saved 1", v, err)
	}
	waitUploaded(t, step(20*time.Second), "Upload of Kitchen clip 2")
	if err := browser.WaitText(step(5*time.Second), "2 of 2 clips used"); err != nil {
		t.Error(err)
	}
	htmltest.Shot(t, ctx, "7-file-uploaded")
	if err := browser.SetFiles(step(5*time.Second), "Upload a video", small); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(5*time.Second), "This link takes at most 2 clips, and you have used them all."); err != nil {
		t.Error(err)
	}
	// A room named in an earlier visit is offered again, with its counts.
	if err := browser.Fill(step(5*time.Second), browser.RoleCombobox, "Room", "Shed"); err != nil {
		t.Fatal(err)
	}
	if v, err := browser.Value(ctx, browser.RoleSpinbutton, "Box, large (4.5 cu ft)"); err != nil || v != "4" {
		t.Errorf("the Shed's large boxes = %q, %v; want the saved 4", v, err)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.announced) != 1 || f.announced[0].Size != 3000 || f.announced[0].Room != "Kitchen" || f.announced[0].ContentType != "video/webm" {
		t.Errorf("clip requests %+v; want only the kitchen clip", f.announced)
	}
}

// TestLinkThatNoLongerWorks shows the page switching to "this link no
// longer works" when a call answers 410, and the error pages.
func TestLinkThatNoLongerWorks(t *testing.T) {
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
	if _, err := browser.WaitFor(step(10*time.Second), browser.RoleButton, "Finish survey"); err != nil {
		t.Fatal(err)
	}
	// The link expires while the page is open: finishing says so.
	f.mu.Lock()
	f.expired = true
	f.mu.Unlock()
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Finish survey"); err != nil {
		t.Fatal(err)
	}
	if err := browser.Click(step(5*time.Second), browser.RoleButton, "Finish without video"); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitText(step(10*time.Second), "This link no longer works"); err != nil {
		t.Fatal(err)
	}
	htmltest.Shot(t, ctx, "8-link-dead")
	for _, tc := range []struct{ path, want, name string }{
		{"/v1-capture/expired", "Please ask Demo Movers for a new link.", "9-error-410"},
		{"/v1-capture/finished", "Thank you, Demo Movers will be in touch", "10-error-409"},
		{"/v1-capture/unknown", "ask the moving company to send you a new link", "11-error-404"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(f.base+tc.path)); err != nil {
			t.Fatal(err)
		}
		if err := browser.WaitText(step(5*time.Second), tc.want); err != nil {
			t.Error(err)
		}
		htmltest.Shot(t, ctx, tc.name)
	}
}
