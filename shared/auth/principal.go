package auth

import (
	"slices"
	"time"

	"github.com/moveleads/partnerapi/shared/estimate"
	"github.com/moveleads/partnerapi/shared/route"
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
	Scopes []route.Scope
	// RateCard is the partner's rate card, carried on the key record so that
	// creating a lead needs no second read.
	RateCard estimate.RateCard
}

// Has reports whether p carries scope s.
func (p Principal) Has(s route.Scope) bool { return slices.Contains(p.Scopes, s) }

// Key is the stored record of an API key (never the key itself).
type Key struct {
	KeyID     string
	Digest    string
	PartnerID string
	Mode      Mode
	Scopes    []route.Scope
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Partner is a moving company using the API.
type Partner struct {
	ID        string
	Name      string
	RateCard  estimate.RateCard
	CreatedAt time.Time
}
