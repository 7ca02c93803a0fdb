package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

// TestTokenVerify: a malformed token never reaches resolve; resolve's
// unknown and expired errors become the link's own answers; a grant and
// any other error pass as they are.
func TestTokenVerify(t *testing.T) {
	link := linktoken.Link{Unknown: "This test link is not known.", Expired: "This test link has expired."}
	token, err := linktoken.New()
	if err != nil {
		t.Fatal(err)
	}
	upstream := errcode.New(errcode.UpstreamFailed, "down")
	tests := []struct {
		name      string
		path      string
		result    error
		wantCalls int
		wantCode  errcode.Code
		wantMsg   string
	}{
		{"malformed", strings.Repeat("x", linktoken.Len+1), nil, 0, errcode.NotFound, link.Unknown},
		{"unknown", token, fmt.Errorf("lookup: %w", linktoken.ErrUnknown), 1, errcode.NotFound, link.Unknown},
		{"expired", token, linktoken.ErrExpired, 1, errcode.LinkExpired, link.Expired},
		{"other error", token, upstream, 1, errcode.UpstreamFailed, "down"},
		{"granted", token, nil, 1, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			verify := TokenVerify(link, func(_ context.Context, _ *Call, hash string) (Grant, error) {
				calls++
				if hash != linktoken.Hash(token) {
					t.Errorf("resolve got hash %q; want %q", hash, linktoken.Hash(token))
				}
				if tt.result != nil {
					return Grant{}, tt.result
				}
				return Grant{Subject: "ok"}, nil
			})
			g, err := verify(context.Background(), &Call{Request: &Request{PathParam: tt.path}})
			if calls != tt.wantCalls {
				t.Errorf("resolve called %d times; want %d", calls, tt.wantCalls)
			}
			if tt.wantCode == "" {
				if err != nil || g.Subject != "ok" {
					t.Errorf("verify = %+v, %v; want the grant", g, err)
				}
				return
			}
			e := errcode.As(err)
			if e == nil || e.Code != tt.wantCode || e.Message != tt.wantMsg {
				t.Fatalf("verify error %v; want %s %q", err, tt.wantCode, tt.wantMsg)
			}
			if tt.wantCode == errcode.NotFound && !errors.Is(err, linktoken.ErrUnknown) {
				t.Errorf("verify error %v does not wrap linktoken.ErrUnknown", err)
			}
		})
	}
}
