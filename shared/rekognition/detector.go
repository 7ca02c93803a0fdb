package rekognition

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/moveleads/partnerapi/shared/inventory"
)

// The defaults of Options and Retry, and Rekognition's own bounds.
const (
	// DefaultMinConfidence is Rekognition's own default for DetectLabels
	// (55 percent, per the API reference).
	DefaultMinConfidence = 55
	// DefaultMaxLabels leaves room for the scene labels ("Indoors",
	// "Living Room", "Interior Design") that share the list with the
	// objects and are returned first when more confident.
	DefaultMaxLabels = 100
	// maxMaxLabels is Rekognition's upper limit (and its default).
	maxMaxLabels = 1000
	// DefaultConcurrency bounds the DetectLabels calls one Detector has
	// in flight: a 60-frame survey takes about 15 rounds of one call each
	// instead of a burst of 60.
	DefaultConcurrency = 4
	// MaxFrameBytes is Rekognition's limit on an image passed as bytes
	// (5 MB of raw bytes, before base64).
	MaxFrameBytes = 5 << 20
)

// Options are New's optional settings. A zero value takes the default.
type Options struct {
	// Endpoint is the base URL of a server speaking Rekognition's JSON
	// protocol (the value of AWS_ENDPOINT_URL_REKOGNITION, via
	// awsenv.Endpoint). Empty means Amazon Rekognition in the
	// configuration's region: https://rekognition.REGION.amazonaws.com.
	Endpoint string
	// MinConfidence, 0 to 100, is sent as DetectLabels' MinConfidence and
	// also drops instances less confident than it (Rekognition filters
	// labels by it, not their instances). Default DefaultMinConfidence.
	MinConfidence float64
	// MaxLabels, 1 to 1000, is sent as DetectLabels' MaxLabels. Default
	// DefaultMaxLabels.
	MaxLabels int
	// Concurrency bounds the calls in flight across every Detect and
	// DetectAll of the Detector. Default DefaultConcurrency.
	Concurrency int
	// Retry is how throttling and server failures are retried.
	Retry Retry
}

// Retry bounds the attempts at one frame. Waits between attempts are
// "full jitter" exponential backoff: a random duration from 0 to
// min(MaxDelay, BaseDelay·2^(n-1)) before attempt n+1.
type Retry struct {
	// MaxAttempts counts the first attempt. Default 5.
	MaxAttempts int
	// BaseDelay is the cap of the first wait. Default 250 ms.
	BaseDelay time.Duration
	// MaxDelay caps every wait. Default 5 s.
	MaxDelay time.Duration
	// MaxElapsed is the time budget of one frame, attempts and waits
	// together: no wait starts that would end past it. Default 30 s.
	MaxElapsed time.Duration
	// AttemptTimeout bounds one request and its answer; an attempt that
	// runs out of it is retried like a network failure. Default 10 s.
	AttemptTimeout time.Duration
}

func (r Retry) withDefaults() Retry {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 5
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = 250 * time.Millisecond
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = 5 * time.Second
	}
	if r.MaxElapsed <= 0 {
		r.MaxElapsed = 30 * time.Second
	}
	if r.AttemptTimeout <= 0 {
		r.AttemptTimeout = 10 * time.Second
	}
	return r
}

// Detector is an inventory.Detector backed by Amazon Rekognition's
// DetectLabels. It is safe for concurrent use; build it once, outside the
// Lambda handler.
type Detector struct {
	url           string
	region        string
	creds         aws.CredentialsProvider
	http          aws.HTTPClient
	signer        *v4.Signer
	minConfidence float64
	maxLabels     int
	retry         Retry
	// slots holds one token per call in flight (Options.Concurrency).
	slots chan struct{}

	// Seams for the package's tests: the clock requests are signed and
	// budgeted by, the wait between attempts, and the jitter (a random
	// int64 in [0, n)).
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func(n int64) int64
}

var _ inventory.Detector = (*Detector)(nil)

// New returns a Detector that calls DetectLabels with cfg's region,
// credentials and HTTP client (config.LoadDefaultConfig's, as for every
// other AWS client). It sends no request: missing permissions show up in
// the first Detect. It fails when cfg has no region or credentials, when
// o.Endpoint is not an http(s) URL, or when an option is out of its
// documented range.
func New(cfg aws.Config, o Options) (*Detector, error) {
	if cfg.Region == "" {
		return nil, errors.New("rekognition: the AWS configuration has no region")
	}
	if cfg.Credentials == nil {
		return nil, errors.New("rekognition: the AWS configuration has no credentials")
	}
	if o.MinConfidence == 0 {
		o.MinConfidence = DefaultMinConfidence
	}
	if o.MinConfidence < 0 || o.MinConfidence > 100 {
		return nil, fmt.Errorf("rekognition: MinConfidence %v is not within 0 to 100", o.MinConfidence)
	}
	if o.MaxLabels == 0 {
		o.MaxLabels = DefaultMaxLabels
	}
	if o.MaxLabels < 1 || o.MaxLabels > maxMaxLabels {
		return nil, fmt.Errorf("rekognition: MaxLabels %d is not within 1 to %d", o.MaxLabels, maxMaxLabels)
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Concurrency < 0 {
		return nil, fmt.Errorf("rekognition: Concurrency %d is negative", o.Concurrency)
	}
	endpoint := "https://rekognition." + cfg.Region + ".amazonaws.com/"
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return nil, fmt.Errorf("rekognition: endpoint %q: want http(s)://HOST[:PORT][/PATH]", o.Endpoint)
		}
		endpoint = u.Scheme + "://" + u.Host + strings.TrimSuffix(u.EscapedPath(), "/") + "/"
	}
	d := &Detector{
		url:           endpoint,
		region:        cfg.Region,
		creds:         cfg.Credentials,
		http:          cfg.HTTPClient,
		signer:        v4.NewSigner(),
		minConfidence: o.MinConfidence,
		maxLabels:     o.MaxLabels,
		retry:         o.Retry.withDefaults(),
		slots:         make(chan struct{}, o.Concurrency),
		now:           time.Now,
		sleep:         sleep,
		jitter:        rand.Int64N,
	}
	if d.http == nil {
		d.http = http.DefaultClient
	}
	return d, nil
}

// Name is the detector's name in the inventory's report.
func (d *Detector) Name() string { return "rekognition" }

// Detect returns one Detection per object instance Rekognition finds in
// jpeg: a label with three instances is three detections, each with the
// instance's box and confidence and the label's name and parents. Labels
// without instances (scenes and concepts such as "Living Room" or
// "Indoors") are not returned: the inventory counts objects.
//
// An empty frame, one over MaxFrameBytes, or one Rekognition refuses
// (InvalidImageFormatException, ImageTooLargeException,
// InvalidParameterException) fails with an error wrapping
// inventory.ErrBadFrame, without retries. Throttling, server errors and
// network failures are retried (see Retry); what is left is returned with
// the last attempt's error, a *ResponseError when Rekognition answered.
// A done ctx ends the wait for a slot, a request or a backoff with ctx's
// error.
func (d *Detector) Detect(ctx context.Context, jpeg []byte) ([]inventory.Detection, error) {
	if err := checkFrame(jpeg); err != nil {
		return nil, fmt.Errorf("rekognition DetectLabels: %w", err)
	}
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("rekognition DetectLabels: waiting for a free slot: %w", ctx.Err())
	}
	defer func() { <-d.slots }()

	// Encoded only once a slot is held, so waiting frames hold no copy.
	body, err := requestBody(jpeg, d.maxLabels, d.minConfidence)
	if err != nil {
		return nil, fmt.Errorf("rekognition DetectLabels: %w", err)
	}
	answer, err := d.send(ctx, body)
	if err != nil {
		return nil, fmt.Errorf("rekognition DetectLabels: %w", err)
	}
	found, err := parseLabels(answer, d.minConfidence)
	if err != nil {
		return nil, fmt.Errorf("rekognition DetectLabels: %w", err)
	}
	return found, nil
}

// DetectAll runs Detect on every frame, at most Options.Concurrency at a
// time, and returns each frame's detections and error at the frame's
// index. One frame's failure does not stop the others; a done ctx ends
// those not finished.
func (d *Detector) DetectAll(ctx context.Context, frames [][]byte) ([][]inventory.Detection, []error) {
	found := make([][]inventory.Detection, len(frames))
	errs := make([]error, len(frames))
	var wg sync.WaitGroup
	for i, frame := range frames {
		wg.Go(func() {
			found[i], errs[i] = d.Detect(ctx, frame)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("frame %d: %w", i, errs[i])
			}
		})
	}
	wg.Wait()
	return found, errs
}

// checkFrame refuses, before any request, a frame Rekognition would
// refuse for its size.
func checkFrame(jpeg []byte) error {
	switch {
	case len(jpeg) == 0:
		return fmt.Errorf("%w: empty frame", inventory.ErrBadFrame)
	case len(jpeg) > MaxFrameBytes:
		return fmt.Errorf("%w: frame of %d bytes, over Rekognition's %d", inventory.ErrBadFrame, len(jpeg), MaxFrameBytes)
	}
	return nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
