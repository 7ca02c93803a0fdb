package auth

import (
	"slices"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/audit"
)

// Tenant is the owner of every partner resource: a partner in one mode. It
// is taken only from a verified key and is part of every storage key.
type Tenant struct {
	PartnerID string
	Mode      Mode
}

// Principal is what a verified API key grants.
type Principal struct {
	Tenant
	KeyID  string
	Scopes []Scope
}

// Has reports whether p carries scope s.
func (p Principal) Has(s Scope) bool { return slices.Contains(p.Scopes, s) }

// Key is the stored record of an API key (never the key itself).
type Key struct {
	KeyID     string
	Digest    string
	PartnerID string
	Mode      Mode
	Scopes    []Scope
	CreatedAt time.Time
	RevokedAt *time.Time
	// CreatedBy is who created the key (zero for keys from before it was
	// kept).
	CreatedBy audit.Actor
	// LastUsedAt is when a request last authenticated with the key (nil:
	// never); set by the same update that counts the request.
	LastUsedAt *time.Time
}

// Prefix is what a listing shows of the key itself: its mode's prefix.
// Nothing more of a key is stored, only its digest.
func (k Key) Prefix() string { return k.Mode.Prefix() }
