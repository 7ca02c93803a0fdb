package rekognition

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/inventory"
)

// The request is Rekognition's JSON protocol (awsJson1_1): a POST of the
// operation's input to "/", the operation named by X-Amz-Target, signed
// with SigV4 for the service "rekognition" by the SDK's own signer
// (aws/signer/v4). The SDK's Rekognition client would do the same and
// adds about 1 MB to a Lambda binary (see the package documentation).
const (
	target      = "RekognitionService.DetectLabels"
	contentType = "application/x-amz-json-1.1"
	service     = "rekognition"
	// maxAnswer bounds the body read from a successful answer: 1,000
	// labels with their instances are far smaller.
	maxAnswer = 4 << 20
	// maxErrorBody bounds how much of an error answer is read.
	maxErrorBody = 16 << 10
)

// ResponseError is an answer of Rekognition other than 200 OK. It matches
// inventory.ErrBadFrame (errors.Is) when the code says the image is
// unreadable: InvalidImageFormatException, ImageTooLargeException or
// InvalidParameterException (which Rekognition also answers for an image
// under 80 pixels a side).
type ResponseError struct {
	// Status is the HTTP status code.
	Status int
	// Code is Rekognition's error type (ThrottlingException,
	// AccessDeniedException, …), from the X-Amzn-ErrorType header or the
	// body's __type, without namespace; the status text when there is
	// neither.
	Code string
	// Message is Rekognition's message, if the answer had one.
	Message string
	// RequestID is Rekognition's request id (x-amzn-RequestId), for AWS
	// support.
	RequestID string
}

func (e *ResponseError) Error() string {
	msg := fmt.Sprintf("Rekognition answered %d %s", e.Status, e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request id " + e.RequestID + ")"
	}
	return msg
}

// Is reports whether e means target: inventory.ErrBadFrame for the codes
// of an unreadable image.
func (e *ResponseError) Is(target error) bool {
	return target == inventory.ErrBadFrame && badFrameCodes[e.Code]
}

// badFrameCodes are the error codes of an image Rekognition cannot read:
// sending it again would fail again.
var badFrameCodes = map[string]bool{
	"InvalidImageFormatException": true,
	"ImageTooLargeException":      true,
	"InvalidParameterException":   true,
}

// retryCodes are the error codes that a later attempt may not get: the
// throttling codes of Rekognition's API reference (ThrottlingException,
// ProvisionedThroughputExceededException), LimitExceededException and the
// other throttle codes of the SDK's standard retryer, and
// InternalServerError.
var retryCodes = map[string]bool{
	"ThrottlingException":                    true,
	"ProvisionedThroughputExceededException": true,
	"LimitExceededException":                 true,
	"Throttling":                             true,
	"TooManyRequestsException":               true,
	"RequestLimitExceeded":                   true,
	"InternalServerError":                    true,
	"ServiceUnavailableException":            true,
}

// retryable reports whether a failed attempt may succeed if sent again:
// the codes of retryCodes, any other 5xx or 429 answer, and a request
// that got no answer; never an unreadable image, a refusal of access or
// a failure to sign.
func retryable(err error) bool {
	var re *ResponseError
	if errors.As(err, &re) {
		switch {
		case badFrameCodes[re.Code], re.Code == "AccessDeniedException":
			return false
		case retryCodes[re.Code]:
			return true
		}
		return re.Status >= 500 || re.Status == http.StatusTooManyRequests
	}
	var te *transportError
	return errors.As(err, &te)
}

// transportError is an attempt that got no complete answer: the
// connection failed, or the attempt ran out of Retry.AttemptTimeout.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// send makes the DetectLabels call with body and returns the answer's
// body, retrying as Retry says while ctx lasts.
func (d *Detector) send(ctx context.Context, body []byte) ([]byte, error) {
	sum := sha256.Sum256(body)
	payloadHash := hex.EncodeToString(sum[:])
	deadline := d.now().Add(d.retry.MaxElapsed)
	for attempt := 1; ; attempt++ {
		answer, err := d.attempt(ctx, body, payloadHash)
		if err == nil {
			return answer, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			if !errors.Is(err, ctxErr) {
				err = fmt.Errorf("%w (attempt %d: %w)", ctxErr, attempt, err)
			}
			return nil, err
		}
		if !retryable(err) {
			return nil, err
		}
		if attempt >= d.retry.MaxAttempts {
			return nil, fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
		wait := d.backoff(attempt)
		if d.now().Add(wait).After(deadline) {
			return nil, fmt.Errorf("gave up after %d attempts, out of the %s budget: %w", attempt, d.retry.MaxElapsed, err)
		}
		if werr := d.sleep(ctx, wait); werr != nil {
			return nil, fmt.Errorf("%w (waiting to retry after %w)", werr, err)
		}
	}
}

// backoff returns the wait after the given failed attempt: full jitter
// from 0 to min(MaxDelay, BaseDelay·2^(attempt-1)).
func (d *Detector) backoff(attempt int) time.Duration {
	limit := d.retry.MaxDelay
	if shift := attempt - 1; shift < 32 {
		if c := d.retry.BaseDelay << shift; c > 0 && c < limit {
			limit = c
		}
	}
	return time.Duration(d.jitter(int64(limit) + 1))
}

// attempt sends one signed request and returns a 200 answer's body, or a
// *ResponseError, a *transportError, or a failure to sign.
func (d *Detector) attempt(ctx context.Context, body []byte, payloadHash string) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, d.retry.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, d.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", target)
	creds, err := d.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieve credentials: %w", err)
	}
	if err := d.signer.SignHTTP(ctx, creds, req, payloadHash, service, d.region, d.now()); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, &transportError{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, readError(resp)
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, &transportError{fmt.Errorf("read answer: %w", err)}
	}
	if len(answer) > maxAnswer {
		return nil, fmt.Errorf("answer over %d bytes", maxAnswer)
	}
	return answer, nil
}

// readError reads Rekognition's error answer (awsJson1_1): the code from
// the X-Amzn-ErrorType header, else the body's __type (or code), without
// the namespace before '#' or the suffix after ':'; the message from the
// body's message (or Message).
func readError(resp *http.Response) *ResponseError {
	e := &ResponseError{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Amzn-Requestid")}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	info := errorBody(data)
	code := resp.Header.Get("X-Amzn-Errortype")
	if code == "" {
		code = info.Type
	}
	if code == "" {
		code = info.Code
	}
	e.Code, e.Message = sanitizeCode(code), info.Message
	if e.Code == "" {
		e.Code = strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "")
	}
	return e
}

// sanitizeCode strips an error code's namespace
// ("com.amazonaws.rekognition#ThrottlingException") and suffix
// ("ThrottlingException:http://internal.amazon.com/…"), as the SDK does.
func sanitizeCode(code string) string {
	code, _, _ = strings.Cut(code, ":")
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	return strings.TrimSpace(code)
}
