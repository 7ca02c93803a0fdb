package auth

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/route"
)

func TestPrincipalHas(t *testing.T) {
	tests := []struct {
		name   string
		scopes []route.Scope
		s      route.Scope
		want   bool
	}{
		{"no scopes", nil, route.LeadsRead, false},
		{"only scope", []route.Scope{route.LeadsRead}, route.LeadsRead, true},
		{"read does not imply write", []route.Scope{route.LeadsRead}, route.LeadsWrite, false},
		{"write does not imply read", []route.Scope{route.LeadsWrite}, route.LeadsRead, false},
		{"last of several", []route.Scope{route.LeadsRead, route.SurveysRead, route.DepositsWrite}, route.DepositsWrite, true},
		{"all scopes", route.AllScopes, route.SurveysWrite, true},
		{"empty scope never granted", route.AllScopes, "", false},
		{"case matters", []route.Scope{route.LeadsRead}, "LEADS:READ", false},
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
