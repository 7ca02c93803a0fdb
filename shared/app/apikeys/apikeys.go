// Package apikeys is the management of partners' API keys that opctl and
// the dashboard's Settings → Developers share, so both follow the same
// rules: create a key (mode, scopes; the key is returned once, only its
// digest stored), revoke one within its partner (another partner's key is
// not found), and list a partner's keys with their creator and last use.
// Every change takes an audit.Actor and writes its audit entry in the
// same transaction as the change. Storage is the Store interface
// (shared/adapter/dynamo's Store).
package apikeys

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

// Store is the storage the service needs.
type Store interface {
	GetPartner(ctx context.Context, id string) (partner.Partner, error)
	CreateKey(ctx context.Context, k auth.Key, audits ...audit.Entry) error
	GetKey(ctx context.Context, keyID string) (auth.Key, error)
	RevokeKey(ctx context.Context, keyID string, now time.Time, audits ...audit.Entry) (auth.Key, error)
	ListKeys(ctx context.Context, partnerID string) ([]auth.Key, error)
}

// Service manages API keys.
type Service struct {
	store Store
	now   func() time.Time
}

// New returns the service over store; now is its clock (nil: time.Now).
func New(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now}
}

// Created is a new key: its record and the key itself, shown once.
type Created struct {
	auth.Key
	Secret string
}

// Create makes a key of partner partnerID in mode with scopes (put in
// the order of auth.AllScopes, without repeats) on behalf of actor.
// An unknown mode or scope, no scope or an invalid actor →
// validation_failed; unknown partner → not_found; nothing is written
// then.
func (s *Service) Create(ctx context.Context, actor audit.Actor, partnerID string, mode auth.Mode, scopes []auth.Scope) (Created, error) {
	if err := actor.Check(); err != nil {
		return Created{}, errcode.New(errcode.ValidationFailed, "%s", err)
	}
	if _, err := auth.ParseMode(string(mode)); err != nil {
		return Created{}, errcode.New(errcode.ValidationFailed, "%s", err)
	}
	scopes, err := normalize(scopes)
	if err != nil {
		return Created{}, err
	}
	key, keyID, err := auth.NewKey(mode)
	if err != nil {
		return Created{}, err
	}
	now := s.now()
	k := auth.Key{KeyID: keyID, Digest: auth.Digest(key), PartnerID: partnerID, Mode: mode, Scopes: scopes, CreatedAt: now, CreatedBy: actor}
	entry := audit.Entry{
		PartnerID: partnerID, Actor: actor, Action: audit.KeyCreated, TargetKind: audit.TargetKey, TargetID: keyID,
		Detail: describe(k), At: now,
	}
	if err := s.store.CreateKey(ctx, k, entry); err != nil {
		return Created{}, err
	}
	return Created{Key: k, Secret: key}, nil
}

// normalize returns scopes in the order of auth.AllScopes, without
// repeats; an unknown scope or none is validation_failed.
func normalize(scopes []auth.Scope) ([]auth.Scope, error) {
	for _, sc := range scopes {
		if _, err := auth.ParseScope(string(sc)); err != nil {
			return nil, errcode.New(errcode.ValidationFailed, "%s", err)
		}
	}
	var out []auth.Scope
	for _, sc := range auth.AllScopes {
		if slices.Contains(scopes, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, errcode.New(errcode.ValidationFailed, "Choose at least one scope.")
	}
	return out, nil
}

// describe is a key's audit detail: its mode and scopes, never the key.
func describe(k auth.Key) string {
	names := make([]string, len(k.Scopes))
	for i, sc := range k.Scopes {
		names[i] = string(sc)
	}
	return fmt.Sprintf("%s key; scopes %s", k.Mode, strings.Join(names, ","))
}

// Revoke revokes partner partnerID's key keyID on behalf of actor and
// returns it as stored (revoking twice keeps the first time, and audits
// both). A key of another partner, or none, → not_found: nothing is
// written.
func (s *Service) Revoke(ctx context.Context, actor audit.Actor, partnerID, keyID string) (auth.Key, error) {
	if err := actor.Check(); err != nil {
		return auth.Key{}, errcode.New(errcode.ValidationFailed, "%s", err)
	}
	k, err := s.Get(ctx, partnerID, keyID)
	if err != nil {
		return auth.Key{}, err
	}
	now := s.now()
	entry := audit.Entry{
		PartnerID: partnerID, Actor: actor, Action: audit.KeyRevoked, TargetKind: audit.TargetKey, TargetID: keyID,
		Detail: describe(k), At: now,
	}
	return s.store.RevokeKey(ctx, keyID, now, entry)
}

// Get returns partner partnerID's key record keyID (without its last
// use); a key of another partner, or none, → not_found.
func (s *Service) Get(ctx context.Context, partnerID, keyID string) (auth.Key, error) {
	k, err := s.store.GetKey(ctx, keyID)
	if e := errcode.As(err); (e != nil && e.Code == errcode.NotFound) || (err == nil && k.PartnerID != partnerID) {
		return auth.Key{}, keyNotFound(keyID)
	}
	return k, err
}

// Owner returns the partner of key keyID, for operators, who name a key
// by its id alone; unknown → not_found.
func (s *Service) Owner(ctx context.Context, keyID string) (string, error) {
	k, err := s.store.GetKey(ctx, keyID)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return "", keyNotFound(keyID)
	}
	return k.PartnerID, err
}

func keyNotFound(keyID string) error {
	return errcode.New(errcode.NotFound, "No API key %s in this account.", keyID)
}

// List returns partner partnerID's keys, live and revoked, oldest first,
// each with its creator and last use (never the key or its digest: the
// caller shows Prefix). Unknown partner → not_found.
func (s *Service) List(ctx context.Context, partnerID string) ([]auth.Key, error) {
	if _, err := s.store.GetPartner(ctx, partnerID); err != nil {
		return nil, err
	}
	return s.store.ListKeys(ctx, partnerID)
}
