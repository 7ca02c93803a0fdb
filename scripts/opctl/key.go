package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/apikeys"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// keyCreated is the output of key create: the only place the key appears.
type keyCreated struct {
	KeyID  string       `json:"key_id"`
	Key    string       `json:"key"`
	Mode   auth.Mode    `json:"mode"`
	Scopes []auth.Scope `json:"scopes"`
}

// keyRevoked is the output of key revoke.
type keyRevoked struct {
	KeyID     string `json:"key_id"`
	Revoked   bool   `json:"revoked"`
	RevokedAt string `json:"revoked_at"`
}

// keyList is the output of key list.
type keyList struct {
	PartnerID string    `json:"partner_id"`
	Keys      []keyView `json:"keys"`
}

// keyView is a key record as key list shows it: never the key, never its
// digest. RevokedAt is null for a live key, LastUsedAt for one never used,
// CreatedBy for one created before creators were kept.
type keyView struct {
	KeyID      string       `json:"key_id"`
	Prefix     string       `json:"prefix"`
	Mode       auth.Mode    `json:"mode"`
	Scopes     []auth.Scope `json:"scopes"`
	CreatedAt  string       `json:"created_at"`
	CreatedBy  *actorView   `json:"created_by"`
	LastUsedAt *string      `json:"last_used_at"`
	RevokedAt  *string      `json:"revoked_at"`
}

// actorView is who made a change: "operator", or a dashboard person's id
// and email.
type actorView struct {
	Kind     audit.ActorKind `json:"kind"`
	PersonID string          `json:"person_id,omitempty"`
	Email    string          `json:"email,omitempty"`
}

// viewActor returns a as shown, nil when unknown.
func viewActor(a audit.Actor) *actorView {
	if a.IsZero() {
		return nil
	}
	return &actorView{Kind: a.Kind, PersonID: a.PersonID, Email: a.Email}
}

// keys is the key service over s, acting as an operator.
func (s target) keys() *apikeys.Service { return apikeys.New(s.Store, nil) }

func parseKeyCreate(fs *flag.FlagSet, args []string) (action, error) {
	readTenant := tenantFlags(fs)
	scopeList := fs.String("scopes", "", "comma-separated scopes (default: all)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	tenant, err := readTenant()
	if err != nil {
		return nil, err
	}
	partnerID, mode := tenant.PartnerID, tenant.Mode
	scopes := auth.AllScopes
	if setFlags(fs)["scopes"] {
		if scopes, err = parseScopes(*scopeList); err != nil {
			return nil, usagef(fs, "--scopes: %v", err)
		}
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		k, err := s.keys().Create(ctx, audit.ByOperator(), partnerID, mode, scopes)
		if err != nil {
			return nil, partnerErr(partnerID, err)
		}
		return keyCreated{KeyID: k.KeyID, Key: k.Secret, Mode: k.Mode, Scopes: k.Scopes}, nil
	}, nil
}

// parseScopes reads a comma-separated list of scopes, ignoring blanks and
// repeats, and returns them in the order of auth.AllScopes. It fails on
// an unknown scope and on a list that names none.
func parseScopes(list string) ([]auth.Scope, error) {
	want := map[auth.Scope]bool{}
	for part := range strings.SplitSeq(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sc, err := auth.ParseScope(part)
		if err != nil {
			return nil, err
		}
		want[sc] = true
	}
	if len(want) == 0 {
		return nil, errors.New("name at least one scope")
	}
	var scopes []auth.Scope
	for _, sc := range auth.AllScopes {
		if want[sc] {
			scopes = append(scopes, sc)
		}
	}
	return scopes, nil
}

func parseKeyRevoke(fs *flag.FlagSet, args []string) (action, error) {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	switch {
	case len(rest) == 0 || strings.TrimSpace(rest[0]) == "":
		return nil, usagef(fs, "KEY_ID is required")
	case len(rest) > 1:
		return nil, usagef(fs, "unexpected argument %q", rest[1])
	}
	keyID := strings.TrimSpace(rest[0])
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		// An operator names the key alone: revoke it within its partner.
		svc := s.keys()
		partnerID, err := svc.Owner(ctx, keyID)
		var k auth.Key
		if err == nil {
			k, err = svc.Revoke(ctx, audit.ByOperator(), partnerID, keyID)
		}
		if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
			return nil, fmt.Errorf("key %s not found", keyID)
		}
		if err != nil {
			return nil, err
		}
		if k.RevokedAt == nil {
			return nil, fmt.Errorf("key %s: store returned no revocation time", keyID)
		}
		return keyRevoked{KeyID: k.KeyID, Revoked: true, RevokedAt: lead.FormatTime(*k.RevokedAt)}, nil
	}, nil
}

func parseKeyList(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("partner", "", "partner id (required)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	partnerID, err := requiredID(fs, "partner", *id)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		keys, err := s.keys().List(ctx, partnerID)
		if err != nil {
			return nil, partnerErr(partnerID, err)
		}
		out := keyList{PartnerID: partnerID, Keys: make([]keyView, 0, len(keys))}
		for _, k := range keys {
			v := keyView{
				KeyID: k.KeyID, Prefix: k.Prefix(), Mode: k.Mode, Scopes: k.Scopes, CreatedAt: lead.FormatTime(k.CreatedAt),
				CreatedBy: viewActor(k.CreatedBy),
			}
			if k.RevokedAt != nil {
				v.RevokedAt = optTime(*k.RevokedAt)
			}
			if k.LastUsedAt != nil {
				v.LastUsedAt = optTime(*k.LastUsedAt)
			}
			out.Keys = append(out.Keys, v)
		}
		return out, nil
	}, nil
}
