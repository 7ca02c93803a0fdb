package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
)

// videoSurvey is a survey started in a test's table, with what its video
// links need: its tenant and a clock.
type videoSurvey struct {
	s      *dynamo.Store
	tenant auth.Tenant
	id     string
	leadID string
}

// startVideoSurvey creates a partner, a lead of it in mode and starts the
// lead's survey, through the store as the API does (the survey's id
// record, which opctl finds the tenant by, comes with it).
func startVideoSurvey(t *testing.T, s *dynamo.Store, mode auth.Mode) videoSurvey {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	partnerID := "ptn_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	if err := s.CreatePartner(ctx, partner.Partner{ID: partnerID, Name: "Acme Movers", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now}); err != nil {
		t.Fatalf("CreatePartner: %v", err)
	}
	tn := auth.Tenant{PartnerID: partnerID, Mode: mode}
	l := lead.Build(uuid.NewString(), lead.CreateInput{CustomerName: "Grace Hopper", Email: "grace@example.com"}, estimate.DefaultRateCard("usd"), now)
	if err := s.PutLead(ctx, tn, l, false); err != nil {
		t.Fatalf("PutLead: %v", err)
	}
	sv, _, err := survey.New(uuid.NewString(), l.ID, survey.DefaultTokenLifetime, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartSurvey(ctx, tn, sv); err != nil {
		t.Fatalf("StartSurvey: %v", err)
	}
	return videoSurvey{s: s, tenant: tn, id: sv.ID, leadID: l.ID}
}

// mint mints a video link of v at at, living ttl, with label, as
// createSurveyVideoAccess does (read the live set, then mint on it), and
// returns the grant and its token's view.
func (v videoSurvey) mint(t *testing.T, at time.Time, ttl time.Duration, label string) (videolink.Grant, videolink.View) {
	t.Helper()
	ctx := context.Background()
	token, err := linktoken.New()
	if err != nil {
		t.Fatal(err)
	}
	g := videolink.Grant{
		ID: uuid.NewString(), SurveyID: v.id, Label: label, TokenHash: linktoken.Hash(token),
		CreatedAt: at, ExpiresAt: at.Add(ttl).Truncate(time.Second),
	}
	set, err := v.s.VideoLinkSet(ctx, v.tenant, v.id)
	if err != nil {
		t.Fatalf("VideoLinkSet: %v", err)
	}
	if err := v.s.MintVideoLink(ctx, v.tenant, g, set, at); err != nil {
		t.Fatalf("MintVideoLink: %v", err)
	}
	view, found, err := v.s.VideoLinkView(ctx, g.TokenHash)
	if err != nil || !found {
		t.Fatalf("VideoLinkView = %v, %v; want the link just minted", found, err)
	}
	return g, view
}

// open opens view at at, as the viewer page does, from ua at client.
func (v videoSurvey) open(t *testing.T, view videolink.View, at time.Time, ua, client string) {
	t.Helper()
	o := videolink.Opening{GrantID: view.GrantID, At: at, UserAgent: ua, Client: client}
	u, err := v.s.OpenVideoLink(context.Background(), view, o, uuid.NewString(), videolink.OpensPerHour)
	if err != nil || !u.Admitted {
		t.Fatalf("OpenVideoLink at %s = %+v, %v; want it admitted", at, u, err)
	}
}

// revoke closes every live link of v at at, as revokeSurveyVideoAccess
// does.
func (v videoSurvey) revoke(t *testing.T, at time.Time) int {
	t.Helper()
	ctx := context.Background()
	set, err := v.s.VideoLinkSet(ctx, v.tenant, v.id)
	if err != nil {
		t.Fatalf("VideoLinkSet: %v", err)
	}
	n, err := v.s.RevokeVideoLinks(ctx, v.tenant, v.id, set, at)
	if err != nil {
		t.Fatalf("RevokeVideoLinks: %v", err)
	}
	return n
}

// jsonObjects decodes the array field name of the JSON object in stdout
// into its elements' raw fields, to check which fields are present and
// null.
func jsonObjects(t *testing.T, stdout, name string) []map[string]json.RawMessage {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &top); err != nil {
		t.Fatalf("stdout %q is not a JSON object: %v", stdout, err)
	}
	var out []map[string]json.RawMessage
	if err := json.Unmarshal(top[name], &out); err != nil || out == nil {
		t.Fatalf("%s = %s; want an array of objects (%v)", name, top[name], err)
	}
	return out
}

func TestSurveyGrants(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	v := startVideoSurvey(t, s, auth.Test)
	now := time.Now().UTC()
	// expired: 1 hour, minted 3 hours ago, never opened or revoked.
	expired, _ := v.mint(t, now.Add(-3*time.Hour), time.Hour, "for the carrier")
	// revoked: opened twice, then closed by a revoke an hour ago.
	revoked, rv := v.mint(t, now.Add(-2*time.Hour), 72*time.Hour, "for storage")
	v.open(t, rv, now.Add(-100*time.Minute), "carrier-browser/1", "203.0.113.0")
	v.open(t, rv, now.Add(-95*time.Minute), "carrier-browser/1", "203.0.113.0")
	revokedAt := now.Add(-time.Hour)
	if n := v.revoke(t, revokedAt); n != 1 {
		t.Fatalf("revoke closed %d links; want 1 (the other had expired)", n)
	}
	// live: minted since, without a label, opened once.
	live, lv := v.mint(t, now.Add(-30*time.Minute), 72*time.Hour, "")
	v.open(t, lv, now.Add(-10*time.Minute), "Mozilla/5.0", "2001:db8:1::")

	r := opctl(t, s.Table(), "survey", "grants", "--survey", v.id)
	if got, want := fields(t, r.stdout), []string{"grants", "lead_id", "mode", "partner_id", "survey_id"}; !slices.Equal(got, want) {
		t.Errorf("output fields %q; want %q", got, want)
	}
	for i, g := range jsonObjects(t, r.stdout, "grants") {
		var names []string
		for k := range g {
			names = append(names, k)
		}
		slices.Sort(names)
		if want := []string{"created_at", "expires_at", "grant_id", "label", "live", "opens", "revoked_at"}; !slices.Equal(names, want) {
			t.Errorf("grants[%d] fields %q; want %q (null ones included)", i, names, want)
		}
	}
	out := ok[surveyGrants](t, r)
	if out.SurveyID != v.id || out.PartnerID != v.tenant.PartnerID || out.Mode != auth.Test || out.LeadID != v.leadID {
		t.Errorf("output %+v; want survey %s of partner %s, mode test, lead %s", out, v.id, v.tenant.PartnerID, v.leadID)
	}
	str := func(s string) *string { return &s }
	at := func(tm time.Time) *string { return str(lead.FormatTime(tm)) }
	want := []grantView{
		{GrantID: expired.ID, Label: str("for the carrier"), CreatedAt: *at(expired.CreatedAt), ExpiresAt: *at(expired.ExpiresAt)},
		{GrantID: revoked.ID, Label: str("for storage"), CreatedAt: *at(revoked.CreatedAt), ExpiresAt: *at(revoked.ExpiresAt), RevokedAt: at(revokedAt), Opens: 2},
		{GrantID: live.ID, CreatedAt: *at(live.CreatedAt), ExpiresAt: *at(live.ExpiresAt), Live: true, Opens: 1},
	}
	if len(out.Grants) != len(want) {
		t.Fatalf("got %d grants %+v; want %d", len(out.Grants), out.Grants, len(want))
	}
	for i, w := range want {
		g := out.Grants[i]
		if g.GrantID != w.GrantID || g.CreatedAt != w.CreatedAt || g.ExpiresAt != w.ExpiresAt || g.Live != w.Live || g.Opens != w.Opens ||
			!equalPtr(g.Label, w.Label) || !equalPtr(g.RevokedAt, w.RevokedAt) {
			t.Errorf("grants[%d] = %s; want %s", i, show(g), show(w))
		}
	}
	if strings.Contains(r.stdout, expired.TokenHash) || strings.Contains(r.stdout, live.TokenHash) {
		t.Errorf("stdout %q shows a token's hash; want none", r.stdout)
	}
}

func equalPtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(g grantView) string {
	b, _ := json.Marshal(g)
	return string(b)
}

func TestSurveyGrantsNone(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	v := startVideoSurvey(t, s, auth.Live)
	r := opctl(t, s.Table(), "survey", "grants", "--survey", v.id)
	out := ok[surveyGrants](t, r)
	if out.Mode != auth.Live || out.Grants == nil || len(out.Grants) != 0 || !strings.Contains(r.stdout, `"grants": []`) {
		t.Errorf("output %q; want mode live and \"grants\": []", r.stdout)
	}
	r = opctl(t, s.Table(), "survey", "opens", "--survey", v.id)
	opens := ok[surveyOpens](t, r)
	if opens.Total != 0 || !strings.Contains(r.stdout, `"opens": []`) {
		t.Errorf("output %q; want total 0 and \"opens\": []", r.stdout)
	}
}

func TestSurveyOpens(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	v := startVideoSurvey(t, s, auth.Test)
	now := time.Now().UTC()
	g1, view1 := v.mint(t, now.Add(-2*time.Hour), 72*time.Hour, "first")
	g2, view2 := v.mint(t, now.Add(-90*time.Minute), 72*time.Hour, "second")
	// Opened in this order; the log lists them oldest first.
	type open struct {
		view   videolink.View
		at     time.Time
		ua, ip string
	}
	opens := []open{
		{view1, now.Add(-80 * time.Minute), "carrier-browser/1", "203.0.113.0"},
		{view2, now.Add(-70 * time.Minute), "Mozilla/5.0 (iPhone)", "198.51.100.0"},
		{view1, now.Add(-60 * time.Minute), "carrier-browser/2", "2001:db8:1::"},
		{view2, now.Add(-50 * time.Minute), "", ""},
	}
	for _, o := range opens {
		v.open(t, o.view, o.at, o.ua, o.ip)
	}
	wantView := func(o open) openView {
		return openView{At: lead.FormatTime(o.at), GrantID: o.view.GrantID, UserAgent: o.ua, ClientAddress: o.ip}
	}
	all := make([]openView, len(opens))
	for i, o := range opens {
		all[i] = wantView(o)
	}
	tests := []struct {
		name string
		args []string
		want []openView
	}{
		{"all", nil, all},
		{"last two", []string{"--limit", "2"}, all[2:]},
		{"last one", []string{"--limit=1"}, all[3:]},
		{"limit above the count", []string{"--limit", "100"}, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := opctl(t, s.Table(), append([]string{"survey", "opens", "--survey", v.id}, tt.args...)...)
			if got, want := fields(t, r.stdout), []string{"mode", "opens", "partner_id", "survey_id", "total"}; !slices.Equal(got, want) {
				t.Errorf("output fields %q; want %q", got, want)
			}
			out := ok[surveyOpens](t, r)
			if out.SurveyID != v.id || out.PartnerID != v.tenant.PartnerID || out.Mode != auth.Test || out.Total != len(opens) {
				t.Errorf("output %+v; want survey %s of %s, mode test, total %d", out, v.id, v.tenant.PartnerID, len(opens))
			}
			if !slices.Equal(out.Opens, tt.want) {
				t.Errorf("opens %+v; want %+v", out.Opens, tt.want)
			}
		})
	}
	// The grants' open counts agree with the log.
	grants := ok[surveyGrants](t, opctl(t, s.Table(), "survey", "grants", "--survey", v.id))
	counts := map[string]int{}
	for _, g := range grants.Grants {
		counts[g.GrantID] = g.Opens
	}
	if counts[g1.ID] != 2 || counts[g2.ID] != 2 {
		t.Errorf("open counts %v; want 2 for each grant", counts)
	}
}

// TestSurveyUnknown: a survey no id record names fails with exit 1 and
// one line naming it, like an unknown partner or key.
func TestSurveyUnknown(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	startVideoSurvey(t, s, auth.Test) // another survey exists
	id := uuid.NewString()
	for _, args := range [][]string{
		{"survey", "grants", "--survey", id},
		{"survey", "opens", "--survey", id},
		{"survey", "opens", "--survey", id, "--limit", "5"},
	} {
		r := opctl(t, s.Table(), args...)
		fails(t, r, exitFailure, "")
		if want := "opctl: survey " + id + " not found\n"; r.stderr != want {
			t.Errorf("opctl %q: stderr %q; want %q", r.args, r.stderr, want)
		}
	}
}

func TestSurveyUsage(t *testing.T) {
	t.Parallel()
	id := uuid.NewString()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"grants: no survey", []string{"survey", "grants"}, "survey grants: --survey is required"},
		{"grants: blank survey", []string{"survey", "grants", "--survey", "  "}, "survey grants: --survey is required"},
		{"grants: space inside", []string{"survey", "grants", "--survey", "0000 0000"}, `survey grants: --survey "0000 0000" is not a survey id`},
		{"grants: tab inside", []string{"survey", "grants", "--survey", "a\tb"}, "is not a survey id"},
		{"grants: control character", []string{"survey", "grants", "--survey", "a\x00b"}, "is not a survey id"},
		{"grants: too long", []string{"survey", "grants", "--survey", strings.Repeat(id, 2)}, "survey grants: --survey is 72 bytes long; a survey id (a UUID) has 36"},
		{"grants: positional", []string{"survey", "grants", "--survey", id, "extra"}, `survey grants: unexpected argument "extra"`},
		{"grants: no limit flag", []string{"survey", "grants", "--survey", id, "--limit", "2"}, "flag provided but not defined: -limit"},
		{"grants: survey without value", []string{"survey", "grants", "--survey"}, "flag needs an argument"},
		{"opens: no survey", []string{"survey", "opens", "--limit", "2"}, "survey opens: --survey is required"},
		{"opens: limit zero", []string{"survey", "opens", "--survey", id, "--limit", "0"}, "survey opens: --limit must be at least 1; got 0"},
		{"opens: limit negative", []string{"survey", "opens", "--survey", id, "--limit=-3"}, "--limit must be at least 1; got -3"},
		{"opens: limit not a number", []string{"survey", "opens", "--survey", id, "--limit", "ten"}, "invalid value"},
		{"opens: positional", []string{"survey", "opens", "--survey", id, "5"}, `unexpected argument "5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Usage errors are found before the table is needed.
			fails(t, opctl(t, "", tt.args...), exitUsage, tt.want)
		})
	}
}

// TestSurveyTrimsID: a survey id pasted with surrounding blanks is the id.
func TestSurveyTrimsID(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	v := startVideoSurvey(t, s, auth.Test)
	out := ok[surveyGrants](t, opctl(t, s.Table(), "survey", "grants", "--survey", " "+v.id+"\n"))
	if out.SurveyID != v.id {
		t.Errorf("survey_id %q; want %q", out.SurveyID, v.id)
	}
}

// TestHelpListsSurveyCommands: opctl help shows both survey commands
// with their flags.
func TestHelpListsSurveyCommands(t *testing.T) {
	t.Parallel()
	r := opctl(t, "", "help")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("opctl help: exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	var lines []string
	for line := range strings.Lines(r.stdout) {
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	for _, want := range []string{"survey grants --survey ID", "survey opens --survey ID [--limit N]"} {
		if !slices.Contains(lines, want) {
			t.Errorf("opctl help prints %q; want a line %q (blanks aside)", r.stdout, want)
		}
	}
}
