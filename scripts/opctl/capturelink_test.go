package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

func TestPartnerCaptureLink(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := createPartner(t, s)
	steps := []struct {
		name   string
		args   []string
		want   time.Duration
		stored time.Duration // CaptureLinkLifetime in the store: 0 is the default
	}{
		{"new partner shows the default", nil, survey.DefaultTokenLifetime, 0},
		{"Go duration", []string{"--lifetime", "72h"}, 72 * time.Hour, 72 * time.Hour},
		{"show after a change", nil, 72 * time.Hour, 72 * time.Hour},
		{"days", []string{"--lifetime", "14d"}, 14 * day, 14 * day},
		{"days and hours", []string{"--lifetime=1d12h"}, 36 * time.Hour, 36 * time.Hour},
		{"minutes, padded", []string{"--lifetime", " 90m "}, 90 * time.Minute, 90 * time.Minute},
		{"the minimum", []string{"--lifetime", "1h"}, survey.MinTokenLifetime, survey.MinTokenLifetime},
		{"the maximum", []string{"--lifetime", "30d"}, survey.MaxTokenLifetime, survey.MaxTokenLifetime},
		{"the default, set explicitly", []string{"--lifetime", "7d"}, survey.DefaultTokenLifetime, survey.DefaultTokenLifetime},
		{"reset", []string{"--default"}, survey.DefaultTokenLifetime, 0},
		{"reset again changes nothing", []string{"--default"}, survey.DefaultTokenLifetime, 0},
		{"show after the reset", nil, survey.DefaultTokenLifetime, 0},
	}
	// Steps build on each other: run them in order.
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := opctl(t, s.Table(), append([]string{"partner", "capture-link", "--partner", id}, st.args...)...)
			want := []string{"capture_link_lifetime", "capture_link_lifetime_seconds", "partner_id"}
			if got := fields(t, r.stdout); !slices.Equal(got, want) {
				t.Errorf("output fields %q; want %q", got, want)
			}
			out := ok[captureLink](t, r)
			if wantOut := (captureLink{id, st.want.String(), int64(st.want / time.Second)}); out != wantOut {
				t.Errorf("output %+v; want %+v", out, wantOut)
			}
			p, err := s.GetPartner(context.Background(), id)
			if err != nil {
				t.Fatalf("GetPartner: %v", err)
			}
			if p.CaptureLinkLifetime != st.stored {
				t.Errorf("stored lifetime %s; want %s", p.CaptureLinkLifetime, st.stored)
			}
		})
	}
}

func TestPartnerCaptureLinkOutput(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := createPartner(t, s)
	r := opctl(t, s.Table(), "partner", "capture-link", "--partner", id)
	want := "{\n  \"partner_id\": \"" + id + "\",\n  \"capture_link_lifetime\": \"168h0m0s\",\n  \"capture_link_lifetime_seconds\": 604800\n}\n"
	if r.code != exitOK || r.stdout != want {
		t.Errorf("exit %d, stdout %q; want 0 and %q", r.code, r.stdout, want)
	}
}

func TestPartnerCaptureLinkUnknownPartner(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, args := range [][]string{nil, {"--lifetime", "72h"}, {"--default"}} {
		r := opctl(t, s.Table(), append([]string{"partner", "capture-link", "--partner", "ptn_x"}, args...)...)
		fails(t, r, exitFailure, "")
		if want := "opctl: partner ptn_x not found\n"; r.stderr != want {
			t.Errorf("opctl %q: stderr %q; want %q", r.args, r.stderr, want)
		}
	}
	if _, err := s.GetPartner(context.Background(), "ptn_x"); err == nil {
		t.Error("GetPartner(ptn_x) succeeded; want capture-link never to create a partner")
	}
}

func TestPartnerCaptureLinkUsage(t *testing.T) {
	t.Parallel()
	const bounds = "between 1h0m0s and 720h0m0s"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"below the minimum", []string{"--partner", "ptn_x", "--lifetime", "59m59s"}, "partner capture-link: --lifetime: capture link lifetime must be " + bounds + "; got 59m59s"},
		{"above the maximum", []string{"--partner", "ptn_x", "--lifetime", "721h"}, bounds + "; got 721h0m0s"},
		{"too many days", []string{"--partner", "ptn_x", "--lifetime", "31d"}, bounds + "; got 31d"},
		{"days plus a little too much", []string{"--partner", "ptn_x", "--lifetime", "30d1s"}, bounds + "; got 720h0m1s"},
		{"huge days", []string{"--partner", "ptn_x", "--lifetime", "9999999999d"}, bounds},
		{"huge hours", []string{"--partner", "ptn_x", "--lifetime", "2562047h"}, bounds},
		{"zero", []string{"--partner", "ptn_x", "--lifetime", "0"}, bounds + "; got 0s"},
		{"zero days", []string{"--partner", "ptn_x", "--lifetime", "0d"}, bounds + "; got 0s"},
		{"negative", []string{"--partner", "ptn_x", "--lifetime", "-72h"}, bounds},
		{"fraction of a second", []string{"--partner", "ptn_x", "--lifetime", "2h0.5s"}, "2h0m0.5s is not a whole number of seconds; give a lifetime " + bounds},
		{"no unit", []string{"--partner", "ptn_x", "--lifetime", "72"}, `--lifetime: "72" is not a lifetime; give a Go duration (72h, 90m) or days (14d) ` + bounds},
		{"empty", []string{"--partner", "ptn_x", "--lifetime", ""}, `"" is not a lifetime`},
		{"words", []string{"--partner", "ptn_x", "--lifetime", "a week"}, `"a week" is not a lifetime`},
		{"fractional days", []string{"--partner", "ptn_x", "--lifetime", "1.5d"}, `"1.5d" is not a lifetime`},
		{"negative days", []string{"--partner", "ptn_x", "--lifetime", "-1d"}, `"-1d" is not a lifetime`},
		{"days alone as unit", []string{"--partner", "ptn_x", "--lifetime", "d"}, `"d" is not a lifetime`},
		{"days twice", []string{"--partner", "ptn_x", "--lifetime", "1d1d"}, `"1d1d" is not a lifetime`},
		{"signed after days", []string{"--partner", "ptn_x", "--lifetime", "2d-1h"}, `"2d-1h" is not a lifetime`},
		{"space before the unit", []string{"--partner", "ptn_x", "--lifetime", "14 d"}, `"14 d" is not a lifetime`},
		{"both", []string{"--partner", "ptn_x", "--lifetime", "72h", "--default"}, "partner capture-link: give --lifetime or --default, not both"},
		{"no partner", []string{"--lifetime", "72h"}, "--partner is required"},
		{"blank partner", []string{"--partner", " ", "--default"}, "--partner is required"},
		{"positional", []string{"--partner", "ptn_x", "72h"}, `unexpected argument "72h"`},
		{"lifetime without value", []string{"--partner", "ptn_x", "--lifetime"}, "flag needs an argument"},
		{"default with a value", []string{"--partner", "ptn_x", "--default=maybe"}, "invalid boolean value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Usage errors are found before the table is needed.
			fails(t, opctl(t, "", append([]string{"partner", "capture-link"}, tt.args...)...), exitUsage, tt.want)
		})
	}
}

// TestPartnerCaptureLinkRefusedKeepsValue: a refused value writes nothing.
func TestPartnerCaptureLinkRefusedKeepsValue(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := createPartner(t, s)
	ok[captureLink](t, opctl(t, s.Table(), "partner", "capture-link", "--partner", id, "--lifetime", "48h"))
	fails(t, opctl(t, s.Table(), "partner", "capture-link", "--partner", id, "--lifetime", "31d"), exitUsage, "between")
	p, err := s.GetPartner(context.Background(), id)
	if err != nil {
		t.Fatalf("GetPartner: %v", err)
	}
	if p.CaptureLinkLifetime != 48*time.Hour {
		t.Errorf("stored lifetime %s; want 48h0m0s kept", p.CaptureLinkLifetime)
	}
}

func TestParseLifetime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"1h", time.Hour},
		{"72h", 72 * time.Hour},
		{"1h30m", 90 * time.Minute},
		{"3600s", time.Hour},
		{"1d", day},
		{"14d", 14 * day},
		{"030d", 30 * day},
		{"1d0s", day},
		{"2d3h4m5s", 2*day + 3*time.Hour + 4*time.Minute + 5*time.Second},
		{"29d23h59m59s", survey.MaxTokenLifetime - time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseLifetime(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("parseLifetime(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzParseLifetime checks that parseLifetime never panics, accepts only
// lifetimes within the bounds in whole seconds, and fails with one line
// that names the bounds.
func FuzzParseLifetime(f *testing.F) {
	for _, s := range []string{"72h", "14d", "1d12h", "0d", "-1d", "2d-1h", "d", "9999999999999999999999d", "1.5h", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseLifetime(s)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "1h0m0s") || !strings.Contains(msg, "720h0m0s") || strings.ContainsAny(msg, "\n\r") {
				t.Errorf("parseLifetime(%q) error %q; want one line naming both bounds", s, msg)
			}
			return
		}
		if survey.CheckTokenLifetime(d) != nil || d%time.Second != 0 {
			t.Errorf("parseLifetime(%q) = %s; want a lifetime within the bounds in whole seconds", s, d)
		}
	})
}
