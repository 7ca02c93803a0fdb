package auth

import (
	"slices"
	"time"

	"github.com/moveleads/partnerapi/shared/estimate"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/survey"
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
	Scopes []manifest.Scope
}

// Has reports whether p carries scope s.
func (p Principal) Has(s manifest.Scope) bool { return slices.Contains(p.Scopes, s) }

// Key is the stored record of an API key (never the key itself).
type Key struct {
	KeyID     string
	Digest    string
	PartnerID string
	Mode      Mode
	Scopes    []manifest.Scope
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Partner is a moving company using the API.
type Partner struct {
	ID       string
	Name     string
	RateCard estimate.RateCard
	// Beta lists the beta features the operator enabled for the partner.
	Beta []manifest.Feature
	// CaptureLinkLifetime is how long a capture link (the video-survey
	// link the partner sends its customer) stays valid; 0 means
	// survey.DefaultTokenLifetime. The store only keeps values that
	// survey.CheckTokenLifetime accepts. Use CaptureLinkTTL to read it.
	CaptureLinkLifetime time.Duration
	CreatedAt           time.Time
}

// BetaEnabled reports whether the operator enabled feature f for p.
func (p Partner) BetaEnabled(f manifest.Feature) bool { return slices.Contains(p.Beta, f) }

// CaptureLinkTTL returns how long a capture link of p is valid: its
// CaptureLinkLifetime, or survey.DefaultTokenLifetime when that is 0 (the
// operator never set one, or reset it).
func (p Partner) CaptureLinkTTL() time.Duration {
	if p.CaptureLinkLifetime == 0 {
		return survey.DefaultTokenLifetime
	}
	return p.CaptureLinkLifetime
}
