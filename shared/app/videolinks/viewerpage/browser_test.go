package viewerpage

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// fixtures are the real clips the media server holds: what a phone's camera
// app and Chromium's MediaRecorder write, under the content types and with
// the durations the clip processor records for them, and the name their
// card's heading gets.
var fixtures = []struct {
	room, file, contentType string
	duration                time.Duration
	heading                 string
}{
	{"Living room", "h264.mp4", "video/mp4", 2 * time.Second, "Clip 1 of 3: Living room, 0:02"},
	{"Kitchen", "mediarecorder-vp8-opus.webm", "video/webm", 1920 * time.Millisecond, "Clip 2 of 3: Kitchen, 0:01"},
	{"Main bedroom", "h264-aac.mov", "video/quicktime", 2 * time.Second, "Clip 3 of 3: Main bedroom, 0:02"},
}

// mediaServer stands in for S3's presigned GETs on its own origin: it
// serves the fixtures with their content types and Range support, and
// records the requests.
type mediaServer struct {
	*httptest.Server
	mu       sync.Mutex
	ranges   int      // requests with a Range header
	referers []string // Referer headers received, which must be none
}

func newMediaServer(t *testing.T) *mediaServer {
	t.Helper()
	m := &mediaServer{}
	files := map[string][]byte{}
	types := map[string]string{}
	for _, f := range fixtures {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "domain", "clip", "testdata", f.file))
		if err != nil {
			t.Fatal(err)
		}
		files["/clips/"+f.file] = b
		types["/clips/"+f.file] = f.contentType
	}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		if r.Header.Get("Range") != "" {
			m.ranges++
		}
		if ref := r.Header.Get("Referer"); ref != "" {
			m.referers = append(m.referers, ref)
		}
		m.mu.Unlock()
		b, ok := files[r.URL.Path]
		if !ok || r.URL.Query().Get("X-Amz-Signature") == "" {
			http.Error(w, "AccessDenied", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", types[r.URL.Path])
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(m.Close)
	return m
}

// viewerSite serves the viewer page and its error pages, as the viewer
// function does, on an origin other than the media's.
func viewerSite(t *testing.T, media *mediaServer) string {
	t.Helper()
	p := Page{
		Company:       "Demo Movers",
		LinkExpiresAt: time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC),
		AddressTTL:    10 * time.Minute,
		MediaOrigin:   media.URL,
	}
	for _, f := range fixtures {
		p.Clips = append(p.Clips, Clip{
			Room: f.room, Duration: f.duration, ContentType: f.contentType,
			URL: media.URL + "/clips/" + f.file + "?X-Amz-Expires=600&X-Amz-Signature=0123abcd",
		})
	}
	// The same page with a policy naming another origin: its videos must
	// not load.
	wrong := p
	wrong.MediaOrigin = "http://127.0.0.1:1"
	pages := map[string]Document{
		"/v/tok":     Render(p),
		"/v/wrong":   Render(wrong),
		"/v/unknown": ErrorPage(404, 0),
		"/v/gone":    ErrorPage(410, 0),
		"/v/busy":    ErrorPage(429, 17*time.Minute+10*time.Second),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := pages[r.URL.Path]
		if !ok {
			d = ErrorPage(404, 0)
		}
		for k, v := range d.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(d.Status)
		w.Write(d.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// startPhone starts the browser with a phone-sized tab and opens url. The
// test fails on an error, an exception or a Content-Security-Policy
// violation in the browser's console, except the lines allow matches.
func startPhone(t *testing.T, url string, allow ...string) (context.Context, *htmltest.Console) {
	t.Helper()
	return htmltest.StartPhone(t, url, "", allow...)
}

func within(t *testing.T, ctx context.Context, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return c
}

// videoState is what a <video> reports.
type videoState struct {
	ReadyState  int     `json:"readyState"`
	Network     int     `json:"networkState"`
	CurrentTime float64 `json:"currentTime"`
	Duration    float64 `json:"duration"`
	Src         string  `json:"src"`
	Error       int     `json:"error"`
	Width       int     `json:"width"`
}

const videoStates = `[...document.querySelectorAll("video")].map(v => ({
	readyState: v.readyState, networkState: v.networkState, currentTime: v.currentTime,
	duration: isFinite(v.duration) ? v.duration : -1, src: v.currentSrc,
	error: v.error ? v.error.code : 0, width: v.videoWidth}))`

// waitVideos waits until every video on the page has its current frame
// (readyState HAVE_CURRENT_DATA or more) and a known duration (a WebM
// without a Duration element reports Infinity until the player has found
// its end, later than its first frame on a loaded machine), and returns
// their states.
func waitVideos(t *testing.T, ctx context.Context) []videoState {
	t.Helper()
	var last []videoState
	for {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[[]videoState](videoStates))
		if err == nil {
			last = s
			ready := len(s) > 0
			for _, v := range s {
				ready = ready && v.ReadyState >= 2 && v.Duration >= 0
			}
			if ready {
				return s
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("videos not ready: %+v (%v)", last, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// settle waits until every video has loaded enough to play through and
// its controls have had time to drop the loading spinner.
func settle(t *testing.T, ctx context.Context) {
	t.Helper()
	for {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[[]videoState](videoStates))
		done := err == nil
		for _, v := range s {
			done = done && v.ReadyState == 4
		}
		if done {
			time.Sleep(time.Second)
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("videos not loaded: %+v (%v)", s, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestClipsPlayInChromium opens a page of three clips (MP4, MediaRecorder
// WebM, QuickTime) whose addresses are on another origin, as S3's are, and
// checks that each shows its first frame and plays, that the policy allowed
// every request and the media origin got no Referer.
func TestClipsPlayInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	media := newMediaServer(t)
	site := viewerSite(t, media)
	ctx, _ := startPhone(t, site+"/v/tok")

	states := waitVideos(t, within(t, ctx, 15*time.Second))
	if len(states) != len(fixtures) {
		t.Fatalf("%d videos; want %d", len(states), len(fixtures))
	}
	for i, s := range states {
		if !strings.HasPrefix(s.Src, media.URL+"/clips/"+fixtures[i].file+"?") || s.Error != 0 || s.Width == 0 {
			t.Errorf("video %d (%s) = %+v; want it loaded from the media server", i+1, fixtures[i].file, s)
		}
		// The card's duration is the player's: both round down.
		if math.Abs(s.Duration-fixtures[i].duration.Seconds()) > 0.05 {
			t.Errorf("video %d lasts %.2f s; the card says %v", i+1, s.Duration, fixtures[i].duration)
		}
	}
	for _, text := range []string{"Shared by Demo Movers", "3 rooms", "3 clips", "0:05 in total", "Living room", "Kitchen", "Main bedroom",
		"This link works until Monday, November 30, 2026 at"} {
		if err := browser.WaitText(within(t, ctx, 5*time.Second), text); err != nil {
			t.Error(err)
		}
	}
	// Every card's heading names the clip, as a screen reader announces it.
	for _, f := range fixtures {
		if _, err := browser.Find(ctx, browser.RoleHeading, f.heading); err != nil {
			t.Errorf("heading %q: %v", f.heading, err)
		}
	}
	// Let the players finish loading, so the shot shows no spinner.
	settle(t, within(t, ctx, 10*time.Second))
	htmltest.Shot(t, ctx, "viewer-page")

	// Play each clip, muted as autoplay rules require of a play() that no
	// tap started, until its time moves on.
	for i := range fixtures {
		played, err := chromedp.Run(within(t, ctx, 10*time.Second), chromedp.Evaluate[[]float64](fmt.Sprintf(`(async () => {
			const v = document.querySelectorAll("video")[%d];
			v.muted = true;
			const from = v.currentTime;
			await v.play();
			while (v.currentTime < from + 0.3 && !v.ended) await new Promise(r => setTimeout(r, 50));
			v.pause();
			return [from, v.currentTime];
		})()`, i), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Errorf("play video %d (%s): %v", i+1, fixtures[i].file, err)
			continue
		}
		if played[1] <= played[0] {
			t.Errorf("video %d (%s) went from %.3f s to %.3f s; want it to play", i+1, fixtures[i].file, played[0], played[1])
		}
	}

	media.mu.Lock()
	defer media.mu.Unlock()
	if media.ranges == 0 {
		t.Error("the browser sent no Range request; the test does not exercise Range support")
	}
	if len(media.referers) > 0 {
		t.Errorf("the media origin got Referer %q; the page's address must not leave it", media.referers)
	}
}

// TestPolicyBlocksMediaFromAnotherOrigin renders the page with a media
// origin other than the clips': the browser must refuse the clips, which
// shows the policy's media-src is what lets them load.
func TestPolicyBlocksMediaFromAnotherOrigin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	media := newMediaServer(t)
	site := viewerSite(t, media)
	ctx, log := startPhone(t, site+"/v/wrong", "Content Security Policy", "Refused to")
	deadline := within(t, ctx, 10*time.Second)
	for !log.Saw("Content Security Policy") {
		select {
		case <-deadline.Done():
			t.Fatal("no Content-Security-Policy violation reported")
		case <-time.After(100 * time.Millisecond):
		}
	}
	states, err := chromedp.Run(ctx, chromedp.Evaluate[[]videoState](videoStates))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range states {
		if s.ReadyState != 0 || s.Width != 0 {
			t.Errorf("video %d loaded (%+v) though the policy names another origin", i+1, s)
		}
	}
}

// TestErrorPagesInChromium opens the 404, 410 and 429 pages and checks
// that a person sees what happened and what to do.
func TestErrorPagesInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	site := viewerSite(t, newMediaServer(t))
	ctx, _ := startPhone(t, site+"/v/gone", "Failed to load resource: the server responded with a status of")
	for _, tc := range []struct{ path, title, what string }{
		{"/v/gone", "This video link is no longer available", "ask them for a new link"},
		{"/v/unknown", "We can’t find this video link", "Check that you opened the whole link"},
		{"/v/busy", "This link has been opened many times in the last hour", "Please try again in 18 minutes."},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.Navigate(site+tc.path)); err != nil {
				t.Fatal(err)
			}
			if _, err := browser.WaitFor(within(t, ctx, 5*time.Second), browser.RoleHeading, tc.title); err != nil {
				t.Error(err)
			}
			if err := browser.WaitText(within(t, ctx, 5*time.Second), tc.what); err != nil {
				t.Error(err)
			}
			htmltest.Shot(t, ctx, "viewer-error"+strings.ReplaceAll(tc.path, "/", "-"))
		})
	}
}
