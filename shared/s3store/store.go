package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The errors callers tell apart with errors.Is; see the package
// documentation for every other failure.
var (
	// ErrNotFound: the object (or, for Head, its bucket) does not exist.
	ErrNotFound = errors.New("s3store: object not found")
	// ErrInvalid: an argument is outside its documented bounds; nothing
	// was sent to S3.
	ErrInvalid = errors.New("s3store: invalid argument")
)

// maxKeyLen is S3's limit on an object key, in bytes of UTF-8.
const maxKeyLen = 1024

// Options are New's optional settings.
type Options struct {
	// Endpoint is the base URL of an S3-compatible server (the value of
	// AWS_ENDPOINT_URL_S3, such as MinIO's http://127.0.0.1:9000), reached
	// with path-style addresses (ENDPOINT/BUCKET/KEY). Empty means Amazon
	// S3 in the configuration's region, with virtual-hosted addresses
	// (https://BUCKET.s3.REGION.amazonaws.com/KEY), or path-style ones for
	// a bucket whose name has a dot (TLS certificates cover one label).
	Endpoint string
	// Now is the clock requests are signed by; nil means time.Now.
	Now func() time.Time
}

// Store reads and signs requests for the objects of one bucket.
type Store struct {
	bucket string
	region string
	creds  aws.CredentialsProvider
	http   aws.HTTPClient
	signer *v4.Signer
	now    func() time.Time
	// base is the scheme and host requests go to, and prefix the path
	// before the key: "/" (virtual-hosted) or "/BUCKET/" (path-style).
	base   url.URL
	prefix string
}

// New returns a Store over bucket with cfg's region, credentials and HTTP
// client (config.LoadDefaultConfig's, as for every other AWS client). It
// sends no request: a missing bucket or bad credentials show up in the
// first call that reaches S3 (presigning does not). It fails when cfg has
// no region or credentials, when bucket is not a bucket name, or when
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
	s := &Store{
		bucket: bucket,
		region: cfg.Region,
		creds:  cfg.Credentials,
		http:   cfg.HTTPClient,
		now:    o.Now,
		// S3 signs the path as sent, escaped once (escapeKey), where
		// other services escape it again.
		signer: v4.NewSigner(func(so *v4.SignerOptions) { so.DisableURIPathEscaping = true }),
	}
	if s.http == nil {
		s.http = http.DefaultClient
	}
	if s.now == nil {
		s.now = time.Now
	}
	switch {
	case o.Endpoint != "":
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("s3store: endpoint %q: want http(s)://HOST[:PORT]", o.Endpoint)
		}
		s.base = url.URL{Scheme: u.Scheme, Host: u.Host}
		s.prefix = strings.TrimSuffix(u.Path, "/") + "/" + bucket + "/"
	case strings.Contains(bucket, "."):
		s.base = url.URL{Scheme: "https", Host: "s3." + cfg.Region + ".amazonaws.com"}
		s.prefix = "/" + bucket + "/"
	default:
		s.base = url.URL{Scheme: "https", Host: bucket + ".s3." + cfg.Region + ".amazonaws.com"}
		s.prefix = "/"
	}
	return s, nil
}

// Bucket returns the bucket's name.
func (s *Store) Bucket() string { return s.bucket }

// Origin returns the scheme and host of every URL the store signs, as a
// browser's Content-Security-Policy (connect-src, media-src) names it.
func (s *Store) Origin() string { return s.base.Scheme + "://" + s.base.Host }

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
// same as a missing object), and otherwise with S3's error wrapped.
func (s *Store) Head(ctx context.Context, key string) (Object, error) {
	if err := checkKey(key); err != nil {
		return Object{}, fmt.Errorf("head: %w", err)
	}
	resp, err := s.send(ctx, http.MethodHead, key, nil)
	if err != nil {
		return Object{}, s.fail("head", key, err)
	}
	resp.Body.Close()
	size, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64)
	if err != nil || size < 0 {
		return Object{}, s.fail("head", key, fmt.Errorf("Content-Length %q", resp.Header.Get("Content-Length")))
	}
	return Object{
		Size:        size,
		ContentType: resp.Header.Get("Content-Type"),
		ETag:        strings.Trim(resp.Header.Get("ETag"), `"`),
	}, nil
}

// fail wraps err with what was done to which key.
func (s *Store) fail(op, key string, err error) error {
	return fmt.Errorf("%s s3://%s/%s: %w", op, s.bucket, key, err)
}

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

// Touch stores an empty object at key (replacing any object there): a
// marker whose object-created event is the point (see survey.FinishKey).
// It fails with ErrInvalid for an invalid key, and otherwise with S3's
// error wrapped; transport failures and 5xx answers are retried.
func (s *Store) Touch(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("touch: %w", err)
	}
	resp, err := s.send(ctx, http.MethodPut, key, http.Header{"Content-Type": {"application/octet-stream"}})
	if err != nil {
		return s.fail("touch", key, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	return nil
}

// Put stores body at key with contentType (replacing any object there).
// It fails with ErrInvalid for an invalid key, and otherwise with S3's
// error wrapped; transport failures and 5xx answers are retried (the body
// is sent again whole).
func (s *Store) Put(ctx context.Context, key, contentType string, body []byte) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	if body == nil {
		body = []byte{}
	}
	resp, err := s.sendBody(ctx, http.MethodPut, key, http.Header{"Content-Type": {contentType}}, body)
	if err != nil {
		return s.fail("put", key, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	return nil
}
