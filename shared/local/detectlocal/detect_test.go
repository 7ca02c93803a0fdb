package detectlocal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

// region is where a box's centre must lie, in fractions of the frame.
type region struct{ left, top, right, bottom float64 }

func (r region) holds(b inventory.Box) bool {
	cx, cy := b.Left+b.Width/2, b.Top+b.Height/2
	return cx >= r.left && cx <= r.right && cy >= r.top && cy <= r.bottom
}

// TestDetectFindsObjects runs CenterNet on the test frames (see
// testdata/README.md) and checks the labels it must find, each with at
// least a score a little under the one it gets here, and where the main
// object of each frame is. The scores are deterministic for a given model
// and backend; the margins allow for another CPU's float rounding.
func TestDetectFindsObjects(t *testing.T) {
	sidecar(t)
	type want struct {
		label    string
		minScore float64
		count    int     // at least this many boxes of label over 0.2; 0 means 1
		where    *region // where the best box of label is, when set
	}
	tests := []struct {
		frame string
		want  []want
	}{
		{"living-room.jpg", []want{
			{label: "couch", minScore: 0.4, where: &region{0.35, 0.45, 0.75, 0.65}},
			{label: "tv", minScore: 0.45, where: &region{0, 0.35, 0.25, 0.6}},
			{label: "clock", minScore: 0.5, where: &region{0.53, 0.24, 0.62, 0.33}},
			{label: "potted plant", minScore: 0.4},
		}},
		{"kitchen.jpg", []want{
			{label: "refrigerator", minScore: 0.55, where: &region{0.8, 0.3, 0.95, 0.55}},
			{label: "chair", minScore: 0.25, count: 3},
			{label: "bottle", minScore: 0.25},
		}},
		{"bedroom.jpg", []want{
			{label: "bed", minScore: 0.4, where: &region{0.3, 0.45, 0.55, 0.65}},
		}},
		{"nagasaki-boats.jpg", []want{
			{label: "person", minScore: 0.33},
			{label: "boat", minScore: 0.25},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.frame, func(t *testing.T) {
			dets, err := detected.Detect(context.Background(), frame(t, tt.frame))
			if err != nil {
				t.Fatalf("Detect: %v", err)
			}
			t.Logf("%s: %v", tt.frame, summary(dets))
			for _, d := range dets {
				b := d.Box
				if d.Confidence < 0.2 || d.Confidence > 1 || b.Width <= 0 || b.Height <= 0 ||
					b.Left < 0 || b.Top < 0 || b.Left+b.Width > 1.0001 || b.Top+b.Height > 1.0001 || d.Parents != nil {
					t.Errorf("detection %+v: want confidence 0.2-1, a box inside the frame, no parents", d)
				}
			}
			for _, w := range tt.want {
				best, n := bestOf(dets, w.label)
				if n == 0 {
					t.Errorf("no %q found; want one with score >= %.2f", w.label, w.minScore)
					continue
				}
				if best.Confidence < w.minScore {
					t.Errorf("best %q score = %.2f; want >= %.2f", w.label, best.Confidence, w.minScore)
				}
				if n < max(w.count, 1) {
					t.Errorf("%d %q found; want at least %d", n, w.label, w.count)
				}
				if w.where != nil && !w.where.holds(best.Box) {
					t.Errorf("best %q box = %+v; want its centre in %+v", w.label, best.Box, *w.where)
				}
			}
		})
	}
}

// detected is the test sidecar as an inventory.Detector that detects each
// distinct frame once per test binary: several tests need the same test
// frames' detections (deterministic for a given model, see
// TestConcurrentFrames), and each costs the sidecar seconds of CPU.
var detected = &onceDetector{seen: map[[32]byte][]inventory.Detection{}}

type onceDetector struct {
	mu   sync.Mutex
	seen map[[32]byte][]inventory.Detection
}

// Detect returns the test sidecar's detections of jpeg, from its first
// successful call on the same bytes when there was one.
func (d *onceDetector) Detect(ctx context.Context, jpeg []byte) ([]inventory.Detection, error) {
	key := sha256.Sum256(jpeg)
	d.mu.Lock()
	defer d.mu.Unlock() // one frame at a time, as the tests ask them
	if dets, ok := d.seen[key]; ok {
		return slices.Clone(dets), nil
	}
	dets, err := testServer.Client().Detect(ctx, jpeg)
	if err == nil {
		d.seen[key] = slices.Clone(dets)
	}
	return dets, err
}

func (d *onceDetector) Name() string { return Name }

// bestOf returns the highest-scoring detection of label and how many
// there are.
func bestOf(dets []inventory.Detection, label string) (best inventory.Detection, n int) {
	for _, d := range dets {
		if d.Label != label {
			continue
		}
		if n == 0 || d.Confidence > best.Confidence {
			best = d
		}
		n++
	}
	return best, n
}

// summary lists detections as "label score" for test logs.
func summary(dets []inventory.Detection) []string {
	out := make([]string, len(dets))
	for i, d := range dets {
		out[i] = fmt.Sprintf("%s %.2f", d.Label, d.Confidence)
	}
	return out
}

// TestDetectRefusesBadFrames: what is not a JPEG the sidecar decodes is
// ErrBadFrame, and the sidecar goes on serving.
func TestDetectRefusesBadFrames(t *testing.T) {
	c := sidecar(t).Client()
	var pngFrame bytes.Buffer
	if err := png.Encode(&pngFrame, image.NewRGBA(image.Rect(0, 0, 64, 48))); err != nil {
		t.Fatal(err)
	}
	good := frame(t, "living-room.jpg")
	tests := []struct {
		name  string
		frame []byte
	}{
		{"empty", nil},
		{"text", []byte("this is not a picture")},
		{"png", pngFrame.Bytes()},
		{"jpeg signature then garbage", append([]byte{0xff, 0xd8, 0xff, 0xe0}, bytes.Repeat([]byte("garbage"), 100)...)},
		{"truncated jpeg", good[:2000]},
		{"jpeg without its end", good[:len(good)/2]},
		{"jpeg header over random bytes, with its end", garbledJPEG(good)},
		{"too large", append(append([]byte{}, good...), make([]byte, MaxFrameBytes)...)},
		{"over 16 megapixels", hugeJPEG(t)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dets, err := c.Detect(context.Background(), tt.frame)
			if !errors.Is(err, inventory.ErrBadFrame) {
				t.Errorf("Detect = %v, %v; want an error wrapping ErrBadFrame", summary(dets), err)
			}
		})
	}
	if _, err := c.Detect(context.Background(), good); err != nil {
		t.Errorf("Detect of a good frame after the bad ones: %v", err)
	}
}

// garbledJPEG keeps jpg's header (up to its scan's start) and its
// end-of-image marker, with random bytes between: a customer's broken
// frame, whose decoding threw a JavaScript TypeError in the sidecar.
func garbledJPEG(jpg []byte) []byte {
	sos := bytes.Index(jpg, []byte{0xff, 0xda})
	start := sos + 2 + (int(jpg[sos+2])<<8 | int(jpg[sos+3]))
	out := bytes.Clone(jpg)
	r := rand.New(rand.NewPCG(3, 5))
	for i := start; i < len(out)-2; i++ {
		out[i] = byte(r.UintN(256))
	}
	return out
}

// hugeJPEG returns a valid JPEG of 5000x4000 pixels, small in bytes.
func hugeJPEG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 5000, 4000)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestConcurrentFrames sends frames from several goroutines at once: the
// sidecar queues them and answers each as it would alone.
func TestConcurrentFrames(t *testing.T) {
	c := sidecar(t).Client()
	names := []string{"living-room.jpg", "kitchen.jpg", "bedroom.jpg"}
	alone := make(map[string][]inventory.Detection)
	for _, n := range names {
		dets, err := detected.Detect(context.Background(), frame(t, n))
		if err != nil {
			t.Fatalf("Detect %s: %v", n, err)
		}
		alone[n] = dets
	}
	const rounds = 3
	var wg sync.WaitGroup
	errs := make(chan error, rounds*len(names))
	for i := range rounds * len(names) {
		n := names[i%len(names)]
		wg.Go(func() {
			dets, err := c.Detect(context.Background(), frame(t, n))
			switch {
			case err != nil:
				errs <- err
			case !reflect.DeepEqual(dets, alone[n]):
				errs <- errors.New(n + ": detections differ from those of the frame alone")
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestDetectKeepsNoTensors: every frame disposes of what it allocated in
// tfjs, so the sidecar's memory does not grow with the frames it sees.
func TestDetectKeepsNoTensors(t *testing.T) {
	s := sidecar(t)
	c := s.Client()
	f := frame(t, "kitchen.jpg")
	if _, err := c.Detect(context.Background(), f); err != nil {
		t.Fatalf("Detect: %v", err)
	}
	before := tensors(t)
	for range 5 {
		if _, err := c.Detect(context.Background(), f); err != nil {
			t.Fatalf("Detect: %v", err)
		}
		if _, err := c.Detect(context.Background(), []byte("not a frame")); err == nil {
			t.Fatal("Detect of a bad frame succeeded")
		}
	}
	if after := tensors(t); after != before {
		t.Errorf("tensors alive: %d before 10 frames, %d after; want the same", before, after)
	}
}

// tensors returns how many tfjs tensors the test sidecar holds.
func tensors(t *testing.T) int {
	t.Helper()
	_, body := send(t, "GET", sidecar(t).Endpoint+healthPath, nil, 0)
	var h struct{ Tensors *int }
	if err := json.Unmarshal([]byte(body), &h); err != nil || h.Tensors == nil {
		t.Fatalf("GET /healthz = %s, %v; want tensors", body, err)
	}
	return *h.Tensors
}
