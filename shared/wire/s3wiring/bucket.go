// The clip bucket (settings.ClipBucket) through shared/adapter/s3store, for the
// builders of the functions that reach it, honouring AWS_ENDPOINT_URL_S3
// (path-style addressing then, as local servers need).

package s3wiring

import (
	"context"

	"github.com/moveleads/partnerapi/shared/adapter/s3store"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// openBucket returns the clip bucket on e's configuration.
func openBucket(e *awsenv.Env) (*s3store.Store, error) {
	name, err := e.Setting(settings.ClipBucket)
	if err != nil {
		return nil, err
	}
	var o s3store.Options
	if endpoint := awsenv.Endpoint(e.Getenv, "S3"); endpoint != nil {
		o.Endpoint = *endpoint
	}
	return s3store.New(e.Config, name, o)
}

// Signatures stores signed quotes' signature images in the bucket
// (quotes.Signatures), as image/png under manifest.SignaturePrefix.
type Signatures struct{ Store *s3store.Store }

// PutSignature stores png at key.
func (s Signatures) PutSignature(ctx context.Context, key string, png []byte) error {
	return s.Store.Put(ctx, key, "image/png", png)
}

// GetSignature returns the image at key, of at most max bytes.
func (s Signatures) GetSignature(ctx context.Context, key string, max int64) ([]byte, error) {
	return s.Store.Get(ctx, key, max)
}
