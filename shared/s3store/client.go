package s3store

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
)

// The requests are S3's REST API (HeadObject, ranged GetObject), signed by
// the SDK's SigV4 signer (aws/signer/v4) and sent by the configuration's
// HTTP client. The SDK's S3 client would do the same but weighs 1.25 MiB
// in a Lambda binary (its endpoint rules, every operation's middleware,
// XML and checksum stacks), which the functions' 8 MiB budget cannot hold:
// docs/BENCHMARKS.md.

// emptySHA256 is the hex SHA-256 of an empty body, the payload hash of
// every request sent here (none has a body).
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Retries: a request that fails in transport or with 500, 502, 503 or
// 504 is sent again, up to maxAttempts in all, after a jittered
// exponential backoff from baseBackoff (as the SDK's standard retryer).
const (
	maxAttempts = 3
	baseBackoff = 50 * time.Millisecond
	// maxErrorBody bounds how much of an error response is read.
	maxErrorBody = 16 << 10
)

// ResponseError is an answer of S3 other than 2xx. It matches ErrNotFound
// (errors.Is) when Status is 404.
type ResponseError struct {
	// Status is the HTTP status code.
	Status int
	// Code is S3's error code (NoSuchKey, AccessDenied, …), or for a HEAD,
	// whose answer has no body, the status text.
	Code string
	// Message is S3's message, if the answer had one.
	Message string
	// RequestID is S3's request id (x-amz-request-id), for AWS support.
	RequestID string
}

func (e *ResponseError) Error() string {
	msg := fmt.Sprintf("S3 answered %d %s", e.Status, e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request id " + e.RequestID + ")"
	}
	return msg
}

// Is reports whether e means target: ErrNotFound for a 404.
func (e *ResponseError) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound
}

// objectURL returns the address of the object at key. Path holds the key
// as is and RawPath the key escaped as SigV4 signs S3 paths (escapeKey),
// which is what the request carries.
func (s *Store) objectURL(key string) *url.URL {
	u := s.base
	u.Path = s.prefix + key
	u.RawPath = escapeKey(s.prefix) + escapeKey(key)
	return &u
}

// escapeKey percent-encodes every byte of key except the unreserved
// characters (A-Z a-z 0-9 - . _ ~) and "/", the encoding S3's SigV4
// canonical request uses for object keys.
func escapeKey(key string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(key))
	for i := 0; i < len(key); i++ {
		c := key[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// send makes a signed request without a body for the object at key, with
// header's fields added, and returns a 2xx response, whose body the
// caller closes. It retries transport failures and 5xx answers (see
// maxAttempts) while ctx lasts. Any other answer fails with a
// *ResponseError; a done ctx with ctx's error.
func (s *Store) send(ctx context.Context, method, key string, header http.Header) (*http.Response, error) {
	return s.sendBody(ctx, method, key, header, nil)
}

// sendBody is send with a request body (nil: none), signed by its
// SHA-256 and sent again whole on a retry.
func (s *Store) sendBody(ctx context.Context, method, key string, header http.Header, body []byte) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := s.sendOnce(ctx, method, key, header, body)
		if err == nil {
			return resp, nil
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
		wait := rand.N(baseBackoff << (attempt - 1))
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (waiting to retry %w)", ctx.Err(), err)
		case <-time.After(wait):
		}
	}
}

// retryable reports whether a failed request may succeed if sent again:
// S3's 5xx answers and transport failures, not its 4xx answers nor
// failures to sign.
func retryable(err error) bool {
	var re *ResponseError
	if errors.As(err, &re) {
		switch re.Status {
		case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var te *transportError
	return errors.As(err, &te)
}

// transportError is a request that got no answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

func (s *Store) sendOnce(ctx context.Context, method, key string, header http.Header, body []byte) (*http.Response, error) {
	var rd io.Reader
	payloadHash := emptySHA256
	if body != nil {
		rd = bytes.NewReader(body)
		sum := sha256.Sum256(body)
		payloadHash = hex.EncodeToString(sum[:])
	}
	req, err := http.NewRequestWithContext(ctx, method, "/", rd)
	if err != nil {
		return nil, err
	}
	req.URL = s.objectURL(key)
	req.Host = req.URL.Host
	for name, values := range header {
		req.Header[name] = values
	}
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieve credentials: %w", err)
	}
	if err := s.signer.SignHTTP(ctx, creds, req, payloadHash, "s3", s.region, s.now()); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, &transportError{err}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, readError(resp)
}

// readError reads S3's error answer: the XML body's Code and Message
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html),
// or, without a body (HEAD), the status text.
//
// The two texts are found by xmlText, not encoding/xml: they are for logs,
// and encoding/xml would add about 100 KB to a function binary.
func readError(resp *http.Response) *ResponseError {
	e := &ResponseError{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Amz-Request-Id")}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e.Code, e.Message = xmlText(data, "Code"), xmlText(data, "Message")
	if e.Code == "" {
		e.Code = strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "")
	}
	return e
}

// xmlText returns the text of the first <name> element of doc with XML's
// five predefined entities decoded, or "" when there is none. It reads S3's flat error documents, whose Code and
// Message are text without markup; it is no XML parser.
func xmlText(doc []byte, name string) string {
	s := string(doc)
	i := strings.Index(s, "<"+name+">")
	if i < 0 {
		return ""
	}
	s = s[i+len(name)+2:]
	j := strings.Index(s, "</"+name+">")
	if j < 0 {
		return ""
	}
	return xmlEntities.Replace(strings.TrimSpace(s[:j]))
}

// xmlEntities decodes XML's predefined entities.
var xmlEntities = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&amp;", "&")
