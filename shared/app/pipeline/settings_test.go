package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

func TestSettingsCacheLifetime(t *testing.T) {
	reads := 0
	fail := false
	c := newSettingsCache(func(_ context.Context, id string) (partner.Partner, error) {
		reads++
		if fail {
			return partner.Partner{}, errors.New("dynamodb down")
		}
		return partner.Partner{ID: id, Name: string(rune('A' + reads))}, nil
	}, SettingsTTL)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	get := func(at time.Time) (partner.Partner, error) { return c.get(ctx, "p1", at) }

	p, _ := get(t0)
	if q, _ := get(t0.Add(SettingsTTL - time.Millisecond)); q.Name != p.Name || reads != 1 {
		t.Errorf("within the lifetime: %d reads, %q; want 1 read, the cached %q", reads, q.Name, p.Name)
	}
	if q, _ := get(t0.Add(SettingsTTL)); q.Name == p.Name || reads != 2 {
		t.Errorf("at the lifetime: %d reads, %q; want a fresh read", reads, q.Name)
	}
	fail = true
	if _, err := get(t0.Add(3 * SettingsTTL)); err == nil {
		t.Error("failed read: nil error; want it")
	}
	fail = false
	if _, err := get(t0.Add(3 * SettingsTTL)); err != nil || reads != 4 {
		t.Errorf("after a failed read: %v, %d reads; want the failure not cached (4 reads)", err, reads)
	}
	// A clock that went backwards (another instance's time) reads again.
	if _, _ = get(t0); reads != 5 {
		t.Errorf("clock behind the cached time: %d reads; want 5", reads)
	}
}

func TestRender(t *testing.T) {
	status, body := Render(errcode.New(errcode.NotFound, "No lead."))
	if status != 404 || string(body) != `{"error":{"code":"not_found","message":"No lead.","details":{}}}` {
		t.Errorf("coded error: %d %s", status, body)
	}
	status, body = Render(errors.New("secret internal detail"))
	if status != 500 || string(body) == "" || contains(body, "secret") {
		t.Errorf("internal error: %d %s; want 500 without the internal text", status, body)
	}
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }
