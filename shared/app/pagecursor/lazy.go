package pagecursor

import (
	"context"
	"fmt"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lazy"
)

// Lazy builds the signer on first use, so that a cold start pays nothing
// for the secret that load returns. A failed load is not remembered: the
// next request tries again.
func Lazy(load func(context.Context) ([]byte, error)) func(context.Context) (*Signer, error) {
	return lazy.NewValue(func(ctx context.Context) (*Signer, error) {
		if load == nil {
			return nil, fmt.Errorf("no cursor signing key is configured for this function")
		}
		key, err := load(ctx)
		if err != nil {
			if errcode.As(err) != nil {
				return nil, err
			}
			return nil, errcode.Upstream("load cursor signing key", err)
		}
		s, err := New(key)
		if err != nil {
			return nil, fmt.Errorf("cursor signing key: %w", err)
		}
		return s, nil
	}).Get
}
