package dynamo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

func TestIdempotencyRecordPastRetentionIsReplaced(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	store := s.Idempotency()
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

// TestIdempotencyTakeOverIsConditional: TakeOver replaces only the exact
// record it was given (state, lock and request hash), and keeps its
// pinned id.
func TestIdempotencyTakeOverIsConditional(t *testing.T) {
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	scope := idempotency.Scope{PartnerID: "ptn_x", Mode: "live", Operation: "createLead", Key: "k"}
	held := idempotency.Record{Scope: scope, State: idempotency.Failed, RequestHash: "h1", ResourceID: "lead_pinned",
		LockExpires: now, Status: 201, Body: []byte(`{"a":1}`), CreatedAt: now, Expires: now.Add(idempotency.Retention)}
	tests := []struct {
		name   string
		old    func(idempotency.Record) idempotency.Record
		wantOK bool
	}{
		{"exact record", func(r idempotency.Record) idempotency.Record { return r }, true},
		{"another request hash", func(r idempotency.Record) idempotency.Record { r.RequestHash = "h2"; return r }, false},
		{"another state", func(r idempotency.Record) idempotency.Record { r.State = idempotency.InFlight; return r }, false},
		{"another lock", func(r idempotency.Record) idempotency.Record {
			r.LockExpires = r.LockExpires.Add(time.Millisecond)
			return r
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newStore(t).Idempotency()
			if h, err := store.Create(ctx, held, now); err != nil || h != nil {
				t.Fatalf("seed: %v %v", h, err)
			}
			claim := held
			claim.State, claim.ResourceID, claim.LockExpires = idempotency.InFlight, "lead_new", now.Add(time.Minute)
			ok, err := store.TakeOver(ctx, tt.old(held), claim)
			if err != nil || ok != tt.wantOK {
				t.Fatalf("TakeOver = %v, %v; want %v", ok, err, tt.wantOK)
			}
			got, err := store.Get(ctx, scope)
			if err != nil {
				t.Fatal(err)
			}
			wantState := held.State
			if tt.wantOK {
				wantState = idempotency.InFlight
			}
			if got.State != wantState || got.ResourceID != "lead_pinned" {
				t.Errorf("stored %s on %s; want %s on the pinned lead_pinned", got.State, got.ResourceID, wantState)
			}
		})
	}
}

// TestKeeperOverDynamoDB runs createLead's idempotency protocol on the
// real store: a retry after a failure re-creates the pinned lead when the
// first attempt did not write it, replays the first answer when it did,
// and a different body never inherits the key.
func TestKeeperOverDynamoDB(t *testing.T) {
	tenant := auth.Tenant{PartnerID: "ptn_idem", Mode: auth.Live}
	scope := idempotency.Scope{PartnerID: tenant.PartnerID, Mode: string(tenant.Mode), Operation: "createLead", Key: "retry-me"}
	tests := []struct {
		name string
		// firstWrites: the first attempt wrote its lead before failing.
		firstWrites bool
		retryHash   string
		wantReplay  bool
		wantCode    errcode.Code
	}{
		{"write landed, answer lost: replay", true, "h1", true, ""},
		{"write never landed: claim the pinned id", false, "h1", false, ""},
		{"another body after a failure with the write landed: reused", true, "h2", false, errcode.IdempotencyKeyReused},
		{"another body after a failure: reused", false, "h2", false, errcode.IdempotencyKeyReused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			ctx := context.Background()
			n := 0
			now := time.Now()
			k := &idempotency.Keeper{
				Store: s.Idempotency(), Now: func() time.Time { return now }, Wait: time.Second, Poll: 10 * time.Millisecond,
				NewID: func() string { n++; return fmt.Sprintf("lead_%d", n) },
			}
			answers := 0
			c := idempotency.Creation{
				Respond: func(id string) (int, []byte) {
					answers++
					return 201, []byte(fmt.Sprintf(`{"lead_id":%q,"answer":%d}`, id, answers))
				},
				Exists: func(ctx context.Context, id string) (bool, error) { return s.LeadExists(ctx, tenant, id) },
			}
			claim, _, err := k.BeginCreate(ctx, scope, "h1", c)
			if err != nil || claim == nil {
				t.Fatalf("first BeginCreate = %v, %v; want a claim", claim, err)
			}
			firstLead := fullLead(claim.ResourceID(), t0, false)
			if tt.firstWrites {
				if err := s.PutLead(ctx, tenant, firstLead, true); err != nil {
					t.Fatalf("PutLead: %v", err)
				}
			}
			// The attempt fails (say, a timeout after the write): 5xx.
			if err := claim.Abandon(ctx); err != nil {
				t.Fatalf("Abandon: %v", err)
			}

			claim2, replay, err := k.BeginCreate(ctx, scope, tt.retryHash, c)
			switch {
			case tt.wantCode != "":
				wantCode(t, err, tt.wantCode)
			case tt.wantReplay:
				if err != nil || replay == nil {
					t.Fatalf("retry BeginCreate = %v, %v, %v; want a replay", claim2, replay, err)
				}
				if want := `{"lead_id":"lead_1","answer":1}`; string(replay.Body) != want || replay.Status != 201 {
					t.Errorf("replay %d %s; want the first answer 201 %s", replay.Status, replay.Body, want)
				}
			default:
				if err != nil || claim2 == nil || claim2.ResourceID() != "lead_1" {
					t.Fatalf("retry BeginCreate = %v, %v, %v; want a claim on the pinned lead_1", claim2, replay, err)
				}
			}
			if tt.firstWrites {
				got, err := s.GetLead(ctx, tenant, "lead_1")
				if err != nil || !equalLead(got, firstLead) {
					t.Errorf("lead after the retry: %+v, %v; want the first attempt's lead unchanged", got, err)
				}
			}
		})
	}
}

// TestStoredTimeThatDoesNotParse: a stored time that is not in
// lead.TimeLayout is an error naming the item, never a zero time.
func TestStoredTimeThatDoesNotParse(t *testing.T) {
	ctx := context.Background()
	tenant := auth.Tenant{PartnerID: "ptn_bad", Mode: auth.Test}
	const bad = "21/11/2026"
	tests := []struct {
		name string
		item func(pid string) any
		read func(s *Store, pid string) error
		pk   func(pid string) string
	}{
		{"lead created_at, GetLead",
			func(string) any {
				it := newLeadItem(tenant, fullLead("lead_bad", t0, false))
				it.CreatedAt = bad
				return it
			},
			func(s *Store, _ string) error { _, err := s.GetLead(ctx, tenant, "lead_bad"); return err },
			func(string) string { pk, _ := leadKey(tenant, "lead_bad"); return pk }},
		{"lead updated_at, ListLeads",
			func(string) any {
				it := newLeadItem(tenant, fullLead("lead_bad", t0, false))
				it.UpdatedAt = bad
				return it
			},
			func(s *Store, _ string) error {
				_, _, err := s.ListLeads(ctx, tenant, lead.ListQuery{Limit: 10})
				return err
			},
			func(string) string { pk, _ := leadKey(tenant, "lead_bad"); return pk }},
		{"partner created_at, GetPartner",
			func(pid string) any {
				pk, sk := partnerKey(pid)
				return partnerItem{PK: pk, SK: sk, Type: "partner", PartnerID: pid, CreatedAt: bad}
			},
			func(s *Store, pid string) error { _, err := s.GetPartner(ctx, pid); return err },
			func(pid string) string { pk, _ := partnerKey(pid); return pk }},
		{"key created_at, ListKeys",
			func(pid string) any {
				pk, sk := apiKeyIDKey("key_bad")
				g1pk, g1sk := partnerKeysIndex(pid, bad, "key_bad")
				return keyIDItem{PK: pk, SK: sk, GSI1PK: g1pk, GSI1SK: g1sk, KeyID: "key_bad", PartnerID: pid, CreatedAt: bad}
			},
			func(s *Store, pid string) error { _, err := s.ListKeys(ctx, pid); return err },
			func(string) string { pk, _ := apiKeyIDKey("key_bad"); return pk }},
		{"key revoked_at, RevokeKey",
			func(pid string) any {
				pk, sk := apiKeyIDKey("key_bad")
				g1pk, g1sk := partnerKeysIndex(pid, lead.FormatTime(t0), "key_bad")
				return keyIDItem{PK: pk, SK: sk, GSI1PK: g1pk, GSI1SK: g1sk, KeyID: "key_bad", Digest: "d", PartnerID: pid,
					CreatedAt: lead.FormatTime(t0), RevokedAt: bad}
			},
			func(s *Store, _ string) error {
				// The authentication record must exist for the transaction.
				pk, sk := apiKeyKey("d")
				if err := putItem(ctx, s, keyItem{PK: pk, SK: sk, CreatedAt: lead.FormatTime(t0)}); err != nil {
					return err
				}
				_, err := s.RevokeKey(ctx, "key_bad", t0)
				return err
			},
			func(string) string { pk, _ := apiKeyIDKey("key_bad"); return pk }},
		{"idempotency created_at, Get",
			func(pid string) any {
				it := newIdemItem(idempotency.Record{Scope: idemScope(pid), State: idempotency.Completed, CreatedAt: t0, Expires: time.Now().Add(time.Hour)})
				it.CreatedAt = bad
				return it
			},
			func(s *Store, pid string) error { _, err := s.Idempotency().Get(ctx, idemScope(pid)); return err },
			func(pid string) string { pk, _ := idempotencyKey(idemScope(pid)); return pk }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			pid := "ptn_bad"
			if err := putItem(ctx, s, tt.item(pid)); err != nil {
				t.Fatal(err)
			}
			err := tt.read(s, pid)
			if err == nil {
				t.Fatal("read succeeded; want an error for the unparsable time")
			}
			for _, want := range []string{tt.pk(pid), bad} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
			if errcode.As(err) != nil {
				t.Errorf("error %v carries an errcode; want a plain (internal) error", err)
			}
		})
	}
}

func idemScope(pid string) idempotency.Scope {
	return idempotency.Scope{PartnerID: pid, Mode: "test", Operation: "createLead", Key: "k"}
}
