package videolinks_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// clipState is what a <video> reports.
type clipState struct {
	ReadyState int     `json:"readyState"`
	Time       float64 `json:"currentTime"`
	Src        string  `json:"src"`
	Error      int     `json:"error"`
}

const clipStates = `[...document.querySelectorAll("video")].map(v => ({
	readyState: v.readyState, currentTime: v.currentTime, src: v.currentSrc, error: v.error ? v.error.code : 0}))`

// waitPlayable waits until the page has n videos, each with its current
// frame (readyState HAVE_CURRENT_DATA or more), and returns them.
func waitPlayable(t *testing.T, ctx context.Context, n int) []clipState {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var last []clipState
	for {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[[]clipState](clipStates))
		if err == nil {
			last = s
			ready := len(s) == n
			for _, v := range s {
				ready = ready && v.ReadyState >= 2 && v.Error == 0
			}
			if ready {
				return s
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("videos not playable: %+v (%v)", last, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// playEach plays every video, muted (autoplay rules allow a play() no tap
// started only then), until its currentTime moves on.
func playEach(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	for i := range n {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		played, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(async () => {
			const v = document.querySelectorAll("video")[%d];
			v.muted = true;
			const from = v.currentTime;
			await v.play();
			while (v.currentTime < from + 0.2 && !v.ended) await new Promise(r => setTimeout(r, 50));
			v.pause();
			return [from, v.currentTime];
		})()`, i), chromedp.EvalAwaitPromise))
		cancel()
		if err != nil {
			t.Fatalf("play video %d: %v", i+1, err)
		}
		if played[1] <= played[0] {
			t.Errorf("video %d went from %.3f s to %.3f s; want it to play", i+1, played[0], played[1])
		}
	}
}

// TestE2EViewerInChromium: a carrier opens a minted link on a phone and
// every clip loads and plays; after a revoke the page answers 410 on
// reload, an address loaded before the revoke still plays (it lives ten
// minutes), and nothing hands out a new one.
func TestE2EViewerInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser.Require(t)
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.MP4Clip, apitest.WebMClip)
	viewURL := want(t, e.mint(t, e.key, sv.SurveyID, `{"label":"e2e"}`), 200, "")["view_url"].(string)

	// The reload after the revoke answers 410, which the browser reports.
	console := htmltest.NewConsole(t, "Failed to load resource: the server responded with a status of 410")
	ctx, cancel, err := browser.Start(context.Background(), browser.Logf(console.Logf))
	if err != nil {
		t.Fatal(err)
	}
	defer console.Check()
	defer cancel()
	if err := chromedp.Do(ctx, browser.Phone(), chromedp.Navigate(viewURL)); err != nil {
		t.Fatal(err)
	}
	states := waitPlayable(t, ctx, 2)
	playEach(t, ctx, 2)
	for _, text := range []string{"Walkthrough video", "Shared by Demo Movers", "Living room", "Kitchen"} {
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		if err := browser.WaitText(wctx, text); err != nil {
			t.Error(err)
		}
		wcancel()
	}

	want(t, e.revoke(t, e.key, sv.SurveyID, ""), 200, "")
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	if err := browser.WaitText(wctx, "This video link is no longer available"); err != nil {
		t.Error(err)
	}
	wcancel()
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("video").length`)); err != nil || n != 0 {
		t.Errorf("page after revoke shows %d videos (%v); want none", n, err)
	}
	r := e.open(t, viewPath(t, viewURL))
	if r.Status != 410 || strings.Contains(string(r.Body), "X-Amz-") {
		t.Errorf("open after revoke -> %d; want 410 with no clip address:\n%s", r.Status, r.Body)
	}

	for _, s := range states {
		req, _ := http.NewRequest("GET", s.Src, nil)
		req.Header.Set("Range", "bytes=0-99")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 206 || len(b) != 100 {
			t.Errorf("GET of a pre-revoke address -> %d, %d bytes; want 206 with 100: %s", resp.StatusCode, len(b), b)
		}
	}
	// An address loaded before the revoke keeps playing, in a plain page
	// of the carrier's own (no policy; on loopback, as about:blank is not
	// allowed to load from a private address).
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "<!doctype html><title>player</title><body></body>")
	}))
	defer plain.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(plain.URL)); err != nil {
		t.Fatal(err)
	}
	for _, s := range states {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
			const v = document.createElement("video");
			v.src = %q; v.preload = "auto"; document.body.appendChild(v); return true; })()`, s.Src))); err != nil {
			t.Fatal(err)
		}
	}
	waitPlayable(t, ctx, len(states))
	playEach(t, ctx, len(states))
}
