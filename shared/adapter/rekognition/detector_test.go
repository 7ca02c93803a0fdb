package rekognition

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

// countLabels returns how many detections carry each label.
func countLabels(found []inventory.Detection) map[string]int {
	n := map[string]int{}
	for _, d := range found {
		n[d.Label]++
	}
	return n
}

func TestDetectSendsRekognitionsRequest(t *testing.T) {
	f := newFake(t, func(int, received) reply { return fixture(t, "composed-living-room.json") })
	d := newDetector(t, f, Options{MinConfidence: 60, MaxLabels: 250})
	frame := bytes.Repeat([]byte{0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x84, 0x7F}, 150_000) // ~1 MB, every base64 alphabet edge
	if _, err := d.Detect(context.Background(), frame); err != nil {
		t.Fatalf("Detect: %v", err)
	}
	if f.count() != 1 {
		t.Fatalf("requests = %d; want 1", f.count())
	}
	got := f.request(0)
	if !bytes.Equal(got.image, frame) {
		t.Errorf("Image.Bytes decodes to %d bytes, not the frame's %d", len(got.image), len(frame))
	}
	if !slices.Equal(got.features, []string{"GENERAL_LABELS"}) {
		t.Errorf("Features = %q; want [GENERAL_LABELS]", got.features)
	}
	if got.maxLabels != 250 || got.minConfidence != 60 {
		t.Errorf("MaxLabels, MinConfidence = %d, %v; want 250, 60", got.maxLabels, got.minConfidence)
	}
}

func TestDetectDefaults(t *testing.T) {
	f := newFake(t, func(int, received) reply { return fixture(t, "recorded-city-scene.json") })
	d := newDetector(t, f, Options{})
	found, err := d.Detect(context.Background(), jpegOf("street"))
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	if len(found) != 0 {
		t.Errorf("scene labels only gave %d detections; want 0", len(found))
	}
	got := f.request(0)
	if got.maxLabels != DefaultMaxLabels || got.minConfidence != DefaultMinConfidence {
		t.Errorf("MaxLabels, MinConfidence = %d, %v; want %d, %d", got.maxLabels, got.minConfidence, DefaultMaxLabels, DefaultMinConfidence)
	}
	if d.Name() != "rekognition" {
		t.Errorf("Name() = %q; want rekognition", d.Name())
	}
}

// Three chairs in one frame are three detections; a couch keeps its
// parent; scene labels give nothing.
func TestDetectOneDetectionPerInstance(t *testing.T) {
	f := newFake(t, func(int, received) reply { return fixture(t, "composed-living-room.json") })
	d := newDetector(t, f, Options{})
	found, err := d.Detect(context.Background(), jpegOf("living room"))
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	got := countLabels(found)
	want := map[string]int{"Chair": 3, "Couch": 1, "Coffee Table": 1}
	if len(got) != len(want) {
		t.Errorf("labels %v; want %v", got, want)
	}
	for label, n := range want {
		if got[label] != n {
			t.Errorf("%s: %d detections; want %d", label, got[label], n)
		}
	}
	for _, d := range found {
		switch d.Label {
		case "Couch":
			if !slices.Equal(d.Parents, []string{"Furniture"}) {
				t.Errorf("Couch parents %q; want [Furniture]", d.Parents)
			}
		case "Coffee Table":
			if !slices.Equal(d.Parents, []string{"Furniture", "Table"}) {
				t.Errorf("Coffee Table parents %q; want [Furniture Table]", d.Parents)
			}
		}
	}
}

func TestDetectAllKeepsFrameOrder(t *testing.T) {
	fixtures := map[string]string{
		"street":      "aws-cli-street.json",
		"living room": "composed-living-room.json",
		"phone":       "devguide-mobile-phone.json",
		"city":        "recorded-city-scene.json",
	}
	f := newFake(t, func(_ int, in received) reply {
		return fixture(t, fixtures[string(in.image[4:])])
	})
	d := newDetector(t, f, Options{})
	names := []string{"street", "living room", "phone", "city", "street"}
	var frames [][]byte
	for _, n := range names {
		frames = append(frames, jpegOf(n))
	}
	found, errs := d.DetectAll(context.Background(), frames)
	want := []int{26, 5, 1, 0, 26}
	for i := range names {
		if errs[i] != nil || len(found[i]) != want[i] {
			t.Errorf("frame %d (%s): %d detections, error %v; want %d, nil", i, names[i], len(found[i]), errs[i], want[i])
		}
	}
}

// At most Options.Concurrency calls are in flight at the fake, however
// many frames and callers.
func TestConcurrencyIsBounded(t *testing.T) {
	for _, limit := range []int{1, 3, DefaultConcurrency} {
		f := newFake(t, func(int, received) reply { return fixture(t, "devguide-mobile-phone.json") })
		f.gate, f.gateSize, f.delay = make(chan struct{}), limit, 5*time.Millisecond
		d := newDetector(t, f, Options{Concurrency: limit})
		frames := make([][]byte, 24)
		for i := range frames {
			frames[i] = jpegOf("frame")
		}
		done := make(chan struct{})
		go func() { // another caller sharing the Detector
			defer close(done)
			for range 4 {
				if _, err := d.Detect(context.Background(), jpegOf("frame")); err != nil {
					t.Errorf("Detect: %v", err)
				}
			}
		}()
		_, errs := d.DetectAll(context.Background(), frames)
		<-done
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("DetectAll: %v", err)
		}
		if f.count() != 28 {
			t.Errorf("limit %d: %d requests; want 28", limit, f.count())
		}
		if f.peak() != limit {
			t.Errorf("limit %d: %d requests were in flight at once", limit, f.peak())
		}
	}
}

func TestBadFramesAreRefusedBeforeAnyRequest(t *testing.T) {
	f := newFake(t, func(int, received) reply { return fixture(t, "devguide-mobile-phone.json") })
	d := newDetector(t, f, Options{})
	for name, frame := range map[string][]byte{
		"empty":     nil,
		"over 5 MB": make([]byte, MaxFrameBytes+1),
	} {
		if _, err := d.Detect(context.Background(), frame); !errors.Is(err, inventory.ErrBadFrame) {
			t.Errorf("%s: error %v; want ErrBadFrame", name, err)
		}
	}
	if f.count() != 0 {
		t.Errorf("%d requests; want 0", f.count())
	}
	if _, err := d.Detect(context.Background(), make([]byte, MaxFrameBytes)); err != nil {
		t.Errorf("a frame of exactly %d bytes: %v", MaxFrameBytes, err)
	}
}

func TestContextCancellation(t *testing.T) {
	t.Run("during a request", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		arrived := make(chan struct{}, 1)
		f := newFake(t, func(int, received) reply { arrived <- struct{}{}; return reply{hold: hold} })
		d := newDetector(t, f, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		start := time.Now()
		_, err := d.Detect(ctx, jpegOf("x"))
		if !errors.Is(err, context.Canceled) || f.count() != 1 {
			t.Errorf("error %v after %d requests; want context.Canceled after 1", err, f.count())
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("Detect took %v after cancellation", time.Since(start))
		}
	})
	t.Run("during a backoff", func(t *testing.T) {
		f := newFake(t, func(int, received) reply { return awsError(400, "ThrottlingException", "") })
		d := newDetector(t, f, Options{Backoff: hourBackoff{}})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := d.Detect(ctx, jpegOf("x"))
		// The SDK's retryer ends its wait with the context's error alone.
		if !errors.Is(err, context.DeadlineExceeded) || f.count() != 1 {
			t.Errorf("error %v after %d requests; want the deadline, after 1", err, f.count())
		}
	})
	t.Run("waiting for a slot", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		arrived := make(chan struct{}, 1)
		f := newFake(t, func(int, received) reply { arrived <- struct{}{}; return reply{hold: hold} })
		d := newDetector(t, f, Options{Concurrency: 1})
		go d.Detect(context.Background(), jpegOf("first")) // holds the only slot
		<-arrived
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := d.Detect(ctx, jpegOf("second"))
		if !errors.Is(err, context.DeadlineExceeded) || f.count() != 1 {
			t.Errorf("error %v after %d requests; want the deadline after 1", err, f.count())
		}
	})
	t.Run("DetectAll", func(t *testing.T) {
		f := newFake(t, func(int, received) reply { return fixture(t, "devguide-mobile-phone.json") })
		d := newDetector(t, f, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, errs := d.DetectAll(ctx, [][]byte{jpegOf("a"), jpegOf("b")})
		for i, err := range errs {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("frame %d: %v; want context.Canceled", i, err)
			}
		}
	})
}

// hourBackoff waits an hour between attempts.
type hourBackoff struct{}

func (hourBackoff) BackoffDelay(int, error) (time.Duration, error) { return time.Hour, nil }

// captured is what an HTTP client that sends nothing saw.
type captured struct{ url string }

func (c *captured) Do(r *http.Request) (*http.Response, error) {
	c.url = r.URL.String()
	return nil, errors.New("not sent")
}

// TestNew checks New's validation and where the SDK's endpoint rules send
// the request (captured by an HTTP client that sends nothing).
func TestNew(t *testing.T) {
	creds := credentials.NewStaticCredentialsProvider("k", "s", "")
	for _, tc := range []struct {
		name    string
		cfg     aws.Config
		o       Options
		wantURL string
	}{
		{"Amazon Rekognition", aws.Config{Region: "eu-west-1", Credentials: creds}, Options{}, "https://rekognition.eu-west-1.amazonaws.com/"},
		{"a local endpoint", aws.Config{Region: "us-east-1", Credentials: creds}, Options{Endpoint: "http://127.0.0.1:4566"}, "http://127.0.0.1:4566/"},
		{"an endpoint with a path", aws.Config{Region: "us-east-1", Credentials: creds}, Options{Endpoint: "https://proxy.example/rekognition/"}, "https://proxy.example/rekognition/"},
		{"no region", aws.Config{Credentials: creds}, Options{}, ""},
		{"no credentials", aws.Config{Region: "us-east-1"}, Options{}, ""},
		{"an endpoint that is no URL", aws.Config{Region: "us-east-1", Credentials: creds}, Options{Endpoint: "rekognition.local"}, ""},
		{"an ftp endpoint", aws.Config{Region: "us-east-1", Credentials: creds}, Options{Endpoint: "ftp://host/"}, ""},
		{"MinConfidence over 100", aws.Config{Region: "us-east-1", Credentials: creds}, Options{MinConfidence: 101}, ""},
		{"MaxLabels over 1000", aws.Config{Region: "us-east-1", Credentials: creds}, Options{MaxLabels: 1001}, ""},
		{"negative Concurrency", aws.Config{Region: "us-east-1", Credentials: creds}, Options{Concurrency: -1}, ""},
		{"negative MaxAttempts", aws.Config{Region: "us-east-1", Credentials: creds}, Options{MaxAttempts: -1}, ""},
		{"negative AttemptTimeout", aws.Config{Region: "us-east-1", Credentials: creds}, Options{AttemptTimeout: -time.Second}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c captured
			tc.cfg.HTTPClient = &c
			if tc.o.MaxAttempts == 0 {
				tc.o.MaxAttempts = 1
			}
			d, err := New(tc.cfg, tc.o)
			if tc.wantURL == "" {
				if err == nil {
					t.Errorf("New succeeded; want an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if _, err := d.Detect(context.Background(), jpegOf("x")); err == nil {
				t.Fatal("Detect succeeded through a client that sends nothing")
			}
			if c.url != tc.wantURL {
				t.Errorf("url %q; want %q", c.url, tc.wantURL)
			}
		})
	}
}
