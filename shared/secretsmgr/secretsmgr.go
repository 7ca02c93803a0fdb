// Package secretsmgr reads a secret's string value from AWS Secrets
// Manager for the Lambda functions: one operation, GetSecretValue, spoken
// over Secrets Manager's JSON 1.1 protocol, signed by the SDK's SigV4
// signer (aws/signer/v4) with the configuration's credentials and sent by
// its HTTP client.
//
// The SDK's Secrets Manager client does the same but adds 262,144 B to a
// function binary (its endpoint rules, every operation's serializers and
// middleware), and the functions that read secrets are the largest, near
// the 8 MiB budget (docs/BENCHMARKS.md). Tools (opctl) use the SDK's
// client; the tests check this package's requests against the same
// stand-in the SDK's client is run against, signatures included.
//
// Endpoint: https://secretsmanager.REGION.amazonaws.com, or the endpoint
// given to New (AWS_ENDPOINT_URL_SECRETS_MANAGER, as the SDK reads it).
// Not supported, because nothing here uses them: FIPS and dual-stack
// endpoints, other partitions than aws, binary secrets (SecretBinary),
// version ids and stages (the current version is read).
//
// # Errors
//
// A transport failure, a 5xx answer or a throttling answer is retried,
// three attempts in all with jittered backoff, while the context lasts.
// Any other answer is a [*ResponseError] with Secrets Manager's error code
// (ResourceNotFoundException, AccessDeniedException, …) and message, for
// logs: the secret's value is never part of an error.
package secretsmgr

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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

// Retries, as the SDK's standard retryer: up to maxAttempts in all, after
// a jittered exponential backoff from baseBackoff.
const (
	maxAttempts = 3
	baseBackoff = 50 * time.Millisecond
	// maxBody bounds how much of an answer is read: a secret's value is at
	// most 65,536 bytes, which JSON escaping can at most sextuple.
	maxBody = 512 << 10
)

// signingName is Secrets Manager's name in SigV4 credential scopes.
const signingName = "secretsmanager"

// Client reads secrets. It holds no state per request and is safe for
// concurrent use.
type Client struct {
	endpoint string
	region   string
	creds    aws.CredentialsProvider
	http     aws.HTTPClient
	signer   *v4.Signer
	now      func() time.Time
}

// New returns a Client for cfg's region and credentials. endpoint, when
// not "", is the service's URL (http(s)://HOST[:PORT]), as
// AWS_ENDPOINT_URL_SECRETS_MANAGER gives it. It sends no request.
func New(cfg aws.Config, endpoint string) (*Client, error) {
	if cfg.Region == "" {
		return nil, errors.New("secretsmgr: the AWS configuration has no region")
	}
	if cfg.Credentials == nil {
		return nil, errors.New("secretsmgr: the AWS configuration has no credentials")
	}
	c := &Client{region: cfg.Region, creds: cfg.Credentials, http: cfg.HTTPClient, signer: v4.NewSigner(), now: time.Now}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	if endpoint == "" {
		c.endpoint = "https://secretsmanager." + cfg.Region + ".amazonaws.com/"
	} else {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("secretsmgr: endpoint %q: want http(s)://HOST[:PORT]", endpoint)
		}
		c.endpoint = u.Scheme + "://" + u.Host + "/"
	}
	return c, nil
}

// ResponseError is an answer of Secrets Manager other than 200.
type ResponseError struct {
	// Status is the HTTP status code.
	Status int
	// Code is Secrets Manager's error code (ResourceNotFoundException,
	// AccessDeniedException, …), or the status text when the answer names
	// none.
	Code string
	// Message is Secrets Manager's message, if the answer had one.
	Message string
	// RequestID is the request's id (x-amzn-RequestId), for AWS support.
	RequestID string
}

func (e *ResponseError) Error() string {
	msg := fmt.Sprintf("Secrets Manager answered %d %s", e.Status, e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request id " + e.RequestID + ")"
	}
	return msg
}

// SecretString returns the current SecretString of the secret id (its ARN
// or name). A secret that holds only SecretBinary is an error.
func (c *Client) SecretString(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", errors.New("secretsmgr: no secret id")
	}
	body, err := json.Marshal(struct {
		SecretID string `json:"SecretId"`
	}{id})
	if err != nil {
		return "", err
	}
	out, err := c.send(ctx, "GetSecretValue", body)
	if err != nil {
		return "", fmt.Errorf("GetSecretValue %s: %w", id, err)
	}
	var v struct {
		SecretString *string
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return "", fmt.Errorf("GetSecretValue %s: the answer is not JSON: %w", id, err)
	}
	if v.SecretString == nil {
		return "", fmt.Errorf("GetSecretValue %s: the secret has no string value", id)
	}
	return *v.SecretString, nil
}

// send posts the operation's body and returns a 200 answer's body,
// retrying as the package doc says.
func (c *Client) send(ctx context.Context, op string, body []byte) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		out, err := c.sendOnce(ctx, op, body)
		if err == nil {
			return out, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			if !errors.Is(err, ctxErr) {
				err = fmt.Errorf("%w (%w)", ctxErr, err)
			}
			return nil, err
		}
		if attempt == maxAttempts || !retryable(err) {
			return nil, err
		}
		// Full jitter: a random wait up to base·2^(attempt-1).
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (waiting to retry %w)", ctx.Err(), err)
		case <-time.After(rand.N(baseBackoff << (attempt - 1))):
		}
	}
}

// retryable reports whether a failed request may succeed if sent again:
// transport failures, 5xx answers and throttling.
func retryable(err error) bool {
	var re *ResponseError
	if errors.As(err, &re) {
		return re.Status >= 500 || re.Status == http.StatusTooManyRequests || re.Code == "ThrottlingException"
	}
	var te *transportError
	return errors.As(err, &te)
}

// transportError is a request that got no answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

func (c *Client) sendOnce(ctx context.Context, op string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "secretsmanager."+op)
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieve credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := c.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), signingName, c.region, c.now()); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &transportError{err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, &transportError{err}
	}
	if resp.StatusCode == http.StatusOK {
		return data, nil
	}
	return nil, readError(resp, data)
}

// readError reads a JSON 1.1 error answer: the code from X-Amzn-ErrorType
// or the body's __type (either may carry a namespace before '#' and, in
// the header, details after ':'), the message from message or Message.
func readError(resp *http.Response, data []byte) *ResponseError {
	e := &ResponseError{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Amzn-Requestid")}
	var v struct {
		Type    string `json:"__type"`
		Code    string `json:"code"`
		Message string `json:"message"`
		Upper   string `json:"Message"`
	}
	_ = json.Unmarshal(data, &v)
	code := resp.Header.Get("X-Amzn-Errortype")
	if code == "" {
		code = v.Type
	}
	if code == "" {
		code = v.Code
	}
	code, _, _ = strings.Cut(code, ":")
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	if code == "" {
		code = strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "")
	}
	e.Code = code
	e.Message = v.Message
	if e.Message == "" {
		e.Message = v.Upper
	}
	return e
}
