package dynamo

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// TestAuditTrail: entries list per partner, newest first, bounded by
// limit, each as written; another partner's never appear.
func TestAuditTrail(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a, b := newPartner(t, s), newPartner(t, s)
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	person := audit.ByPerson("per_1", "dev@acme.example")
	var want []audit.Entry
	for i, act := range []audit.Action{audit.KeyCreated, audit.EndpointAdded, audit.KeyRevoked} {
		e := audit.Entry{PartnerID: a, Actor: person, Action: act, TargetKind: audit.TargetKey, TargetID: "key_1", Detail: "test key", At: t0.Add(time.Duration(i) * time.Second)}
		if i == 1 {
			e.Actor, e.TargetKind, e.TargetID, e.Detail = audit.ByOperator(), audit.TargetEndpoint, "we_1", ""
		}
		if err := s.PutAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
		want = append([]audit.Entry{e}, want...)
	}
	// Two entries of the same instant are both kept.
	same := want[0]
	if err := s.PutAudit(ctx, same); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAudit(ctx, audit.Entry{PartnerID: b, Actor: audit.ByOperator(), Action: audit.KeyCreated, TargetKind: audit.TargetKey, TargetID: "key_b", At: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListAudit(ctx, a, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !reflect.DeepEqual(got[0], same) || !reflect.DeepEqual(got[2:], want[1:]) {
		t.Errorf("ListAudit(a) = %+v; want %+v (the last twice), newest first", got, want)
	}
	if got, _ := s.ListAudit(ctx, a, 2); len(got) != 2 || got[0].At != want[0].At {
		t.Errorf("ListAudit(a, 2) = %+v; want the 2 newest", got)
	}
	if got, _ := s.ListAudit(ctx, b, 100); len(got) != 1 || got[0].TargetID != "key_b" {
		t.Errorf("ListAudit(b) = %+v; want b's one entry", got)
	}
	if err := s.PutAudit(ctx, audit.Entry{PartnerID: a, Action: audit.KeyCreated, TargetKind: audit.TargetKey, TargetID: "k", At: t0}); err == nil {
		t.Error("PutAudit without an actor: nil error; want one")
	}
}

// TestKeyAuditAndCreatorInOneTransaction: CreateKey and RevokeKey write
// their audit entries with the change, and a refused change writes none;
// the key keeps its creator.
func TestKeyAuditAndCreatorInOneTransaction(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	key, keyID, _ := auth.NewKey(auth.Test)
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	person := audit.ByPerson("per_1", "dev@acme.example")
	k := auth.Key{KeyID: keyID, Digest: auth.Digest(key), PartnerID: pid, Mode: auth.Test, Scopes: auth.AllScopes, CreatedAt: now, CreatedBy: person}
	created := audit.Entry{PartnerID: pid, Actor: person, Action: audit.KeyCreated, TargetKind: audit.TargetKey, TargetID: keyID, At: now}
	if err := s.CreateKey(ctx, k, created); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateKey(ctx, k, created); errcode.As(err) == nil || errcode.As(err).Code != errcode.Conflict {
		t.Fatalf("CreateKey again = %v; want conflict", err)
	}
	if _, err := s.RevokeKey(ctx, "key_unknown", now, created); errcode.As(err) == nil || errcode.As(err).Code != errcode.NotFound {
		t.Fatalf("RevokeKey(unknown) = %v; want not_found", err)
	}
	revoked := created
	revoked.Action, revoked.At = audit.KeyRevoked, now.Add(time.Minute)
	if _, err := s.RevokeKey(ctx, keyID, revoked.At, revoked); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListAudit(ctx, pid, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []audit.Entry{revoked, created}; !reflect.DeepEqual(got, want) {
		t.Errorf("audit = %+v; want %+v", got, want)
	}
	stored, err := s.GetKey(ctx, keyID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.CreatedBy != person || stored.RevokedAt == nil {
		t.Errorf("GetKey = %+v; want created by %+v, revoked", stored, person)
	}
}

// TestAdmitSetsLastUsed: the update that admits a request records the
// key's last use, which ListKeys shows; a refused request does not.
func TestAdmitSetsLastUsed(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	key, keyID := newKey(t, s, pid, auth.Test)
	_, unused := newKey(t, s, pid, auth.Live)
	lastUsed := func() map[string]*time.Time {
		t.Helper()
		keys, err := s.ListKeys(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*time.Time{}
		for _, k := range keys {
			out[k.KeyID] = k.LastUsedAt
		}
		return out
	}
	if got := lastUsed(); got[keyID] != nil || got[unused] != nil || len(got) != 2 {
		t.Fatalf("last use before any request = %v; want nil for both keys", got)
	}
	at := time.Date(2026, 11, 27, 9, 0, 30, 0, time.UTC)
	for i, when := range []time.Time{at, at.Add(10 * time.Second)} {
		if _, u, err := s.Admit(ctx, auth.Digest(key), when, 1); err != nil || u.Admitted != (i == 0) {
			t.Fatalf("Admit %d = %+v, %v; want admitted only first", i, u, err)
		}
	}
	got := lastUsed()
	if got[keyID] == nil || !got[keyID].Equal(at) || got[unused] != nil {
		t.Errorf("last use = %v; want %s for the used key (the refused request leaves it), nil for the other", got, at)
	}
}
