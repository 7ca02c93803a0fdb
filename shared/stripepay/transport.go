package stripepay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	stripe "github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/form"
)

// This file is the one HTTP round trip to Stripe. The parameters are
// encoded by stripe-go's form package, exactly as its own backend encodes
// them, and carry their Stripe-Account and Idempotency-Key in stripe-go's
// stripe.Params; the call itself is written here rather than made through
// stripe-go's backend (stripe.GetBackendWithConfig with the checkout/session
// client, or client.API). That backend decodes every error into
// stripe.Error, whose fields reach most of Stripe's object model, and the
// resource clients decode into the full resource types: linked into a
// function they add about 0.9 MiB (measured on v1-leads' main, arm64,
// stripped: 917,504 bytes, 7.69 to 8.56 MiB, past the 8 MiB budget;
// client.API 983,040 bytes), where this package adds about 93 KB of code
// and data (65,536 to 131,072 bytes of file, by 64 KiB segment
// alignment). The retry policy is stripe-go's.

// sleepCtx waits d, or fails with ctx's error when ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// APIError is Stripe's answer to a request it did not carry out.
type APIError struct {
	// Status is the HTTP status.
	Status int
	// Type, Code, Param and Message are the error object's fields
	// (invalid_request_error, resource_missing, …).
	Type, Code, Param, Message string
	// RequestID is Stripe's Request-Id header, for Stripe's support.
	RequestID string
	// shouldRetry is Stripe-Should-Retry: "true", "false" or "".
	shouldRetry string
}

// Error reports the status, type, code, parameter, message and request id.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stripe answered %d %s", e.Status, e.Type)
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Param != "" {
		fmt.Fprintf(&b, " on %s", e.Param)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return b.String()
}

// retryable reports whether the request may be sent again, as stripe-go
// decides: when Stripe-Should-Retry says so; else for 409 (a concurrent
// request with the same idempotency key), a 429 lock timeout, 503, and a
// 5xx to a GET.
func (e *APIError) retryable(method string) bool {
	switch e.shouldRetry {
	case "true":
		return true
	case "false":
		return false
	}
	switch {
	case e.Status == http.StatusConflict, e.Status == http.StatusServiceUnavailable:
		return true
	case e.Status == http.StatusTooManyRequests:
		return e.Code == string(stripe.ErrorCodeLockTimeout)
	}
	return e.Status >= 500 && method != http.MethodPost
}

// kind returns ErrNotFound or ErrRefused for the statuses they stand for,
// else nil.
func (e *APIError) kind() error {
	switch {
	case e.Status == http.StatusNotFound || e.Code == string(stripe.ErrorCodeResourceMissing):
		return ErrNotFound
	case e.Status >= 400 && e.Status < 500 && e.Status != http.StatusConflict && e.Status != http.StatusTooManyRequests:
		return ErrRefused
	}
	return nil
}

// call sends params (encoded in the body of a POST, in the query of a GET)
// to path and decodes a 2xx answer into out, retrying what may be retried
// (network errors and the answers of APIError.retryable) up to maxRetries
// times with the same idempotency key. The Stripe-Account and
// Idempotency-Key headers come from params' stripe.Params; ctx bounds the
// whole call. A refusal fails with an *APIError, wrapped in ErrNotFound or
// ErrRefused when it is one.
func (c *Client) call(ctx context.Context, method, path string, params stripe.ParamsContainer, out any) error {
	values := &form.Values{}
	form.AppendTo(values, params)
	p := params.GetParams()
	var lastErr error
	for attempt := 0; ; attempt++ {
		err := c.attempt(ctx, method, path, values.Encode(), p, out)
		if err == nil {
			return nil
		}
		lastErr = err
		var apiErr *APIError
		retry := ctx.Err() == nil && (!errors.As(err, &apiErr) || apiErr.retryable(method))
		if !retry || attempt == maxRetries {
			break
		}
		delay := retryDelay * time.Duration(1+attempt*attempt)
		delay -= time.Duration(rand.Int64N(int64(delay / 4)))
		if err := c.sleep(ctx, delay); err != nil {
			lastErr = errors.Join(lastErr, err)
			break
		}
	}
	var apiErr *APIError
	if errors.As(lastErr, &apiErr) {
		if kind := apiErr.kind(); kind != nil {
			return fmt.Errorf("%w: %w", kind, lastErr)
		}
	}
	return lastErr
}

// attempt sends the request once.
func (c *Client) attempt(ctx context.Context, method, path, encoded string, p *stripe.Params, out any) error {
	target := c.apiURL + path
	var body io.Reader
	if method == http.MethodGet {
		if encoded != "" {
			target += "?" + encoded
		}
	} else {
		body = strings.NewReader(encoded)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Stripe-Version", APIVersion)
	req.Header.Set("User-Agent", "partnerapi-stripepay (stripe-go/"+stripe.ClientVersion+")")
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if p.StripeAccount != nil {
		req.Header.Set("Stripe-Account", *p.StripeAccount)
	}
	if p.IdempotencyKey != nil {
		req.Header.Set("Idempotency-Key", *p.IdempotencyKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return fmt.Errorf("read Stripe's answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return apiErrorOf(resp, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode Stripe's answer: %w", err)
	}
	return nil
}

// apiErrorOf reads Stripe's error answer: {"error": {type, code, param,
// message}} and the Request-Id and Stripe-Should-Retry headers. A body
// that is not such an object leaves the fields empty.
func apiErrorOf(resp *http.Response, data []byte) *APIError {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Code    string `json:"code"`
			Param   string `json:"param"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &body)
	return &APIError{
		Status:      resp.StatusCode,
		Type:        body.Error.Type,
		Code:        body.Error.Code,
		Param:       body.Error.Param,
		Message:     body.Error.Message,
		RequestID:   resp.Header.Get("Request-Id"),
		shouldRetry: resp.Header.Get("Stripe-Should-Retry"),
	}
}
