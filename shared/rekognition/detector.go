package rekognition

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/moveleads/partnerapi/shared/awsjson"
	"github.com/moveleads/partnerapi/shared/inventory"
)

// The defaults of Options, and Rekognition's own bounds.
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
	// Retry is how throttling and server failures are retried: at most
	// Retry.MaxAttempts attempts at one frame within Retry.MaxElapsed
	// (awsjson's defaults: 5 attempts within 30 s, each within 10 s).
	Retry awsjson.Retry
}

// Detector is an inventory.Detector backed by Amazon Rekognition's
// DetectLabels. It is safe for concurrent use; build it once, outside the
// Lambda handler.
type Detector struct {
	client        *awsjson.Client
	minConfidence float64
	maxLabels     int
	// slots holds one token per call in flight (Options.Concurrency).
	slots chan struct{}
}

var _ inventory.Detector = (*Detector)(nil)

// New returns a Detector that calls DetectLabels with cfg's region,
// credentials and HTTP client (config.LoadDefaultConfig's, as for every
// other AWS client). It sends no request: missing permissions show up in
// the first Detect. It fails when cfg has no region or credentials, when
// o.Endpoint is not an http(s) URL, or when an option is out of its
// documented range.
func New(cfg aws.Config, o Options) (*Detector, error) {
	return build(cfg, o, awsjson.Clock{})
}

// build is New with the clock of the retries, which the package's tests
// replace.
func build(cfg aws.Config, o Options, clock awsjson.Clock) (*Detector, error) {
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
	client, err := awsjson.New(cfg, awsjson.Options{
		Service:     "Rekognition",
		SigningName: signingName,
		Endpoint:    o.Endpoint,
		Retry:       o.Retry,
		NoRetry:     final,
		MaxAnswer:   maxAnswer,
		Clock:       clock,
	})
	if err != nil {
		return nil, fmt.Errorf("rekognition: %w", err)
	}
	return &Detector{
		client:        client,
		minConfidence: o.MinConfidence,
		maxLabels:     o.MaxLabels,
		slots:         make(chan struct{}, o.Concurrency),
	}, nil
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
// network failures are retried (see Options.Retry); what is left is
// returned with the last attempt's error, an *awsjson.ResponseError when
// Rekognition answered.
// A done ctx ends the wait for a slot, a request or a backoff with ctx's
// error.
func (d *Detector) Detect(ctx context.Context, jpeg []byte) ([]inventory.Detection, error) {
	found, err := d.detect(ctx, jpeg)
	if err != nil {
		return nil, fmt.Errorf("rekognition DetectLabels: %w", err)
	}
	return found, nil
}

// detect is Detect, its errors without the operation's name.
func (d *Detector) detect(ctx context.Context, jpeg []byte) ([]inventory.Detection, error) {
	if err := checkFrame(jpeg); err != nil {
		return nil, err
	}
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for a free slot: %w", ctx.Err())
	}
	defer func() { <-d.slots }()

	// Encoded only once a slot is held, so waiting frames hold no copy.
	body, err := requestBody(jpeg, d.maxLabels, d.minConfidence)
	if err != nil {
		return nil, err
	}
	answer, err := d.client.Call(ctx, target, body)
	if err != nil {
		var re *awsjson.ResponseError
		if errors.As(err, &re) && badFrame(re.Code) {
			err = fmt.Errorf("%w: %w", inventory.ErrBadFrame, err)
		}
		return nil, err
	}
	return parseLabels(answer, d.minConfidence)
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
