package leads

import (
	"context"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// FuzzParseRowQuery: any dashboard leads query either parses or fails
// with validation_failed (a 400 on the page), never another error.
func FuzzParseRowQuery(f *testing.F) {
	f.Add("status", "quoted", "updated_since", "2027-03-01")
	f.Add("updated_since", "2027-03-01T09:00:00Z", "cursor", "abc")
	f.Add("colour", "red", "status", "")
	key := func(context.Context) ([]byte, error) { return make([]byte, 32), nil }
	s := New(nil, key)
	t := auth.Tenant{PartnerID: "ptn_1", Mode: auth.Test}
	f.Fuzz(func(tt *testing.T, k1, v1, k2, v2 string) {
		_, err := s.ParseRowQuery(context.Background(), t, map[string]string{k1: v1, k2: v2})
		if e := errcode.As(err); err != nil && (e == nil || e.Code != errcode.ValidationFailed) {
			tt.Errorf("ParseRowQuery(%q=%q, %q=%q): %v; want nil or validation_failed", k1, v1, k2, v2, err)
		}
	})
}
