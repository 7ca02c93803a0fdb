package pipeline

import (
	"context"
	"errors"

	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

// TokenVerify returns the Verify of a page whose path parameter is a link
// token (linktoken): a malformed token is l's unknown link, refused before
// resolve runs; otherwise resolve gets the token's hash. An error of
// resolve wrapping linktoken.ErrUnknown or linktoken.ErrExpired becomes
// l's not_found or link_expired answer, so every page of a link says both
// the same way; any other error passes as it is.
func TokenVerify(l linktoken.Link, resolve func(ctx context.Context, c *Call, hash string) (Grant, error)) func(context.Context, *Call) (Grant, error) {
	return func(ctx context.Context, c *Call) (Grant, error) {
		hash, err := linktoken.Parse(c.PathParam)
		if err != nil {
			return Grant{}, l.UnknownError()
		}
		g, err := resolve(ctx, c, hash)
		switch {
		case errors.Is(err, linktoken.ErrUnknown):
			return Grant{}, l.UnknownError()
		case errors.Is(err, linktoken.ErrExpired):
			return Grant{}, l.ExpiredError()
		}
		return g, err
	}
}
