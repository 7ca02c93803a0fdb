package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

// TestDashboardInvite: the link is the public base URL's dashboard (at
// localhost for a loopback address) and a 256-bit token of which only the
// hash is stored, valid 24 hours; the invitation and the audit read are
// in the audit trail with the operator as actor.
func TestDashboardInvite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	id := createPartner(t, s)
	vars := map[string]string{"TABLE_NAME": s.Table(), "PUBLIC_BASE_URL": "http://127.0.0.1:3000"}
	r := opctlEnv(t, vars, "dashboard", "invite", "--partner", id, "--email", "ada@demo.example", "--role", "admin")
	got := ok[invitationMade](t, r)
	token, found := strings.CutPrefix(got.Link, "http://localhost:3000/dashboard/invitations/")
	if !found || len(token) != linktoken.Len {
		t.Fatalf("link %q; want http://localhost:3000/dashboard/invitations/<43-character token>", got.Link)
	}
	hash, _ := linktoken.Parse(token)
	inv, err := s.Invitation(ctx, hash, time.Now())
	if err != nil || inv.Email != "ada@demo.example" || inv.Role != dashboard.Admin || inv.PartnerID != id {
		t.Fatalf("stored invitation %+v, %v", inv, err)
	}
	exp, _ := time.Parse(time.RFC3339, got.ExpiresAt)
	if d := time.Until(exp); d < 23*time.Hour || d > 24*time.Hour {
		t.Errorf("expires_at %s: %s from now; want 24 h", got.ExpiresAt, d)
	}
	if _, err := s.Invitation(ctx, hash, exp); err == nil {
		t.Error("the invitation opens at its expiry")
	}
	audit := ok[auditOut](t, opctl(t, s.Table(), "audit", "--partner", id))
	if len(audit.Entries) != 1 || audit.Entries[0].Action != "person.invited" || audit.Entries[0].Actor != "operator" ||
		!strings.Contains(audit.Entries[0].Detail, "ada@demo.example") {
		t.Errorf("audit %+v; want the invitation by the operator", audit.Entries)
	}
	if strings.Contains(r.stdout+r.stderr, hash) {
		t.Error("the output shows the stored hash")
	}
	again := ok[auditOut](t, opctl(t, s.Table(), "audit", "--partner", id))
	if len(again.Entries) != 2 || again.Entries[0].Action != "audit.read" {
		t.Errorf("audit after a read %+v; want the read audited, newest first", again.Entries)
	}
}

// auditOut is opctl audit's output.
type auditOut struct {
	PartnerID string      `json:"partner_id"`
	Entries   []auditView `json:"entries"`
}

func TestDashboardInviteUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"dashboard", "invite", "--partner", "p", "--email", "a@b.c"},
		{"dashboard", "invite", "--partner", "p", "--email", "a@b.c", "--role", "owner"},
		{"audit"},
		{"audit", "--partner", "p", "--limit", "0"},
	} {
		if r := opctl(t, "", args...); r.code != 2 {
			t.Errorf("opctl %q: exit %d (stderr %q); want 2", args, r.code, r.stderr)
		}
	}
}
