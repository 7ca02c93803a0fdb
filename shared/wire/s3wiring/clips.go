// The builders of the HTTP functions that reach the clip bucket
// (v1-capture, v1-video) and the adapter from shared/adapter/s3store to the survey
// feature (also the clip processor's: shared/wire/clipwiring).

package s3wiring

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/s3store"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/surveys"
	"github.com/moveleads/partnerapi/shared/app/videolinks"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Capture builds the v1-capture function's endpoints: the page and its
// calls.
func Capture(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	objects, err := ClipObjects(e)
	if err != nil {
		return nil, err
	}
	return surveys.New(surveys.Deps{Store: e.Store, Objects: objects, Log: e.Log}).CaptureEndpoints(), nil
}

// Video builds the v1-video function's endpoint: the viewer page.
func Video(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	st, err := clipStore(e)
	if err != nil {
		return nil, err
	}
	return videolinks.New(videolinks.Deps{Store: e.Store, Objects: st, Log: e.Log}).ViewEndpoints(), nil
}

// ClipObjects returns the clip bucket (settings.ClipBucket) as the survey
// service uses it, through s3store on e's configuration, honouring
// AWS_ENDPOINT_URL_S3 (path-style addressing then, as local servers need).
func ClipObjects(e *awsenv.Env) (surveys.Objects, error) {
	st, err := clipStore(e)
	if err != nil {
		return nil, err
	}
	return &clipObjects{st: st}, nil
}

// clipStore returns the clip bucket (openBucket). The store itself is
// what the viewer page needs (videolinks.Objects).
func clipStore(e *awsenv.Env) (*s3store.Store, error) { return openBucket(e) }

// clipObjects adapts s3store.Store to surveys.Objects.
type clipObjects struct{ st *s3store.Store }

func (c *clipObjects) PresignUpload(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (surveys.Upload, error) {
	up, err := c.st.PresignUpload(ctx, key, contentType, size, ttl)
	if err != nil {
		return surveys.Upload{}, err
	}
	return surveys.Upload{Method: up.Method, URL: up.URL, Headers: up.Headers, ExpiresAt: up.ExpiresAt}, nil
}

func (c *clipObjects) Size(ctx context.Context, key string) (int64, bool, error) {
	o, err := c.st.Head(ctx, key)
	if errors.Is(err, s3store.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return o.Size, true, nil
}

func (c *clipObjects) Open(ctx context.Context, key string, size int64) io.ReaderAt {
	return c.st.ReaderAt(ctx, key, size)
}

func (c *clipObjects) Touch(ctx context.Context, key string) error { return c.st.Touch(ctx, key) }

// Origin is the scheme and host of the store's presigned URLs.
func (c *clipObjects) Origin() string { return c.st.Origin() }

// ViewerObjects returns the clip bucket as the viewer page plays it
// (videolinks.Objects), for another function that plays clips: the
// partner dashboard's lead page.
func ViewerObjects(e *awsenv.Env) (videolinks.Objects, error) { return clipStore(e) }
