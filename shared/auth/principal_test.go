package auth

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/manifest"
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
