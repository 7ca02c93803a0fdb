package detectlocal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

const (
	// Name names this detector in the inventory's report and selects its
	// label mapping (inventory.Labels).
	Name = "centernet-coco"
	// requestTimeout bounds one Detect that ctx does not bound sooner: a
	// frame takes 0.2-4 s here and may wait behind 16 others.
	requestTimeout = 90 * time.Second
	// maxResponseBytes bounds the body read from the sidecar: at most 50
	// detections of under 100 bytes each, or an error.
	maxResponseBytes = 64 << 10
)

// Client is an inventory.Detector backed by a detector sidecar. It is safe
// for concurrent use; the sidecar answers one frame at a time.
type Client struct {
	endpoint string
	http     *http.Client
}

// NewClient returns a client of the sidecar at endpoint
// (http://127.0.0.1:PORT). It never uses a proxy (the sidecar is on
// loopback), follows no redirect, and gives up on a request after 90
// seconds when the context allows more.
func NewClient(endpoint string) *Client {
	transport := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 4,
		// Under Node's 5 s keep-alive timeout: a connection the sidecar is
		// closing is never reused for a POST (which Go does not retry).
		IdleConnTimeout:       2 * time.Second,
		ResponseHeaderTimeout: requestTimeout,
	}
	return &Client{
		endpoint: strings.TrimSuffix(endpoint, "/"),
		http: &http.Client{
			Transport:     transport,
			Timeout:       requestTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// Name returns "centernet-coco".
func (c *Client) Name() string { return Name }

// response is the sidecar's answer to POST /detect.
type response struct {
	Detections []struct {
		Label string    `json:"label"`
		Score float64   `json:"score"`
		Box   []float64 `json:"box"`
	} `json:"detections"`
	MS int `json:"ms"`
}

// Detect sends jpeg to the sidecar and returns what CenterNet found in it,
// highest score first, with COCO class names as labels, the score as
// confidence and no parents; a frame with nothing found gives an empty,
// non-nil slice. A frame that is empty, larger than MaxFrameBytes, or that
// the sidecar cannot decode as a JPEG is an error wrapping
// inventory.ErrBadFrame. A sidecar that is gone (connection refused or
// reset), busy (503), failing or answering nonsense is a plain error, as
// is ctx ending.
func (c *Client) Detect(ctx context.Context, jpeg []byte) ([]inventory.Detection, error) {
	if len(jpeg) == 0 {
		return nil, fmt.Errorf("detect with %s: empty frame: %w", Name, inventory.ErrBadFrame)
	}
	if len(jpeg) > MaxFrameBytes {
		return nil, fmt.Errorf("detect with %s: frame of %d bytes, over %d: %w", Name, len(jpeg), MaxFrameBytes, inventory.ErrBadFrame)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+detectPath, bytes.NewReader(jpeg))
	if err != nil {
		return nil, fmt.Errorf("detect with %s: %w", Name, err)
	}
	req.Header.Set("Content-Type", "image/jpeg")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("detect with %s: %w", Name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("detect with %s: read answer: %w", Name, err)
	}
	if len(body) > maxResponseBytes {
		return nil, fmt.Errorf("detect with %s: answer longer than %d bytes", Name, maxResponseBytes)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		dets, err := decode(body)
		if err != nil {
			return nil, fmt.Errorf("detect with %s: %w", Name, err)
		}
		return dets, nil
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return nil, fmt.Errorf("detect with %s: %s: %w", Name, errorText(resp.StatusCode, body), inventory.ErrBadFrame)
	default:
		return nil, fmt.Errorf("detect with %s: %s", Name, errorText(resp.StatusCode, body))
	}
}

// decode checks and converts a 200 answer.
func decode(body []byte) ([]inventory.Detection, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode answer: %w", err)
	}
	if r.Detections == nil {
		return nil, errors.New("answer has no detections list")
	}
	out := make([]inventory.Detection, 0, len(r.Detections))
	for i, d := range r.Detections {
		if d.Label == "" || !unit(d.Score) || len(d.Box) != 4 {
			return nil, fmt.Errorf("detection %d of the answer is malformed: label %q, score %v, box %v", i, d.Label, d.Score, d.Box)
		}
		for _, v := range d.Box {
			if !unit(v) {
				return nil, fmt.Errorf("detection %d of the answer has a box outside the frame: %v", i, d.Box)
			}
		}
		out = append(out, inventory.Detection{
			Label:      d.Label,
			Confidence: d.Score,
			Box:        inventory.Box{Left: d.Box[0], Top: d.Box[1], Width: d.Box[2], Height: d.Box[3]},
		})
	}
	return out, nil
}

// unit reports whether v is from 0 to 1 (NaN is not).
func unit(v float64) bool { return v >= 0 && v <= 1 }

// errorText describes a refusal: the status and the sidecar's message.
func errorText(status int, body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return fmt.Sprintf("sidecar answered %d %s: %s", status, http.StatusText(status), msg)
}
