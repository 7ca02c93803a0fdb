package surveys

import (
	"context"
	"errors"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// linkKeyFrom returns the capture link key's loader with its errors in the
// API's terms. It keeps no copy: the secret source caches the value per
// instance (awsenv.Env.Secret), so a rotated key is picked up like every
// other secret, and a failed load is tried again on the next request.
func linkKeyFrom(load func(context.Context) ([]byte, error)) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		if load == nil {
			return nil, errors.New("no capture link key is configured for this function")
		}
		k, err := load(ctx)
		if err != nil {
			if errcode.As(err) != nil {
				return nil, err
			}
			return nil, errcode.Upstream("load capture link key", err)
		}
		return k, nil
	}
}
