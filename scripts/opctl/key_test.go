package main

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

func TestKeyCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	id := createPartner(t, s)
	tests := []struct {
		name       string
		args       []string
		wantMode   auth.Mode
		wantScopes []auth.Scope
	}{
		{"test, default scopes", []string{"--mode", "test"}, auth.Test, auth.AllScopes},
		{"live, one scope", []string{"--mode", "live", "--scopes", "leads:read"}, auth.Live, []auth.Scope{auth.LeadsRead}},
		{
			"repeats, blanks and order", []string{"--mode=test", "--scopes= surveys:read,leads:write,,surveys:read, leads:write,"},
			auth.Test, []auth.Scope{auth.LeadsWrite, auth.SurveysRead},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := opctl(t, s.Table(), append([]string{"key", "create", "--partner", id}, tt.args...)...)
			if got, want := fields(t, r.stdout), []string{"key", "key_id", "mode", "scopes"}; !slices.Equal(got, want) {
				t.Errorf("output fields %q; want %q", got, want)
			}
			out := ok[keyCreated](t, r)
			mode, digest, valid := auth.ParseKey(out.Key)
			if !valid {
				t.Fatalf("auth.ParseKey(%q) failed", out.Key)
			}
			if mode != tt.wantMode || out.Mode != tt.wantMode {
				t.Errorf("key mode %q, output mode %q; want %q", mode, out.Mode, tt.wantMode)
			}
			if !slices.Equal(out.Scopes, tt.wantScopes) {
				t.Errorf("output scopes %q; want %q", out.Scopes, tt.wantScopes)
			}
			keys, err := s.ListKeys(ctx, id)
			if err != nil {
				t.Fatalf("ListKeys: %v", err)
			}
			i := slices.IndexFunc(keys, func(k auth.Key) bool { return k.KeyID == out.KeyID })
			if i < 0 {
				t.Fatalf("ListKeys has no key %s", out.KeyID)
			}
			k := keys[i]
			if k.Digest != digest {
				t.Errorf("stored digest %q; want %q", k.Digest, digest)
			}
			if k.PartnerID != id || k.Mode != tt.wantMode || !slices.Equal(k.Scopes, tt.wantScopes) {
				t.Errorf("stored key %+v; want partner %s, mode %s, scopes %q", k, id, tt.wantMode, tt.wantScopes)
			}
			if k.RevokedAt != nil {
				t.Errorf("stored revoked_at %v; want none", k.RevokedAt)
			}
		})
	}
}

func TestKeyCreateUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no partner", []string{"--mode", "test"}, "--partner is required"},
		{"no mode", []string{"--partner", "ptn_x"}, "--mode is required"},
		{"bad mode", []string{"--partner", "ptn_x", "--mode", "prod"}, `mode must be test or live, got "prod"`},
		{"mode case", []string{"--partner", "ptn_x", "--mode", "TEST"}, "mode must be test or live"},
		{"unknown scope", []string{"--partner", "ptn_x", "--mode", "test", "--scopes", "leads:read,leads:delete"}, `unknown scope "leads:delete"`},
		{"empty scopes", []string{"--partner", "ptn_x", "--mode", "test", "--scopes", ""}, "--scopes: name at least one scope"},
		{"only commas", []string{"--partner", "ptn_x", "--mode", "test", "--scopes", " , ,"}, "--scopes: name at least one scope"},
		{"positional", []string{"--partner", "ptn_x", "--mode", "test", "now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fails(t, opctl(t, "", append([]string{"key", "create"}, tt.args...)...), exitUsage, tt.want)
		})
	}
}

func TestUnknownPartner(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	tests := [][]string{
		{"partner", "rate-card", "--partner", "ptn_x"},
		{"partner", "rate-card", "--partner", "ptn_x", "--crew", "3"},
		{"key", "create", "--partner", "ptn_x", "--mode", "test"},
		{"key", "list", "--partner", "ptn_x"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := opctl(t, s.Table(), args...)
			fails(t, r, exitFailure, "")
			if want := "opctl: partner ptn_x not found\n"; r.stderr != want {
				t.Errorf("stderr %q; want %q", r.stderr, want)
			}
		})
	}
}

func TestKeyRevoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	id := createPartner(t, s)
	key := createKey(t, s, id, "--mode", "test")

	r := opctl(t, s.Table(), "key", "revoke", key.KeyID)
	if got, want := fields(t, r.stdout), []string{"key_id", "revoked", "revoked_at"}; !slices.Equal(got, want) {
		t.Errorf("output fields %q; want %q", got, want)
	}
	first := ok[keyRevoked](t, r)
	if first.KeyID != key.KeyID || !first.Revoked {
		t.Errorf("revoke output %+v; want key_id %s, revoked true", first, key.KeyID)
	}
	at, err := time.Parse(lead.TimeLayout, first.RevokedAt)
	if err != nil || time.Since(at) > time.Minute || time.Until(at) > time.Minute {
		t.Errorf("revoked_at %q (%v); want about now in %s", first.RevokedAt, err, lead.TimeLayout)
	}

	time.Sleep(2 * time.Millisecond)
	second := ok[keyRevoked](t, opctl(t, s.Table(), "key", "revoke", key.KeyID))
	if second != first {
		t.Errorf("second revoke %+v; want %+v (the first time kept)", second, first)
	}

	_, _, err = s.Admit(ctx, auth.Digest(key.Key), time.Now(), auth.RateLimit)
	if e := errcode.As(err); e == nil || e.Code != errcode.InvalidAPIKey {
		t.Errorf("Admit with revoked key: %v; want %s", err, errcode.InvalidAPIKey)
	}
	keys, err := s.ListKeys(ctx, id)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	if len(keys) != 1 || keys[0].RevokedAt == nil || lead.FormatTime(*keys[0].RevokedAt) != first.RevokedAt {
		t.Errorf("stored keys %+v; want one revoked at %s", keys, first.RevokedAt)
	}
}

func TestKeyRevokeErrors(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown key", []string{"key_0000000000000000"}, exitFailure, "opctl: key key_0000000000000000 not found\n"},
		{"no key id", nil, exitUsage, "opctl: key revoke: KEY_ID is required\n"},
		{"blank key id", []string{" "}, exitUsage, "opctl: key revoke: KEY_ID is required\n"},
		{"two key ids", []string{"key_a", "key_b"}, exitUsage, "opctl: key revoke: unexpected argument \"key_b\"\n"},
		{"flag", []string{"--partner", "ptn_x", "key_a"}, exitUsage, "opctl: key revoke: flag provided but not defined: -partner\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := opctl(t, s.Table(), append([]string{"key", "revoke"}, tt.args...)...)
			fails(t, r, tt.code, "")
			if r.stderr != tt.want {
				t.Errorf("stderr %q; want %q", r.stderr, tt.want)
			}
		})
	}
}

func TestKeyList(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := createPartner(t, s)
	list := func() (result, keyList) {
		t.Helper()
		r := opctl(t, s.Table(), "key", "list", "--partner", id)
		if got, want := fields(t, r.stdout), []string{"keys", "partner_id"}; !slices.Equal(got, want) {
			t.Errorf("output fields %q; want %q", got, want)
		}
		return r, ok[keyList](t, r)
	}

	r, out := list()
	if out.PartnerID != id || out.Keys == nil || len(out.Keys) != 0 {
		t.Errorf("key list with no keys = %+v; want partner_id %s and keys []", out, id)
	}
	if !strings.Contains(r.stdout, `"keys": []`) {
		t.Errorf("stdout %q; want \"keys\": [] (an empty array, not null)", r.stdout)
	}

	live := createKey(t, s, id, "--mode", "live", "--scopes", "leads:read")
	test := createKey(t, s, id, "--mode", "test")
	revoked := ok[keyRevoked](t, opctl(t, s.Table(), "key", "revoke", test.KeyID))

	r, out = list()
	for _, secret := range []string{live.Key, test.Key, auth.Digest(live.Key), auth.Digest(test.Key)} {
		if strings.Contains(r.stdout, secret) {
			t.Errorf("key list output contains the key or its digest %q", secret)
		}
	}
	var raw struct {
		Keys []map[string]json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range raw.Keys {
		if got, want := slices.Sorted(maps.Keys(k)), []string{"created_at", "created_by", "key_id", "last_used_at", "mode", "prefix", "revoked_at", "scopes"}; !slices.Equal(got, want) {
			t.Errorf("key fields %q; want %q", got, want)
		}
	}
	byID := map[string]keyView{}
	for _, k := range out.Keys {
		byID[k.KeyID] = k
		if _, err := time.Parse(lead.TimeLayout, k.CreatedAt); err != nil {
			t.Errorf("created_at %q: %v", k.CreatedAt, err)
		}
	}
	if len(out.Keys) != 2 {
		t.Fatalf("key list = %d keys; want 2", len(out.Keys))
	}
	if k := byID[live.KeyID]; k.Mode != auth.Live || !slices.Equal(k.Scopes, []auth.Scope{auth.LeadsRead}) || k.RevokedAt != nil {
		t.Errorf("live key %+v; want mode live, scopes [leads:read], revoked_at null", k)
	}
	if k := byID[test.KeyID]; k.Mode != auth.Test || !slices.Equal(k.Scopes, auth.AllScopes) || k.RevokedAt == nil || *k.RevokedAt != revoked.RevokedAt {
		t.Errorf("revoked key %+v; want mode test, all scopes, revoked_at %s", k, revoked.RevokedAt)
	}

	fails(t, opctl(t, s.Table(), "key", "list"), exitUsage, "opctl: key list: --partner is required")
}
