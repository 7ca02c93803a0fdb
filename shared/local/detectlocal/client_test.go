package detectlocal

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

// These tests need no Node.js: an httptest server plays the sidecar.

var someJPEG = []byte{0xff, 0xd8, 0xff, 0xe0, 0, 0x10}

// fakeSidecar answers POST /detect with status and body.
func fakeSidecar(t *testing.T, status int, body string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != detectPath || r.Header.Get("Content-Type") != "image/jpeg" {
			http.Error(w, "want POST /detect of image/jpeg", http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if status/100 == 3 {
			w.Header().Set("Location", "/elsewhere") // answers 418 if followed
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return NewClient(srv.URL + "/")
}

func TestDetectDecodesAnswer(t *testing.T) {
	c := fakeSidecar(t, http.StatusOK, `{"detections":[
		{"label":"couch","score":0.81,"box":[0.1,0.2,0.3,0.4]},
		{"label":"potted plant","score":0.2,"box":[0,0,1,1]}],"ms":412}`)
	got, err := c.Detect(context.Background(), someJPEG)
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	want := []inventory.Detection{
		{Label: "couch", Confidence: 0.81, Box: inventory.Box{Left: 0.1, Top: 0.2, Width: 0.3, Height: 0.4}},
		{Label: "potted plant", Confidence: 0.2, Box: inventory.Box{Width: 1, Height: 1}},
	}
	if !slices.EqualFunc(got, want, func(a, b inventory.Detection) bool {
		return a.Label == b.Label && a.Confidence == b.Confidence && a.Box == b.Box && a.Parents == nil
	}) {
		t.Errorf("Detect = %+v; want %+v", got, want)
	}
}

func TestDetectNothingFoundIsEmptyNotNil(t *testing.T) {
	got, err := fakeSidecar(t, http.StatusOK, `{"detections":[],"ms":300}`).Detect(context.Background(), someJPEG)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("Detect = %#v, %v; want an empty non-nil slice, nil", got, err)
	}
}

func TestDetectErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		badFrame bool   // the error wraps ErrBadFrame
		says     string // the error contains this
	}{
		{"400 not a jpeg", 400, `{"error":"not a JPEG the detector reads: marker was not found"}`, true, "marker was not found"},
		{"413 too large", 413, `{"error":"frame larger than 5242880 bytes"}`, true, "413"},
		{"503 busy", 503, `{"error":"16 frames are waiting; try again"}`, false, "16 frames are waiting"},
		{"500", 500, `{"error":"internal error"}`, false, "500"},
		{"404 not a sidecar", 404, `404 page not found`, false, "404 page not found"},
		{"redirect is not followed", 307, ``, false, "307"},
		{"not json", 200, `<html>`, false, "decode answer"},
		{"no detections list", 200, `{"ms":3}`, false, "no detections list"},
		{"score over 1", 200, `{"detections":[{"label":"tv","score":1.5,"box":[0,0,1,1]}]}`, false, "malformed"},
		{"no label", 200, `{"detections":[{"label":"","score":0.5,"box":[0,0,1,1]}]}`, false, "malformed"},
		{"box of three", 200, `{"detections":[{"label":"tv","score":0.5,"box":[0,0,1]}]}`, false, "malformed"},
		{"box outside the frame", 200, `{"detections":[{"label":"tv","score":0.5,"box":[0,0,1.2,1]}]}`, false, "outside the frame"},
		{"answer too long", 200, `{"detections":[` + strings.Repeat(" ", maxResponseBytes) + `]}`, false, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fakeSidecar(t, tt.status, tt.body).Detect(context.Background(), someJPEG)
			if err == nil {
				t.Fatalf("Detect = %+v, nil; want an error", got)
			}
			if errors.Is(err, inventory.ErrBadFrame) != tt.badFrame {
				t.Errorf("Detect error %q wraps ErrBadFrame: %v; want %v", err, !tt.badFrame, tt.badFrame)
			}
			if !strings.Contains(err.Error(), tt.says) || !strings.HasPrefix(err.Error(), "detect with centernet-coco: ") {
				t.Errorf("Detect error %q; want it to start with the detector's name and say %q", err, tt.says)
			}
		})
	}
}

// TestDetectRefusesBadFramesLocally: an empty or oversized frame is not
// sent at all.
func TestDetectRefusesBadFramesLocally(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer srv.Close()
	c := NewClient(srv.URL)
	for _, f := range [][]byte{nil, {}, make([]byte, MaxFrameBytes+1)} {
		if _, err := c.Detect(context.Background(), f); !errors.Is(err, inventory.ErrBadFrame) {
			t.Errorf("Detect(%d bytes) = %v; want ErrBadFrame", len(f), err)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d requests reached the sidecar; want 0", n)
	}
}

// TestDetectHonoursContext: a sidecar that never answers holds Detect only
// as long as ctx allows.
func TestDetectHonoursContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := NewClient(srv.URL).Detect(ctx, someJPEG)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, inventory.ErrBadFrame) {
		t.Errorf("Detect = %v; want context.DeadlineExceeded, not ErrBadFrame", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Detect took %v; want about 200ms", took)
	}
}

// TestDetectNeverUsesAProxy points the proxy variables at a recording
// proxy and the client at a host only a proxy could reach: the request
// fails without reaching the proxy.
func TestDetectNeverUsesAProxy(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"detections":[],"ms":1}`))
	}))
	defer proxy.Close()
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		t.Setenv(k, proxy.URL)
	}
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		t.Setenv(k, "")
	}
	c := NewClient("http://detector.invalid:8080")
	if tr, ok := c.http.Transport.(*http.Transport); !ok || tr.Proxy != nil {
		t.Errorf("transport %T with Proxy set; want *http.Transport with Proxy nil", c.http.Transport)
	}
	if _, err := c.Detect(context.Background(), someJPEG); err == nil {
		t.Error("Detect through the proxy succeeded; want a failure to reach detector.invalid")
	}
	if n := proxied.Load(); n != 0 {
		t.Errorf("%d requests went to the proxy; want 0", n)
	}
}

func TestName(t *testing.T) {
	var d inventory.Detector = NewClient("http://127.0.0.1:1")
	if got := d.Name(); got != "centernet-coco" {
		t.Errorf("Name() = %q; want centernet-coco", got)
	}
}

func TestSidecarEnv(t *testing.T) {
	got := sidecarEnv([]string{"PATH=/bin", "NODE_OPTIONS=--require /tmp/x.js", "NODE_PATH=/x", "NODE_ENV=production", "HOME=/root"})
	want := []string{"PATH=/bin", "NODE_ENV=production", "HOME=/root"}
	if !slices.Equal(got, want) {
		t.Errorf("sidecarEnv() = %q; want %q", got, want)
	}
}

func TestForTestsUsesRunningSidecar(t *testing.T) {
	t.Setenv(URLEnv, "http://127.0.0.1:9")
	srv, stop, err := ForTests()
	if err != nil || srv.Endpoint != "http://127.0.0.1:9" {
		t.Fatalf("ForTests() = %+v, %v; want the endpoint of %s", srv, err, URLEnv)
	}
	stop()
	if err := srv.Stop(); err != nil {
		t.Errorf("Stop of a sidecar ForTests did not start = %v; want nil", err)
	}
}
