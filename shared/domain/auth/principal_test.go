package auth

import (
	"testing"
)

func TestPrincipalHas(t *testing.T) {
	tests := []struct {
		name   string
		scopes []Scope
		s      Scope
		want   bool
	}{
		{"no scopes", nil, LeadsRead, false},
		{"only scope", []Scope{LeadsRead}, LeadsRead, true},
		{"read does not imply write", []Scope{LeadsRead}, LeadsWrite, false},
		{"write does not imply read", []Scope{LeadsWrite}, LeadsRead, false},
		{"last of several", []Scope{LeadsRead, SurveysRead, DepositsWrite}, DepositsWrite, true},
		{"all scopes", AllScopes, SurveysWrite, true},
		{"empty scope never granted", AllScopes, "", false},
		{"case matters", []Scope{LeadsRead}, "LEADS:READ", false},
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
