// Command genclips records real MediaRecorder clips with Debian's headless
// Chromium and its fake camera, for shared/domain/clip's test fixtures. It serves a
// page on 127.0.0.1 that records each requested MIME type for a couple of
// seconds and POSTs the blob back; the blobs are written to -out. It needs
// the chromium package (apt-get install -y --no-install-recommends chromium)
// and is never run by tests: its output is committed under
// shared/domain/clip/testdata (see the README there).
//
//	go run ./scripts/genclips -out shared/domain/clip/testdata
//
// It exits 1 when Chromium cannot start, a recording fails or nothing
// arrives within -timeout.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// recording is one clip the page makes.
type recording struct {
	File string // written under -out
	Mime string // passed to MediaRecorder
	Ms   int    // how long to record
}

var recordings = []recording{
	{File: "mediarecorder-vp8-opus.webm", Mime: "video/webm;codecs=vp8,opus", Ms: 2000},
	{File: "mediarecorder-vp9.webm", Mime: "video/webm;codecs=vp9", Ms: 2000},
	{File: "mediarecorder-vp9-opus.mp4", Mime: "video/mp4", Ms: 2000},
}

const page = `<!doctype html><meta charset="utf-8"><title>genclips</title><script>
const recs = %s;
async function record(r) {
  const s = await navigator.mediaDevices.getUserMedia({
    video: {width: 160, height: 120, frameRate: 15}, audio: r.Mime.includes("opus") || r.Mime === "video/mp4"});
  if (!MediaRecorder.isTypeSupported(r.Mime)) throw new Error("unsupported " + r.Mime);
  const mr = new MediaRecorder(s, {mimeType: r.Mime, videoBitsPerSecond: 60000, audioBitsPerSecond: 24000});
  const chunks = [];
  mr.ondataavailable = e => chunks.push(e.data);
  const stopped = new Promise(res => mr.onstop = res);
  mr.start(500); // timeslices, as the capture page records
  await new Promise(res => setTimeout(res, r.Ms));
  mr.stop();
  await stopped;
  s.getTracks().forEach(t => t.stop());
  await fetch("/clip?file=" + encodeURIComponent(r.File), {method: "POST", body: new Blob(chunks, {type: mr.mimeType})});
}
(async () => {
  try { for (const r of recs) await record(r); await fetch("/done", {method: "POST"}); }
  catch (e) { await fetch("/fail", {method: "POST", body: String(e)}); }
})();
</script>`

func main() {
	out := flag.String("out", "shared/domain/clip/testdata", "directory the clips are written to")
	browser := flag.String("chromium", "chromium", "Chromium binary")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after")
	flag.Parse()
	if err := run(*out, *browser, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "genclips:", err)
		os.Exit(1)
	}
}

func run(out, browser string, timeout time.Duration) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	done := make(chan error, 1)
	var once sync.Once
	finish := func(err error) { once.Do(func() { done <- err }) }

	var list []string
	for _, r := range recordings {
		list = append(list, fmt.Sprintf(`{"File":%q,"Mime":%q,"Ms":%d}`, r.File, r.Mime, r.Ms))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, page, "["+strings.Join(list, ",")+"]")
	})
	mux.HandleFunc("POST /clip", func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Query().Get("file"))
		body, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
		if err == nil {
			err = os.WriteFile(filepath.Join(out, name), body, 0o644)
		}
		if err != nil {
			finish(fmt.Errorf("save %s: %w", name, err))
			return
		}
		fmt.Printf("%s: %d bytes (%s)\n", name, len(body), r.Header.Get("Content-Type"))
	})
	mux.HandleFunc("POST /done", func(http.ResponseWriter, *http.Request) { finish(nil) })
	mux.HandleFunc("POST /fail", func(_ http.ResponseWriter, r *http.Request) {
		msg, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		finish(fmt.Errorf("page: %s", msg))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }() // returns ErrServerClosed at Close below
	defer srv.Close()

	profile, err := os.MkdirTemp("", "genclips-profile-")
	if err != nil {
		return fmt.Errorf("profile dir: %w", err)
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless=new", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+profile, "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
		"--no-first-run", "--disable-extensions", "http://"+ln.Addr().String()+"/")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", browser, err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("no recordings within %s", timeout)
	}
}
