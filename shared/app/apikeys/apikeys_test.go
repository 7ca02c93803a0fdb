package apikeys_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/app/apikeys"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
)

func TestMain(m *testing.M) { dynamolocal.RunTests(m) }

// newStore returns a store over a fresh table with partners ids.
func newStore(t *testing.T, ids ...string) *dynamo.Store {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	name := "apikeys-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := dynamo.CreateTables(context.Background(), db, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dynamo.DeleteTables(context.Background(), db, name) })
	s := dynamo.New(db, name)
	for _, id := range ids {
		p := partner.Partner{ID: id, Name: id, RateCard: estimate.DefaultRateCard("usd"), CreatedAt: time.Now()}
		if err := s.CreatePartner(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	if e := errcode.As(err); e == nil || e.Code != code {
		t.Errorf("error %v; want %s", err, code)
	}
}

// TestKeysWithinOnePartner: a key is created with its creator, listed
// with its prefix and last use, revoked only within its partner, and
// each change is audited with its actor.
func TestKeysWithinOnePartner(t *testing.T) {
	s := newStore(t, "ptn_a", "ptn_b")
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	svc := apikeys.New(s, func() time.Time { return now })
	alice := audit.ByPerson("per_alice", "alice@a.example")
	bob := audit.ByPerson("per_bob", "bob@b.example")

	k, err := svc.Create(ctx, alice, "ptn_a", auth.Test, []auth.Scope{auth.LeadsRead, auth.LeadsWrite, auth.LeadsRead})
	if err != nil {
		t.Fatal(err)
	}
	if mode, digest, ok := auth.ParseKey(k.Secret); !ok || mode != auth.Test || digest != k.Digest {
		t.Errorf("Create returned key %q; want a test key with digest %s", k.Secret, k.Digest)
	}
	bKey, err := svc.Create(ctx, audit.ByOperator(), "ptn_b", auth.Live, auth.AllScopes)
	if err != nil {
		t.Fatal(err)
	}

	// Partner B's person cannot revoke or see A's key.
	_, err = svc.Revoke(ctx, bob, "ptn_b", k.KeyID)
	wantCode(t, err, errcode.NotFound)
	_, err = svc.Get(ctx, "ptn_b", k.KeyID)
	wantCode(t, err, errcode.NotFound)
	if _, _, err := s.Admit(ctx, k.Digest, now.Add(time.Minute), 100); err != nil {
		t.Fatalf("A's key after B's revoke attempt: %v; want it still live", err)
	}

	keys, err := svc.List(ctx, "ptn_a")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 {
		t.Fatalf("List(a) = %d keys; want 1 (never B's)", len(keys))
	}
	got := keys[0]
	if got.KeyID != k.KeyID || got.Prefix() != "mk_test_" || got.CreatedBy != alice || got.RevokedAt != nil ||
		len(got.Scopes) != 2 || got.Scopes[0] != auth.LeadsRead || got.LastUsedAt == nil || !got.LastUsedAt.Equal(now.Add(time.Minute)) {
		t.Errorf("List(a)[0] = %+v; want %s, prefix mk_test_, created by alice, live, scopes [leads:read leads:write], last used at %s", got, k.KeyID, now.Add(time.Minute))
	}

	now = now.Add(time.Hour) // the trail sorts by time
	r, err := svc.Revoke(ctx, alice, "ptn_a", k.KeyID)
	if err != nil || r.RevokedAt == nil {
		t.Fatalf("Revoke = %+v, %v; want revoked", r, err)
	}
	_, _, err = s.Admit(ctx, k.Digest, now.Add(time.Minute), 100)
	wantCode(t, err, errcode.InvalidAPIKey)

	trail, err := s.ListAudit(ctx, "ptn_a", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) != 2 || trail[0].Action != audit.KeyRevoked || trail[1].Action != audit.KeyCreated ||
		trail[0].Actor != alice || trail[1].Actor != alice || trail[0].TargetID != k.KeyID || trail[1].Detail != "test key; scopes leads:read,leads:write" {
		t.Errorf("A's audit trail = %+v; want created then revoked by alice", trail)
	}
	if trail, _ := s.ListAudit(ctx, "ptn_b", 10); len(trail) != 1 || trail[0].TargetID != bKey.KeyID || trail[0].Actor != audit.ByOperator() {
		t.Errorf("B's audit trail = %+v; want its one key's creation by an operator", trail)
	}
}

// TestCreateRefusesBadInput: bad input is validation_failed and an
// unknown partner not_found, with nothing written.
func TestCreateRefusesBadInput(t *testing.T) {
	s := newStore(t, "ptn_a")
	ctx := context.Background()
	svc := apikeys.New(s, nil)
	op := audit.ByOperator()
	cases := []struct {
		name    string
		actor   audit.Actor
		partner string
		mode    auth.Mode
		scopes  []auth.Scope
		code    errcode.Code
	}{
		{"no scope", op, "ptn_a", auth.Test, nil, errcode.ValidationFailed},
		{"unknown scope", op, "ptn_a", auth.Test, []auth.Scope{"leads:delete"}, errcode.ValidationFailed},
		{"unknown mode", op, "ptn_a", "prod", auth.AllScopes, errcode.ValidationFailed},
		{"no actor", audit.Actor{}, "ptn_a", auth.Test, auth.AllScopes, errcode.ValidationFailed},
		{"unknown partner", op, "ptn_x", auth.Test, auth.AllScopes, errcode.NotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.Create(ctx, c.actor, c.partner, c.mode, c.scopes)
			wantCode(t, err, c.code)
		})
	}
	if keys, _ := svc.List(ctx, "ptn_a"); len(keys) != 0 {
		t.Errorf("keys after refused creates = %+v; want none", keys)
	}
	if trail, _ := s.ListAudit(ctx, "ptn_a", 10); len(trail) != 0 {
		t.Errorf("audit after refused creates = %+v; want none", trail)
	}
	_, err := svc.List(ctx, "ptn_x")
	wantCode(t, err, errcode.NotFound)
}
