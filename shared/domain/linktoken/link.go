package linktoken

import (
	"errors"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// The two ways a well-formed token fails on a page. A domain error that
// means one of them wraps it (survey.ErrTokenUnknown, ErrTokenExpired).
var (
	ErrUnknown = errors.New("linktoken: unknown link") // 404
	ErrExpired = errors.New("linktoken: expired link") // 410
)

// Link is one page's words for its link's two failures, so each page
// answers them the same way everywhere it meets them.
type Link struct {
	// Unknown is the not_found message: a malformed token, one never
	// issued, or one no longer kept.
	Unknown string
	// Expired is the link_expired message.
	Expired string
}

// UnknownError is l's not_found answer, wrapping ErrUnknown.
func (l Link) UnknownError() error {
	e := errcode.New(errcode.NotFound, "%s", l.Unknown)
	e.Cause = ErrUnknown
	return e
}

// ExpiredError is l's link_expired answer, wrapping ErrExpired.
func (l Link) ExpiredError() error {
	e := errcode.New(errcode.LinkExpired, "%s", l.Expired)
	e.Cause = ErrExpired
	return e
}
