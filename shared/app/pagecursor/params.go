package pagecursor

import (
	"context"
	"strconv"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// Page-size bounds of every listing.
const (
	DefaultLimit = 25
	MaxLimit     = 100
)

// ParseLimit reads a listing's limit parameter (DefaultLimit when absent),
// adding to fe when it is not an integer from 1 to MaxLimit.
func ParseLimit(params map[string]string, fe errcode.FieldErrors) int {
	v, ok := params["limit"]
	if !ok {
		return DefaultLimit
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxLimit || strconv.Itoa(n) != v {
		fe.Add("limit", "must be an integer from 1 to 100")
	}
	return n
}

// ParseCursor reads a listing's cursor parameter of kind, for the tenant
// (partnerID, mode): nil when absent; a cursor that does not verify adds
// to fe. signer is called only when a cursor is sent; its error (the
// secret could not be loaded) is returned.
func ParseCursor(ctx context.Context, signer func(context.Context) (*Signer, error), kind Kind, partnerID, mode string, params map[string]string, fe errcode.FieldErrors) (*Position, error) {
	v, ok := params["cursor"]
	if !ok {
		return nil, nil
	}
	s, err := signer(ctx)
	if err != nil {
		return nil, err
	}
	pos, err := s.Decode(kind, partnerID, mode, v)
	if err != nil {
		fe.Add("cursor", "is not a cursor this API issued for this key; pass next_cursor back unchanged")
	}
	return &pos, nil
}
