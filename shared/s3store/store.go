package s3store

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
)

// maxKeyLen is S3's limit on an object key, in bytes of UTF-8.
const maxKeyLen = 1024

// Store reads and signs requests for the objects of one bucket.
type Store struct {
	client  *s3.Client
	presign *s3.PresignClient
	bucket  string
}

// New returns a Store over bucket, reached through client. The presign
// client is built here, once. New sends no request: a missing bucket or
// bad credentials show up in the first call that reaches S3 (presigning
// does not).
func New(client *s3.Client, bucket string) *Store {
	return &Store{client: client, presign: s3.NewPresignClient(client), bucket: bucket}
}

// Bucket returns the bucket's name.
func (s *Store) Bucket() string { return s.bucket }

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
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return Object{}, s.fail("head", key, err)
	}
	return Object{
		Size:        aws.ToInt64(out.ContentLength),
		ContentType: aws.ToString(out.ContentType),
		ETag:        strings.Trim(aws.ToString(out.ETag), `"`),
	}, nil
}

// fail wraps an SDK error with what was done to which key, adding
// ErrNotFound when S3 said the object or bucket does not exist.
func (s *Store) fail(op, key string, err error) error {
	if isNotFound(err) {
		return fmt.Errorf("%s s3://%s/%s: %w (%w)", op, s.bucket, key, ErrNotFound, err)
	}
	return fmt.Errorf("%s s3://%s/%s: %w", op, s.bucket, key, err)
}

// isNotFound reports whether err is S3's answer that a key or bucket does
// not exist: NoSuchKey and NoSuchBucket for requests with a body in the
// response, NotFound (a bare 404) for HEAD.
func isNotFound(err error) bool {
	var (
		noKey    *types.NoSuchKey
		noBucket *types.NoSuchBucket
		notFound *types.NotFound
		resp     *awshttp.ResponseError
	)
	switch {
	case errors.As(err, &noKey), errors.As(err, &noBucket), errors.As(err, &notFound):
		return true
	case errors.As(err, &resp):
		return resp.HTTPStatusCode() == http.StatusNotFound
	}
	return false
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
