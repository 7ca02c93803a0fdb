package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/s3event"
	"github.com/moveleads/partnerapi/shared/s3store"
	"github.com/moveleads/partnerapi/shared/settings"
	"github.com/moveleads/partnerapi/shared/surveys"
)

// ClipObjects returns the clip bucket (settings.ClipBucket) as the survey
// service uses it, through an S3 client on e's configuration that honours
// AWS_ENDPOINT_URL_S3 (path-style addressing then, as local servers need).
func ClipObjects(e *awsenv.Env) (surveys.Objects, error) {
	bucket, err := e.Setting(settings.ClipBucket)
	if err != nil {
		return nil, err
	}
	endpoint := awsenv.Endpoint(e.Getenv, "S3")
	client := s3.NewFromConfig(e.Config, func(o *s3.Options) {
		o.BaseEndpoint = endpoint
		o.UsePathStyle = endpoint != nil
	})
	st := s3store.New(client, bucket)
	origin, err := presignOrigin(st)
	if err != nil {
		return nil, err
	}
	return clipObjects{st: st, origin: origin}, nil
}

// presignOrigin is the scheme and host of the store's presigned URLs
// (presigning sends nothing).
func presignOrigin(st *s3store.Store) (string, error) {
	raw, err := st.PresignGet(context.Background(), "origin", time.Minute)
	if err != nil {
		return "", fmt.Errorf("clip bucket: %w", err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("clip bucket: presigned URL: %w", err)
	}
	return u.Scheme + "://" + u.Host, nil
}

// clipObjects adapts s3store.Store to surveys.Objects.
type clipObjects struct {
	st     *s3store.Store
	origin string
}

func (c clipObjects) PresignUpload(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (surveys.Upload, error) {
	up, err := c.st.PresignUpload(ctx, key, contentType, size, ttl)
	if err != nil {
		return surveys.Upload{}, err
	}
	return surveys.Upload{Method: up.Method, URL: up.URL, Headers: up.Headers, ExpiresAt: up.ExpiresAt}, nil
}

func (c clipObjects) Size(ctx context.Context, key string) (int64, bool, error) {
	o, err := c.st.Head(ctx, key)
	if errors.Is(err, s3store.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return o.Size, true, nil
}

func (c clipObjects) Open(ctx context.Context, key string, size int64) io.ReaderAt {
	return c.st.ReaderAt(ctx, key, size)
}

func (c clipObjects) Origin() string { return c.origin }

// clipProcessor adapts the survey service to the S3 edge.
type clipProcessor struct{ s *surveys.Service }

func (p clipProcessor) Process(ctx context.Context, obj s3event.Object) error {
	return p.s.ProcessClip(ctx, surveys.Object{Key: obj.Key, Size: obj.Size}, time.Now())
}
