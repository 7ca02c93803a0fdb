package auth

import (
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

func TestPrincipalHas(t *testing.T) {
	tests := []struct {
		name   string
		scopes []manifest.Scope
		s      manifest.Scope
		want   bool
	}{
		{"no scopes", nil, manifest.LeadsRead, false},
		{"only scope", []manifest.Scope{manifest.LeadsRead}, manifest.LeadsRead, true},
		{"read does not imply write", []manifest.Scope{manifest.LeadsRead}, manifest.LeadsWrite, false},
		{"write does not imply read", []manifest.Scope{manifest.LeadsWrite}, manifest.LeadsRead, false},
		{"last of several", []manifest.Scope{manifest.LeadsRead, manifest.SurveysRead, manifest.DepositsWrite}, manifest.DepositsWrite, true},
		{"all scopes", manifest.AllScopes, manifest.SurveysWrite, true},
		{"empty scope never granted", manifest.AllScopes, "", false},
		{"case matters", []manifest.Scope{manifest.LeadsRead}, "LEADS:READ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Principal{Tenant: Tenant{PartnerID: "ptn_1", Mode: Test}, Scopes: tt.scopes}
			if got := p.Has(tt.s); got != tt.want {
				t.Errorf("Principal{Scopes: %v}.Has(%q) = %v; want %v", tt.scopes, tt.s, got, tt.want)
			}
		})
	}
}

func TestPartnerCaptureLinkTTL(t *testing.T) {
	tests := []struct {
		name     string
		lifetime time.Duration
		want     time.Duration
	}{
		{"unset means the default", 0, survey.DefaultTokenLifetime},
		{"minimum", survey.MinTokenLifetime, survey.MinTokenLifetime},
		{"three days", 72 * time.Hour, 72 * time.Hour},
		{"maximum", survey.MaxTokenLifetime, survey.MaxTokenLifetime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Partner{ID: "ptn_1", CaptureLinkLifetime: tt.lifetime}
			if got := p.CaptureLinkTTL(); got != tt.want {
				t.Errorf("Partner{CaptureLinkLifetime: %s}.CaptureLinkTTL() = %s; want %s", tt.lifetime, got, tt.want)
			}
		})
	}
}
