package detectlocal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/local/childproc"
	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// send sends one request to the sidecar and returns the status and body.
func send(t *testing.T, method, url string, body io.Reader, contentLength int64) (int, string) {
	t.Helper()
	status, b, err := do(method, url, body, contentLength)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return status, b
}

// do sends one request without keeping the connection or using a proxy.
func do(method, url string, body io.Reader, contentLength int64) (int, string, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return 0, "", err
	}
	req.ContentLength = contentLength
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestSidecarRoutes(t *testing.T) {
	s := sidecar(t)
	tests := []struct {
		name, method, path string
		wantStatus         int
		wantBody           string
	}{
		{"health", "GET", "/healthz", 200, `"status":"ok"`},
		{"detect needs POST", "GET", "/detect", 405, `"error":"use POST"`},
		{"unknown path", "GET", "/", 404, `"error":"not found"`},
		{"health needs GET", "POST", "/healthz", 405, `"error":"use GET"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := send(t, tt.method, s.Endpoint+tt.path, nil, 0)
			if status != tt.wantStatus || !strings.Contains(body, tt.wantBody) {
				t.Errorf("%s %s = %d %s; want %d with %s", tt.method, tt.path, status, body, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

// TestSidecarAnswersJSON pins down the answer's shape, which the Go client
// and the report depend on.
func TestSidecarAnswersJSON(t *testing.T) {
	s := sidecar(t)
	f := frame(t, "bedroom.jpg")
	status, body := send(t, "POST", s.Endpoint+detectPath, bytes.NewReader(f), int64(len(f)))
	if status != 200 {
		t.Fatalf("POST /detect = %d %s; want 200", status, body)
	}
	var got struct {
		Detections []struct {
			Label string    `json:"label"`
			Score float64   `json:"score"`
			Box   []float64 `json:"box"`
		} `json:"detections"`
		MS            *int `json:"ms"`
		Width, Height int
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	if got.MS == nil || *got.MS <= 0 || got.Width != 640 || got.Height != 480 || len(got.Detections) == 0 {
		t.Errorf("answer %s; want ms > 0, width 640, height 480 and detections", body)
	}
}

// TestSidecarRefusesLargeBodies: over MaxFrameBytes is 413, whether the
// length is declared or the body is streamed without one.
func TestSidecarRefusesLargeBodies(t *testing.T) {
	s := sidecar(t)
	big := append([]byte{0xff, 0xd8, 0xff, 0xe0}, make([]byte, MaxFrameBytes)...)
	t.Run("declared", func(t *testing.T) {
		if status, body := send(t, "POST", s.Endpoint+detectPath, bytes.NewReader(big), int64(len(big))); status != 413 {
			t.Errorf("POST of %d bytes = %d %s; want 413", len(big), status, body)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		// A reader that is not a *bytes.Reader and length -1: chunked.
		if status, body := send(t, "POST", s.Endpoint+detectPath, io.MultiReader(bytes.NewReader(big)), -1); status != 413 {
			t.Errorf("chunked POST of %d bytes = %d %s; want 413", len(big), status, body)
		}
	})
	if _, err := s.Client().Detect(context.Background(), frame(t, "bedroom.jpg")); err != nil {
		t.Errorf("Detect after the large bodies: %v", err)
	}
}

// TestDetectWithKilledSidecar: once the sidecar is gone, Detect fails at
// once with an error that is not ErrBadFrame, and Stop reports the death.
func TestDetectWithKilledSidecar(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the detector sidecar (Node.js, CenterNet)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	began := time.Now()
	s, err := Start(ctx)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("sidecar ready at %s after %v", s.Endpoint, time.Since(began).Round(time.Millisecond))
	defer s.Stop()
	c := s.Client()
	f := frame(t, "bedroom.jpg")
	if _, err := c.Detect(ctx, f); err != nil {
		t.Fatalf("Detect before the kill: %v", err)
	}

	p, err := os.FindProcess(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if err := childproc.KillGroup(p); err != nil {
		t.Fatalf("kill: %v", err)
	}
	<-s.proc.Done()

	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	start := time.Now()
	_, err = c.Detect(dctx, f)
	if err == nil || errors.Is(err, inventory.ErrBadFrame) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Detect after the kill = %v; want a connection error, not ErrBadFrame nor a timeout", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Detect after the kill took %v; want it to fail at once", took)
	}
	if err := s.Stop(); err == nil || !strings.Contains(err.Error(), "exited by itself") {
		t.Errorf("Stop after the kill = %v; want an error saying it exited by itself", err)
	}
}

func TestStartHonoursCanceledContext(t *testing.T) {
	if testing.Short() {
		t.Skip("may install the detector")
	}
	childproctest.StartHonoursCanceledContext(t, forTestsTimeout, installOnly, Start)
}

// TestSidecarQueueIsBounded runs a sidecar that lets one frame wait and
// holds that place with a frame whose body arrives slowly: another frame
// is answered 503 at once, which Detect reports as a plain error, and the
// slow frame is detected once its body is complete.
func TestSidecarQueueIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the detector sidecar (Node.js, CenterNet)")
	}
	queueLimit = 1
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	s, err := Start(ctx)
	queueLimit = maxQueue
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer s.Stop()
	f := frame(t, "living-room.jpg")

	body, w := io.Pipe()
	slow := make(chan error, 1)
	go func() {
		status, answer, err := do("POST", s.Endpoint+detectPath, body, int64(len(f)))
		if err == nil && status != 200 {
			err = fmt.Errorf("answered %d %s", status, answer)
		}
		slow <- err
	}()
	if _, err := w.Write(f[:1000]); err != nil {
		t.Fatalf("write the start of the slow frame: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, health := send(t, "GET", s.Endpoint+healthPath, nil, 0); strings.Contains(health, `"queued":1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sidecar did not count the slow frame as waiting within 10 s")
		}
	}

	_, err = s.Client().Detect(ctx, f)
	if err == nil || !strings.Contains(err.Error(), "503 Service Unavailable") || errors.Is(err, inventory.ErrBadFrame) {
		t.Errorf("Detect while a frame waits = %v; want a plain 503 error", err)
	}

	if _, err := w.Write(f[1000:]); err != nil {
		t.Fatalf("write the rest of the slow frame: %v", err)
	}
	w.Close()
	if err := <-slow; err != nil {
		t.Errorf("slow frame: %v; want 200", err)
	}
	if _, err := s.Client().Detect(ctx, f); err != nil {
		t.Errorf("Detect once the queue is free: %v", err)
	}
}

// installOnly installs the server (for StartHonoursCanceledContext).
func installOnly(ctx context.Context) error {
	_, err := Install(ctx)
	return err
}
