package surveys

import (
	"context"
	"errors"
	"sync"

	"github.com/moveleads/partnerapi/shared/errcode"
)

// lazyKey loads the capture link key on first use, so a cold start pays
// nothing for the secret. A failed load is not remembered: the next
// request tries again.
func lazyKey(load func(context.Context) ([]byte, error)) func(context.Context) ([]byte, error) {
	var mu sync.Mutex
	var key []byte
	return func(ctx context.Context) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if key != nil {
			return key, nil
		}
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
		key = k
		return key, nil
	}
}
