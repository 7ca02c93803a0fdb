package rekognition

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/rekognition"
	"github.com/aws/aws-sdk-go-v2/service/rekognition/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
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
	// DefaultMaxAttempts is Options.MaxAttempts' default.
	DefaultMaxAttempts = 5
	// DefaultAttemptTimeout is Options.AttemptTimeout's default.
	DefaultAttemptTimeout = 10 * time.Second
	// maxBackoff caps the SDK's jittered exponential backoff (its own
	// default is 20 s, too long for a frame of a survey in progress).
	maxBackoff = 5 * time.Second
	// MaxFrameBytes is Rekognition's limit on an image passed as bytes
	// (5 MB of raw bytes, before base64).
	MaxFrameBytes = 5 << 20
)

// Options are New's optional settings. A zero value takes the default.
type Options struct {
	// Endpoint is the base URL of a server speaking Rekognition's JSON
	// protocol (the value of AWS_ENDPOINT_URL_REKOGNITION, via
	// awsenv.Endpoint). Empty means the SDK's endpoint rules: Amazon
	// Rekognition in the configuration's region.
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
	// MaxAttempts counts the first attempt at one frame, for the SDK's
	// standard retryer. Default DefaultMaxAttempts.
	MaxAttempts int
	// AttemptTimeout bounds one request and its answer; an attempt that
	// runs out of it is retried like a dropped connection. Default
	// DefaultAttemptTimeout.
	AttemptTimeout time.Duration
	// Backoff, when not nil, replaces the standard retryer's jittered
	// exponential backoff (capped at 5 s); tests pass a zero backoff.
	Backoff retry.BackoffDelayer
}

// Detector is an inventory.Detector backed by Amazon Rekognition's
// DetectLabels, through the SDK's Rekognition client. It is safe for
// concurrent use; build it once, outside the Lambda handler.
type Detector struct {
	client        *rekognition.Client
	minConfidence float32
	maxLabels     int32
	// slots holds one token per call in flight (Options.Concurrency).
	slots chan struct{}
}

var _ inventory.Detector = (*Detector)(nil)

// New returns a Detector that calls DetectLabels with cfg's region,
// credentials and HTTP client. It sends no request: missing permissions
// show up in the first Detect. It fails when cfg has no region or
// credentials, when o.Endpoint is not an http(s) URL, or when an option is
// out of its documented range.
func New(cfg aws.Config, o Options) (*Detector, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("rekognition: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("rekognition: the AWS configuration has no region")
	}
	if cfg.Credentials == nil {
		return nil, errors.New("rekognition: the AWS configuration has no credentials")
	}
	client := rekognition.NewFromConfig(cfg, func(c *rekognition.Options) {
		if o.Endpoint != "" {
			c.BaseEndpoint = aws.String(o.Endpoint)
		}
		c.Retryer = retry.NewStandard(func(s *retry.StandardOptions) {
			s.MaxAttempts = o.MaxAttempts
			s.MaxBackoff = maxBackoff
			s.Backoff = o.Backoff
			// Checked first: a final answer is never retried, whatever
			// its status; a 429 is, whatever its code.
			s.Retryables = append([]retry.IsErrorRetryable{retry.IsErrorRetryableFunc(final), retry.RetryableHTTPStatusCode{
				Codes: map[int]struct{}{http.StatusTooManyRequests: {}},
			}}, s.Retryables...)
		})
		c.APIOptions = append(c.APIOptions, attemptTimeout(o.AttemptTimeout))
	})
	return &Detector{
		client:        client,
		minConfidence: float32(o.MinConfidence),
		maxLabels:     int32(o.MaxLabels),
		slots:         make(chan struct{}, o.Concurrency),
	}, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.MinConfidence == 0 {
		o.MinConfidence = DefaultMinConfidence
	}
	if o.MinConfidence < 0 || o.MinConfidence > 100 {
		return o, fmt.Errorf("MinConfidence %v is not within 0 to 100", o.MinConfidence)
	}
	if o.MaxLabels == 0 {
		o.MaxLabels = DefaultMaxLabels
	}
	if o.MaxLabels < 1 || o.MaxLabels > maxMaxLabels {
		return o, fmt.Errorf("MaxLabels %d is not within 1 to %d", o.MaxLabels, maxMaxLabels)
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Concurrency < 0 {
		return o, fmt.Errorf("option Concurrency %d is negative", o.Concurrency)
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.MaxAttempts < 0 {
		return o, fmt.Errorf("MaxAttempts %d is negative", o.MaxAttempts)
	}
	if o.AttemptTimeout == 0 {
		o.AttemptTimeout = DefaultAttemptTimeout
	}
	if o.AttemptTimeout < 0 {
		return o, fmt.Errorf("AttemptTimeout %v is negative", o.AttemptTimeout)
	}
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return o, fmt.Errorf("endpoint %q: want http(s)://HOST[:PORT][/PATH]", o.Endpoint)
		}
	}
	return o, nil
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
// network failures are retried by the SDK's standard retryer (see
// Options); what is left is returned with the SDK's error (a
// smithy.APIError when Rekognition answered). A done ctx ends the wait
// for a slot, a request or a backoff with ctx's error.
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

	// General labels only: the answer carries no ImageProperties and the
	// call is not billed for them.
	out, err := d.client.DetectLabels(ctx, &rekognition.DetectLabelsInput{
		Image:         &types.Image{Bytes: jpeg},
		Features:      []types.DetectLabelsFeatureName{types.DetectLabelsFeatureNameGeneralLabels},
		MaxLabels:     aws.Int32(d.maxLabels),
		MinConfidence: aws.Float32(d.minConfidence),
	})
	if err != nil {
		if badFrame(err) {
			err = fmt.Errorf("%w: %w", inventory.ErrBadFrame, err)
		}
		return nil, err
	}
	return detections(out.Labels, float64(d.minConfidence))
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

// badFrame reports whether err says Rekognition cannot read the image:
// sending it again would fail again. InvalidParameterException is also
// Rekognition's answer for an image under 80 pixels a side.
func badFrame(err error) bool {
	var (
		format *types.InvalidImageFormatException
		large  *types.ImageTooLargeException
		param  *types.InvalidParameterException
	)
	return errors.As(err, &format) || errors.As(err, &large) || errors.As(err, &param)
}

// final is the retryer's first check: an unreadable image or a refused
// access is never retried, whatever the answer's status.
func final(err error) aws.Ternary {
	var denied *types.AccessDeniedException
	if badFrame(err) || errors.As(err, &denied) {
		return aws.FalseTernary
	}
	return aws.UnknownTernary
}

// attemptTimeout bounds each attempt (after the retry middleware, so per
// attempt) by d. The SDK reports a request whose context ended as
// canceled, never retried; an attempt that ran out of d while the
// caller's context lasts is reported as errAttemptTimedOut, which is.
func attemptTimeout(d time.Duration) func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		return s.Finalize.Insert(middleware.FinalizeMiddlewareFunc("AttemptTimeout",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				actx, cancel := context.WithTimeout(ctx, d)
				defer cancel()
				out, md, err := next.HandleFinalize(actx, in)
				if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
					err = attemptTimedOut{d}
				}
				return out, md, err
			}), "Retry", middleware.After)
	}
}

// attemptTimedOut is an attempt that got no answer within
// Options.AttemptTimeout; the retryer retries it.
type attemptTimedOut struct{ after time.Duration }

func (e attemptTimedOut) Error() string        { return fmt.Sprintf("no answer within %v", e.after) }
func (e attemptTimedOut) RetryableError() bool { return true }
func (e attemptTimedOut) Timeout() bool        { return true }
