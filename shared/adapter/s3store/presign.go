package s3store

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Bounds of the presigned requests.
const (
	// MaxUploadSize is the largest object PresignUpload signs for: 500 MiB.
	MaxUploadSize = 500 << 20
	// MaxUploadTTL is the longest an upload URL stays valid.
	MaxUploadTTL = time.Hour
	// MaxGetTTL is the longest a download URL stays valid.
	MaxGetTTL = 10 * time.Minute
	// minTTL is the shortest validity a SigV4 presigned URL can carry
	// (X-Amz-Expires counts whole seconds, from 1).
	minTTL = time.Second
	// maxContentTypeLen bounds the signed Content-Type (RFC 6838 names are
	// at most 127+1+127 characters; parameters such as codecs add a few).
	maxContentTypeLen = 255
)

// Upload is a presigned PUT: send the object's bytes as the body of
// Method to URL with exactly Headers, before ExpiresAt.
type Upload struct {
	URL    string
	Method string
	// Headers are the signed headers the client must set: Content-Type
	// and If-None-Match ("*"). Host and Content-Length are signed too but
	// not listed: HTTP clients derive them from the URL and the body, and
	// browsers refuse to let scripts set them. A body of another length
	// than the size signed is refused with 403, as is another
	// Content-Type; a PUT to a key that already holds an object is
	// refused with 412 (PreconditionFailed).
	Headers map[string]string
	// ExpiresAt is when S3 starts refusing the URL (403): the signing
	// time, in whole seconds, plus the TTL.
	ExpiresAt time.Time
}

// PresignUpload signs a PUT of exactly size bytes of contentType to key,
// valid for ttl. The signature covers Content-Type and Content-Length, so
// S3 refuses (403) a request with any other type or length, and a request
// after ExpiresAt. It covers If-None-Match: * too (S3's conditional
// write), so the URL creates the object once: a later PUT through it,
// while the object exists, is refused with 412 and changes nothing, and
// what the processor checked stays what is served. Presigning is local
// CPU work: it sends no request, so it succeeds whether or not the bucket
// exists.
//
// It fails with ErrInvalid, before signing, for an invalid key, a content
// type that is not a valid media type of printable ASCII (at most 255
// bytes), a size outside 1..MaxUploadSize, or a ttl outside
// 1s..MaxUploadTTL (a fraction of a second is dropped). Any other failure
// (credentials that cannot be retrieved) is wrapped.
func (s *Store) PresignUpload(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (Upload, error) {
	if err := checkUpload(key, contentType, size, ttl); err != nil {
		return Upload{}, fmt.Errorf("presign upload: %w", err)
	}
	req, err := s.presign.PresignPutObject(ctx, &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &key,
		ContentType:   &contentType,
		ContentLength: &size,
		IfNoneMatch:   aws.String("*"),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return Upload{}, s.fail("presign upload", key, err)
	}
	headers := make(map[string]string, len(req.SignedHeader))
	for name, values := range req.SignedHeader {
		name = http.CanonicalHeaderKey(name)
		if name == "Host" || name == "Content-Length" {
			continue
		}
		headers[name] = strings.Join(values, ",")
	}
	expires, err := expiresAt(req.URL)
	if err != nil {
		return Upload{}, s.fail("presign upload", key, err)
	}
	return Upload{URL: req.URL, Method: req.Method, Headers: headers, ExpiresAt: expires}, nil
}

// PresignGet signs a GET of the object at key, valid for ttl: the address
// the viewer plays a clip from. A Range header is not part of the
// signature, so players can seek (206). Presigning sends no request: the
// URL of a missing object is signed, and S3 answers it 404.
//
// It fails with ErrInvalid for an invalid key or a ttl outside
// 1s..MaxGetTTL, and otherwise (credentials that cannot be
// retrieved) with the error wrapped.
func (s *Store) PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error) {
	if err := checkKey(key); err != nil {
		return "", fmt.Errorf("presign get: %w", err)
	}
	if err := checkTTL(ttl, MaxGetTTL); err != nil {
		return "", fmt.Errorf("presign get: %w", err)
	}
	req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &key}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", s.fail("presign get", key, err)
	}
	return req.URL, nil
}

// expiresAt reads when a presigned URL stops working from its own
// X-Amz-Date and X-Amz-Expires, so Upload.ExpiresAt is exactly what the
// SDK's presigner signed.
func expiresAt(raw string) (time.Time, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return time.Time{}, err
	}
	q := u.Query()
	at, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		return time.Time{}, fmt.Errorf("presigned URL's X-Amz-Date: %w", err)
	}
	secs, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	if err != nil {
		return time.Time{}, fmt.Errorf("presigned URL's X-Amz-Expires: %w", err)
	}
	return at.Add(time.Duration(secs) * time.Second), nil
}

// checkUpload fails with ErrInvalid when PresignUpload's arguments are
// out of bounds.
func checkUpload(key, contentType string, size int64, ttl time.Duration) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := checkContentType(contentType); err != nil {
		return err
	}
	if size < 1 || size > MaxUploadSize {
		return fmt.Errorf("%w: size %d bytes, want 1 to %d", ErrInvalid, size, MaxUploadSize)
	}
	return checkTTL(ttl, MaxUploadTTL)
}

// checkContentType accepts a media type, type/subtype with optional
// parameters, that a browser sends unchanged as a header value: printable
// ASCII without surrounding spaces. Parameters are not parsed further:
// browsers write them unquoted (MediaRecorder's
// "video/webm;codecs=vp8,opus"), which mime.ParseMediaType refuses.
func checkContentType(ct string) error {
	if ct == "" || len(ct) > maxContentTypeLen {
		return fmt.Errorf("%w: content type of %d bytes, want 1 to %d", ErrInvalid, len(ct), maxContentTypeLen)
	}
	for i := 0; i < len(ct); i++ {
		if ct[i] < 0x20 || ct[i] > 0x7e {
			return fmt.Errorf("%w: content type %q has a byte outside printable ASCII", ErrInvalid, ct)
		}
	}
	// A value with surrounding spaces would be sent trimmed, and then
	// would not be the value signed.
	if strings.TrimSpace(ct) != ct {
		return fmt.Errorf("%w: content type %q has surrounding spaces", ErrInvalid, ct)
	}
	mediaType, _, _ := strings.Cut(ct, ";")
	typ, sub, ok := strings.Cut(strings.TrimSpace(mediaType), "/")
	if !ok || !isToken(typ) || !isToken(sub) {
		return fmt.Errorf("%w: content type %q: want type/subtype", ErrInvalid, ct)
	}
	return nil
}

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func checkTTL(ttl, max time.Duration) error {
	if ttl < minTTL || ttl > max {
		return fmt.Errorf("%w: ttl %s, want %s to %s", ErrInvalid, ttl, minTTL, max)
	}
	return nil
}
