package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

func TestPartnerBeta(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := createPartner(t, s)
	none, deposits := []partner.Feature{}, []partner.Feature{partner.Deposits}
	steps := []struct {
		name string
		args []string
		want []partner.Feature
	}{
		{"enable", []string{"--enable", "deposits"}, deposits},
		{"enable again changes nothing", []string{"--enable", "deposits"}, deposits},
		{"repeats and blanks ignored", []string{"--enable", " deposits, ,deposits"}, deposits},
		{"disable", []string{"--disable", "deposits"}, none},
		{"disable again changes nothing", []string{"--disable=deposits"}, none},
	}
	// Steps build on each other: run them in order.
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := opctl(t, s.Table(), append([]string{"partner", "beta", "--partner", id}, st.args...)...)
			if got, want := fields(t, r.stdout), []string{"beta", "note", "partner_id"}; !slices.Equal(got, want) {
				t.Errorf("output fields %q; want %q", got, want)
			}
			out := ok[partnerBeta](t, r)
			if out.PartnerID != id || !slices.Equal(out.Beta, st.want) || out.Beta == nil {
				t.Errorf("output %+v; want partner_id %s, beta %q (an array, never null)", out, id, st.want)
			}
			// The settings cache delays the change (issue 23, item 8).
			if !strings.Contains(out.Note, "within "+pipeline.SettingsTTL.String()) {
				t.Errorf("note %q; want it to say the change takes effect within %v", out.Note, pipeline.SettingsTTL)
			}
			p, err := s.GetPartner(context.Background(), id)
			if err != nil {
				t.Fatalf("GetPartner: %v", err)
			}
			if !slices.Equal(orderFeatures(p.Beta), st.want) {
				t.Errorf("stored beta %q; want %q", p.Beta, st.want)
			}
		})
	}
}

func TestPartnerBetaUnknownPartner(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	r := opctl(t, s.Table(), "partner", "beta", "--partner", "ptn_x", "--enable", "deposits")
	fails(t, r, exitFailure, "")
	if want := "opctl: partner ptn_x not found\n"; r.stderr != want {
		t.Errorf("stderr %q; want %q", r.stderr, want)
	}
}

func TestPartnerBetaUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"neither", []string{"--partner", "ptn_x"}, "partner beta: give --enable FEATURE,... or --disable FEATURE,..."},
		{"both", []string{"--partner", "ptn_x", "--enable", "deposits", "--disable", "deposits"}, "partner beta: give --enable or --disable, not both"},
		{"unknown feature", []string{"--partner", "ptn_x", "--enable", "deposits,payouts"}, `partner beta: --enable: unknown beta feature "payouts" (known: deposits)`},
		{"case matters", []string{"--partner", "ptn_x", "--disable", "Deposits"}, `--disable: unknown beta feature "Deposits"`},
		{"empty enable", []string{"--partner", "ptn_x", "--enable", ""}, "--enable: name at least one feature"},
		{"only commas", []string{"--partner", "ptn_x", "--disable", " , "}, "--disable: name at least one feature"},
		{"no partner", []string{"--enable", "deposits"}, "--partner is required"},
		{"positional", []string{"--partner", "ptn_x", "--enable", "deposits", "now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Usage errors are found before the table is needed.
			fails(t, opctl(t, "", append([]string{"partner", "beta"}, tt.args...)...), exitUsage, tt.want)
		})
	}
}

func TestOrderFeatures(t *testing.T) {
	tests := []struct {
		name string
		in   []partner.Feature
		want []partner.Feature
	}{
		{"none", nil, []partner.Feature{}},
		{"known", []partner.Feature{partner.Deposits}, []partner.Feature{partner.Deposits}},
		{"unknown stored names follow, sorted", []partner.Feature{"zeta", partner.Deposits, "alpha", "zeta"}, []partner.Feature{partner.Deposits, "alpha", "zeta"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := orderFeatures(tt.in); !slices.Equal(got, tt.want) || got == nil {
				t.Errorf("orderFeatures(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}
