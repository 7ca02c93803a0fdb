package auth

import (
	"slices"
	"time"
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
}
