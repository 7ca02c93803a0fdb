package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// The errors callers tell apart with errors.Is; see the package
// documentation for every other failure.
var (
	// ErrNotFound: the object (or, for Head, its bucket) does not exist.
	ErrNotFound = errors.New("s3store: object not found")
	// ErrInvalid: an argument is outside its documented bounds; nothing
	// was sent to S3.
	ErrInvalid = errors.New("s3store: invalid argument")
	// ErrTooLarge: Get's object is larger than the caller's bound.
	ErrTooLarge = errors.New("s3store: object too large")
)

// maxKeyLen is S3's limit on an object key, in bytes of UTF-8.
const maxKeyLen = 1024

// Options are New's optional settings.
type Options struct {
	// Endpoint is the base URL of an S3-compatible server (the value of
	// AWS_ENDPOINT_URL_S3, such as MinIO's http://127.0.0.1:9000), reached
	// with path-style addresses (ENDPOINT/BUCKET/KEY), as local servers
	// need. Empty means Amazon S3 in the configuration's region, addressed
	// as the SDK's endpoint rules say (virtual-hosted).
	Endpoint string
}

// Store reads, writes and signs requests for the objects of one bucket
// through the SDK's S3 client and its presigner.
type Store struct {
	bucket  string
	client  *s3.Client
	presign *s3.PresignClient
	origin  string
}

// New returns a Store over bucket with cfg's region, credentials, HTTP
// client and retryer (the SDK's standard one when cfg has none). It sends
// no request: a missing bucket or bad credentials show up in the first
// call that reaches S3 (presigning does not). It fails when cfg has no
// region or credentials, when bucket is not a bucket name, or when
// o.Endpoint is not an http(s) URL.
func New(cfg aws.Config, bucket string, o Options) (*Store, error) {
	if cfg.Region == "" {
		return nil, errors.New("s3store: the AWS configuration has no region")
	}
	if cfg.Credentials == nil {
		return nil, errors.New("s3store: the AWS configuration has no credentials")
	}
	if err := checkBucket(bucket); err != nil {
		return nil, err
	}
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("s3store: endpoint %q: want http(s)://HOST[:PORT]", o.Endpoint)
		}
	}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		// A ranged GET carries no whole-object checksum to validate; the
		// SDK would say so on stderr, outside the function's JSON log, for
		// every read of the clip processor.
		so.DisableLogOutputChecksumValidationSkipped = true
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
			so.UsePathStyle = true
		}
	})
	s := &Store{
		bucket:  bucket,
		client:  client,
		presign: s3.NewPresignClient(client),
	}
	origin, err := s.resolveOrigin()
	if err != nil {
		return nil, err
	}
	s.origin = origin
	return s, nil
}

// resolveOrigin asks the client's endpoint rules where the bucket's
// requests go, so Origin never disagrees with the URLs signed.
func (s *Store) resolveOrigin() (string, error) {
	o := s.client.Options()
	ep, err := o.EndpointResolverV2.ResolveEndpoint(context.Background(), s3.EndpointParameters{
		Bucket:         aws.String(s.bucket),
		Region:         aws.String(o.Region),
		Endpoint:       o.BaseEndpoint,
		ForcePathStyle: aws.Bool(o.UsePathStyle),
	})
	if err != nil {
		return "", fmt.Errorf("s3store: resolve the endpoint of bucket %s: %w", s.bucket, err)
	}
	return ep.URI.Scheme + "://" + ep.URI.Host, nil
}

// Bucket returns the bucket's name.
func (s *Store) Bucket() string { return s.bucket }

// Origin returns the scheme and host of every URL the store signs, as a
// browser's Content-Security-Policy (connect-src, media-src) names it.
func (s *Store) Origin() string { return s.origin }

// Object is what Head learns about an object.
type Object struct {
	// Size is the object's length in bytes.
	Size int64
	// ContentType is the type stored with the object: for a presigned
	// upload, the one signed.
	ContentType string
	// ETag is the object's entity tag without its quotes, as S3 event
	// notifications give it.
	ETag string
}

// Head returns the size, content type and ETag of the object at key. It
// fails with ErrInvalid for an invalid key, with ErrNotFound when S3
// answers 404 (a HEAD response has no body, so a missing bucket looks the
// same as a missing object), and otherwise with the SDK's error wrapped.
func (s *Store) Head(ctx context.Context, key string) (Object, error) {
	if err := checkKey(key); err != nil {
		return Object{}, fmt.Errorf("head: %w", err)
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return Object{}, s.fail("head", key, err)
	}
	if out.ContentLength == nil || *out.ContentLength < 0 {
		return Object{}, s.fail("head", key, errors.New("answer without a Content-Length"))
	}
	return Object{
		Size:        *out.ContentLength,
		ContentType: aws.ToString(out.ContentType),
		ETag:        strings.Trim(aws.ToString(out.ETag), `"`),
	}, nil
}

// Get returns the bytes of the object at key, which must be at most max
// bytes long: a larger one fails with ErrTooLarge, having read at most
// max+1 bytes of it. It fails with ErrInvalid for an invalid key or a max
// below 0, with ErrNotFound when the object or its bucket does not exist,
// and otherwise with the SDK's error wrapped.
func (s *Store) Get(ctx context.Context, key string, max int64) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	if max < 0 {
		return nil, fmt.Errorf("get %s: %w: bound %d below 0", key, ErrInvalid, max)
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return nil, s.fail("get", key, err)
	}
	defer out.Body.Close()
	if n := aws.ToInt64(out.ContentLength); n > max {
		return nil, s.fail("get", key, fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, n, max))
	}
	b, err := io.ReadAll(io.LimitReader(out.Body, max+1))
	if err != nil {
		return nil, s.fail("get", key, err)
	}
	if int64(len(b)) > max {
		return nil, s.fail("get", key, fmt.Errorf("%w: over %d bytes", ErrTooLarge, max))
	}
	return b, nil
}

// Touch stores an empty object at key (replacing any object there): a
// marker whose object-created event is the point (see survey.FinishKey).
// It fails with ErrInvalid for an invalid key, and otherwise with the
// SDK's error wrapped.
func (s *Store) Touch(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("touch: %w", err)
	}
	return s.put(ctx, "touch", key, "application/octet-stream", nil)
}

// Put stores body at key with contentType (replacing any object there).
// It fails with ErrInvalid for an invalid key, and otherwise with the
// SDK's error wrapped.
func (s *Store) Put(ctx context.Context, key, contentType string, body []byte) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	return s.put(ctx, "put", key, contentType, body)
}

func (s *Store) put(ctx context.Context, op, key, contentType string, body []byte) error {
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &key,
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
		ContentType:   &contentType,
	})
	if err != nil {
		return s.fail(op, key, err)
	}
	return nil
}

// fail wraps err with what was done to which key, and marks S3's
// not-found answers as ErrNotFound.
func (s *Store) fail(op, key string, err error) error {
	if isNotFound(err) {
		err = notFoundError{err}
	}
	return fmt.Errorf("%s s3://%s/%s: %w", op, s.bucket, key, err)
}

// isNotFound reports whether err is S3's answer that the object or its
// bucket does not exist: a typed error, or any 404 (a HEAD's answer has
// no body to type it by).
func isNotFound(err error) bool {
	var (
		nf  *types.NotFound
		nsk *types.NoSuchKey
		nsb *types.NoSuchBucket
		re  *awshttp.ResponseError
	)
	return errors.As(err, &nf) || errors.As(err, &nsk) || errors.As(err, &nsb) ||
		errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}

// notFoundError is an SDK error that means ErrNotFound; the SDK's typed
// error stays reachable through errors.As.
type notFoundError struct{ error }

func (e notFoundError) Is(target error) bool { return target == ErrNotFound }
func (e notFoundError) Unwrap() error        { return e.error }

// checkKey fails with ErrInvalid unless key is a usable S3 object key:
// 1 to 1024 bytes of valid UTF-8.
func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty key", ErrInvalid)
	case len(key) > maxKeyLen:
		return fmt.Errorf("%w: key of %d bytes, over %d", ErrInvalid, len(key), maxKeyLen)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w: key %q is not valid UTF-8", ErrInvalid, key)
	}
	return nil
}

// checkBucket fails unless name follows S3's general-purpose bucket
// naming rules: 3 to 63 lower-case letters, digits, dots and hyphens,
// beginning and ending with a letter or digit.
func checkBucket(name string) error {
	bad := func(why string) error { return fmt.Errorf("s3store: bucket name %q %s", name, why) }
	if len(name) < 3 || len(name) > 63 {
		return bad("is not 3 to 63 characters long")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return bad("has a character other than a-z, 0-9, '.' and '-'")
		}
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return bad("does not begin and end with a letter or digit")
	}
	return nil
}

func isAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
