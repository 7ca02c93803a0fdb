package awsjson

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

const (
	// ContentType is the protocol's media type, of requests and answers.
	ContentType = "application/x-amz-json-1.1"
	// DefaultMaxAnswer is Options.MaxAnswer's default.
	DefaultMaxAnswer = 1 << 20
	// maxErrorBody bounds how much of an error answer is read.
	maxErrorBody = 16 << 10
)

// ErrAnswerTooLarge is wrapped by Call's error when a 200 answer's body
// is over Options.MaxAnswer bytes. Such an answer is not retried.
var ErrAnswerTooLarge = errors.New("answer too large")

// Options are New's settings. SigningName is required; a zero value of
// any other takes its default.
type Options struct {
	// Service is the service's name in errors ("Rekognition", "Secrets
	// Manager"). Default SigningName.
	Service string
	// SigningName is the service's name in SigV4 credential scopes
	// ("rekognition", "secretsmanager").
	SigningName string
	// EndpointPrefix is the first label of the service's regional host:
	// https://EndpointPrefix.REGION.amazonaws.com/. Default SigningName.
	EndpointPrefix string
	// Endpoint, when not "", is the base URL to send to instead of the
	// regional endpoint: http(s)://HOST[:PORT][/PATH], as the SDK's
	// AWS_ENDPOINT_URL_<SERVICE> variable gives it (see awsenv.Endpoint).
	Endpoint string
	// Retry bounds the attempts of one Call.
	Retry Retry
	// NoRetry, when not nil, reports whether an error code is final:
	// an answer with such a code is never retried, whatever its status.
	NoRetry func(code string) bool
	// MaxAnswer bounds the body of a 200 answer, in bytes. Default
	// DefaultMaxAnswer.
	MaxAnswer int
	// Clock replaces the time and randomness Call uses; for tests.
	Clock Clock
}

// Retry bounds the attempts of one Call. Waits between attempts are "full
// jitter" exponential backoff: a random duration from 0 to
// min(MaxDelay, BaseDelay·2^(n-1)) before attempt n+1.
type Retry struct {
	// MaxAttempts counts the first attempt. Default 5.
	MaxAttempts int
	// BaseDelay is the cap of the first wait. Default 250 ms.
	BaseDelay time.Duration
	// MaxDelay caps every wait. Default 5 s.
	MaxDelay time.Duration
	// MaxElapsed is the time budget of one Call, attempts and waits
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

// Clock is the time and randomness of Call: the clock requests are signed
// and budgeted by, the wait between attempts, and the backoff's jitter (a
// random int64 in [0, n)). A nil field is the real one (time.Now, a timer
// ended by the context, math/rand/v2's Int64N); tests replace them.
type Clock struct {
	Now    func() time.Time
	Sleep  func(ctx context.Context, d time.Duration) error
	Jitter func(n int64) int64
}

// Client calls one service's operations. It holds no state per call and
// is safe for concurrent use; build it once, outside the Lambda handler.
type Client struct {
	// o is New's options with their defaults.
	o      Options
	url    string
	region string
	creds  aws.CredentialsProvider
	http   aws.HTTPClient
	signer *v4.Signer
}

// New returns a Client that calls the service with cfg's region,
// credentials and HTTP client (http.DefaultClient when it has none). It
// sends no request. It fails when cfg has no region or credentials, when
// o has no SigningName, or when o.Endpoint is not an http(s) URL without
// a query.
func New(cfg aws.Config, o Options) (*Client, error) {
	if cfg.Region == "" {
		return nil, errors.New("the AWS configuration has no region")
	}
	if cfg.Credentials == nil {
		return nil, errors.New("the AWS configuration has no credentials")
	}
	if o.SigningName == "" {
		return nil, errors.New("no signing name")
	}
	if o.Service == "" {
		o.Service = o.SigningName
	}
	if o.EndpointPrefix == "" {
		o.EndpointPrefix = o.SigningName
	}
	endpoint := "https://" + o.EndpointPrefix + "." + cfg.Region + ".amazonaws.com/"
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return nil, fmt.Errorf("endpoint %q: want http(s)://HOST[:PORT][/PATH]", o.Endpoint)
		}
		endpoint = u.Scheme + "://" + u.Host + strings.TrimSuffix(u.EscapedPath(), "/") + "/"
	}
	if o.MaxAnswer <= 0 {
		o.MaxAnswer = DefaultMaxAnswer
	}
	o.Retry = o.Retry.withDefaults()
	if o.Clock.Now == nil {
		o.Clock.Now = time.Now
	}
	if o.Clock.Sleep == nil {
		o.Clock.Sleep = sleep
	}
	if o.Clock.Jitter == nil {
		o.Clock.Jitter = rand.Int64N
	}
	c := &Client{o: o, url: endpoint, region: cfg.Region, creds: cfg.Credentials, http: cfg.HTTPClient, signer: v4.NewSigner()}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	return c, nil
}

// URL is the endpoint the Client posts to, ending in "/".
func (c *Client) URL() string { return c.url }

// Call sends the operation target (X-Amz-Target, e.g.
// "secretsmanager.GetSecretValue") with body, its JSON input, and returns
// the body of the 200 answer. It retries as Options.Retry says while ctx
// lasts; what is left is returned with the last attempt's error, a
// *ResponseError when the service answered. A done ctx ends the request
// or the wait with ctx's error.
func (c *Client) Call(ctx context.Context, target string, body []byte) ([]byte, error) {
	sum := sha256.Sum256(body)
	payloadHash := hex.EncodeToString(sum[:])
	deadline := c.o.Clock.Now().Add(c.o.Retry.MaxElapsed)
	for attempt := 1; ; attempt++ {
		answer, err := c.attempt(ctx, target, body, payloadHash)
		if err == nil {
			return answer, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			if !errors.Is(err, ctxErr) {
				err = fmt.Errorf("%w (attempt %d: %w)", ctxErr, attempt, err)
			}
			return nil, err
		}
		if !c.retryable(err) {
			return nil, err
		}
		if attempt >= c.o.Retry.MaxAttempts {
			return nil, fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
		wait := c.backoff(attempt)
		if c.o.Clock.Now().Add(wait).After(deadline) {
			return nil, fmt.Errorf("gave up after %d attempts, out of the %s budget: %w", attempt, c.o.Retry.MaxElapsed, err)
		}
		if werr := c.o.Clock.Sleep(ctx, wait); werr != nil {
			return nil, fmt.Errorf("%w (waiting to retry after %w)", werr, err)
		}
	}
}

// retryCode reports whether code is one that a later attempt may not
// get: the throttling codes of the SDK's standard retryer and of
// Rekognition's API reference (ThrottlingException,
// ProvisionedThroughputExceededException, LimitExceededException),
// InternalServerError and ServiceUnavailableException. (A switch, not a
// map: it costs less code than a map literal's initialization.)
func retryCode(code string) bool {
	switch code {
	case "ThrottlingException",
		"ProvisionedThroughputExceededException",
		"LimitExceededException",
		"Throttling",
		"TooManyRequestsException",
		"RequestLimitExceeded",
		"InternalServerError",
		"ServiceUnavailableException":
		return true
	}
	return false
}

// retryable reports whether a failed attempt may succeed if sent again:
// an answer with a code of retryCode, any other 5xx or 429 answer, and a
// request that got no answer; never a code Options.NoRetry says is final,
// an answer too large, or a failure to get credentials or to sign.
func (c *Client) retryable(err error) bool {
	var re *ResponseError
	if errors.As(err, &re) {
		switch {
		case c.o.NoRetry != nil && c.o.NoRetry(re.Code):
			return false
		case retryCode(re.Code):
			return true
		}
		return re.Status >= 500 || re.Status == http.StatusTooManyRequests
	}
	var te *transportError
	return errors.As(err, &te)
}

// backoff returns the wait after the given failed attempt: full jitter
// from 0 to min(MaxDelay, BaseDelay·2^(attempt-1)).
func (c *Client) backoff(attempt int) time.Duration {
	limit := c.o.Retry.MaxDelay
	if shift := attempt - 1; shift < 32 {
		if d := c.o.Retry.BaseDelay << shift; d > 0 && d < limit {
			limit = d
		}
	}
	return time.Duration(c.o.Clock.Jitter(int64(limit) + 1))
}

// attempt sends one signed request and returns a 200 answer's body, or a
// *ResponseError, a *transportError, or another error (credentials,
// signing, an answer too large) that no retry would mend.
func (c *Client) attempt(ctx context.Context, target string, body []byte, payloadHash string) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.o.Retry.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", ContentType)
	req.Header.Set("X-Amz-Target", target)
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieve credentials: %w", err)
	}
	if err := c.signer.SignHTTP(ctx, creds, req, payloadHash, c.o.SigningName, c.region, c.o.Clock.Now()); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &transportError{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, readError(c.o.Service, resp)
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.o.MaxAnswer)+1))
	if err != nil {
		return nil, &transportError{fmt.Errorf("read answer: %w", err)}
	}
	if len(answer) > c.o.MaxAnswer {
		return nil, fmt.Errorf("%w: over %d bytes", ErrAnswerTooLarge, c.o.MaxAnswer)
	}
	return answer, nil
}

// transportError is an attempt that got no complete answer: the
// connection failed, or the attempt ran out of Retry.AttemptTimeout.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
