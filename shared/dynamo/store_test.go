package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/apitest"
	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/idempotency"
)

func TestMain(m *testing.M) { apitest.Main(m) }

func TestAdmitWindows(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	pid := env.NewPartner(t, "Acme")
	key, _ := env.NewKey(t, pid, auth.Live)
	digest := auth.Digest(key)
	t0 := time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)

	steps := []struct {
		name          string
		at            time.Time
		limit         int
		wantAdmitted  bool
		wantRemaining int
		wantReset     time.Time
	}{
		{"first request of a window", t0, 3, true, 2, t0.Truncate(time.Minute).Add(time.Minute)},
		{"second", t0.Add(time.Second), 3, true, 1, t0.Truncate(time.Minute).Add(time.Minute)},
		{"third reaches the limit", t0.Add(2 * time.Second), 3, true, 0, t0.Truncate(time.Minute).Add(time.Minute)},
		{"fourth is refused", t0.Add(3 * time.Second), 3, false, 0, t0.Truncate(time.Minute).Add(time.Minute)},
		{"next window resets", t0.Add(time.Minute), 3, true, 2, t0.Truncate(time.Minute).Add(2 * time.Minute)},
		// An instance whose clock is a minute behind counts in the newer window.
		{"clock behind joins the newer window", t0, 3, true, 1, t0.Truncate(time.Minute).Add(2 * time.Minute)},
	}
	for _, s := range steps {
		p, u, err := env.Store.Admit(ctx, digest, s.at, s.limit)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if u.Admitted != s.wantAdmitted || u.Remaining != s.wantRemaining || u.Reset != s.wantReset.Unix() {
			t.Errorf("%s: admitted %v remaining %d reset %d; want %v %d %d", s.name, u.Admitted, u.Remaining, u.Reset,
				s.wantAdmitted, s.wantRemaining, s.wantReset.Unix())
		}
		if p.PartnerID != pid || p.Mode != auth.Live || p.RateCard.Currency != "usd" {
			t.Errorf("%s: principal %+v; want partner %s live with its rate card", s.name, p, pid)
		}
	}
	if _, _, err := env.Store.Admit(ctx, auth.Digest("mk_live_unknown"), t0, 3); errcode.As(err) == nil || errcode.As(err).Code != errcode.InvalidAPIKey {
		t.Errorf("unknown key: %v; want invalid_api_key", err)
	}
}

func TestIdempotencyRecordPastRetentionIsReplaced(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	store := env.Store.Idempotency()
	scope := idempotency.Scope{PartnerID: "ptn_x", Mode: "test", Operation: "createLead", Key: "k"}
	old := time.Now().Add(-25 * time.Hour)
	rec := idempotency.Record{Scope: scope, State: idempotency.Completed, RequestHash: "h1", ResourceID: "r1",
		LockExpires: old, Status: 200, Body: []byte(`{}`), CreatedAt: old, Expires: old.Add(idempotency.Retention)}
	if held, err := store.Create(ctx, rec, old); err != nil || held != nil {
		t.Fatalf("seed: %v %v", held, err)
	}
	now := time.Now()
	fresh := rec
	fresh.State, fresh.RequestHash, fresh.ResourceID, fresh.CreatedAt, fresh.Expires = idempotency.InFlight, "h2", "r2", now, now.Add(idempotency.Retention)
	held, err := store.Create(ctx, fresh, now)
	if err != nil || held != nil {
		t.Fatalf("create over an expired record: held %v err %v; want it replaced", held, err)
	}
	got, err := store.Get(ctx, scope)
	if err != nil || got.ResourceID != "r2" || got.State != idempotency.InFlight {
		t.Fatalf("after replace: %+v %v; want r2 in flight", got, err)
	}
	// A live record is returned, not replaced.
	held, err = store.Create(ctx, rec, now)
	if err != nil || held == nil || held.ResourceID != "r2" {
		t.Fatalf("create over a live record: held %+v err %v; want the live record", held, err)
	}
}
