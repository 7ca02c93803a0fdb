package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// invitationMade is the output of dashboard invite: the only place the
// link appears (only its token's hash is stored).
type invitationMade struct {
	PartnerID string         `json:"partner_id"`
	Email     string         `json:"email"`
	Role      dashboard.Role `json:"role"`
	Link      string         `json:"link"`
	ExpiresAt string         `json:"expires_at"`
}

// auditView is one audit entry as opctl audit prints it.
type auditView struct {
	At         string `json:"at"`
	Actor      string `json:"actor"`                 // operator | person
	ActorID    string `json:"actor_id,omitempty"`    // a person's id
	ActorEmail string `json:"actor_email,omitempty"` // a person's email
	Action     string `json:"action"`
	TargetKind string `json:"target_kind"`
	TargetID   string `json:"target_id"`
	Detail     string `json:"detail,omitempty"`
}

func newAuditView(e audit.Entry) auditView {
	return auditView{At: e.At.UTC().Format(time.RFC3339Nano), Actor: string(e.Actor.Kind), ActorID: e.Actor.PersonID, ActorEmail: e.Actor.Email,
		Action: string(e.Action), TargetKind: string(e.TargetKind), TargetID: e.TargetID, Detail: e.Detail}
}

func parseDashboardInvite(fs *flag.FlagSet, args []string) (action, error) {
	partnerID := fs.String("partner", "", "partner id")
	email := fs.String("email", "", "the person's email address")
	role := fs.String("role", "", "admin or viewer")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	if *partnerID == "" || *email == "" || *role == "" {
		return nil, usagef(fs, "--partner, --email and --role are required")
	}
	if r := dashboard.Role(*role); !r.Valid() {
		return nil, usagef(fs, "--role %q: want admin or viewer", *role)
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		base := strings.TrimSpace(s.env.Getenv(settings.PublicBaseURL))
		if base == "" {
			return nil, fmt.Errorf("%s is not set: the link needs the API's public base URL (run inside the checkout while make dev runs, or set it)", settings.PublicBaseURL)
		}
		if _, err := s.GetPartner(ctx, *partnerID); err != nil {
			return nil, partnerErr(*partnerID, err)
		}
		return invitePerson(ctx, s, base, *partnerID, *email, dashboard.Role(*role), now)
	}, nil
}

// invitePerson stores an invitation made by the operator, with its audit
// entry, and returns its one-time link.
func invitePerson(ctx context.Context, s target, base, partnerID, email string, role dashboard.Role, now time.Time) (invitationMade, error) {
	token, inv, err := dashboard.NewInvitation(partnerID, email, role, dashboard.OperatorActor, now)
	if err != nil {
		return invitationMade{}, err
	}
	if err := s.CreateInvitation(ctx, inv, dashboard.InvitedEntry(inv, audit.ByOperator())); err != nil {
		return invitationMade{}, err
	}
	return invitationMade{PartnerID: partnerID, Email: email, Role: role,
		Link: dashboard.SiteURL(base) + dashboard.InvitationPath(token), ExpiresAt: inv.ExpiresAt.UTC().Format(time.RFC3339)}, nil
}

func parseAudit(fs *flag.FlagSet, args []string) (action, error) {
	partnerID := fs.String("partner", "", "partner id")
	limit := fs.Int("limit", 200, "most entries to print, newest first")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	if *partnerID == "" {
		return nil, usagef(fs, "--partner is required")
	}
	if *limit < 1 || *limit > 1000 {
		return nil, usagef(fs, "--limit %d: want 1 to 1000", *limit)
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		es, err := s.ListAudit(ctx, *partnerID, *limit)
		if err != nil {
			return nil, err
		}
		out := make([]auditView, len(es))
		for i, e := range es {
			out[i] = newAuditView(e)
		}
		a := audit.Entry{PartnerID: *partnerID, Actor: audit.ByOperator(), Action: audit.AuditRead,
			TargetKind: audit.TargetPartner, TargetID: *partnerID, At: now}
		if err := s.PutAudit(ctx, a); err != nil {
			return nil, err
		}
		return map[string]any{"partner_id": *partnerID, "entries": out}, nil
	}, nil
}
