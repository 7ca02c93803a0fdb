package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// maxSurveyIDLen bounds --survey: survey ids are UUIDs (36 characters);
// anything much longer is a paste gone wrong, not an id.
const maxSurveyIDLen = 64

// surveyGrants is the output of survey grants: the survey's video links,
// oldest first.
type surveyGrants struct {
	SurveyID  string      `json:"survey_id"`
	PartnerID string      `json:"partner_id"`
	Mode      auth.Mode   `json:"mode"`
	LeadID    string      `json:"lead_id"`
	Grants    []grantView `json:"grants"`
}

// grantView is a video link as survey grants shows it: never its token,
// never the token's hash. Label and RevokedAt are null when there is none;
// Live says whether the link opens now (in the survey's live set and not
// expired); Opens counts its logged opens.
type grantView struct {
	GrantID   string  `json:"grant_id"`
	Label     *string `json:"label"`
	CreatedAt string  `json:"created_at"`
	ExpiresAt string  `json:"expires_at"`
	RevokedAt *string `json:"revoked_at"`
	Live      bool    `json:"live"`
	Opens     int     `json:"opens"`
}

// surveyOpens is the output of survey opens: the survey's open log, oldest
// first. Total counts every logged open; Opens holds the last --limit of
// them (all without --limit).
type surveyOpens struct {
	SurveyID  string     `json:"survey_id"`
	PartnerID string     `json:"partner_id"`
	Mode      auth.Mode  `json:"mode"`
	Total     int        `json:"total"`
	Opens     []openView `json:"opens"`
}

// openView is one open of a video link. UserAgent and ClientAddress are as
// the viewer page logged them: the user agent truncated, the address cut
// to its network (a /24 or a /48), "" when unknown.
type openView struct {
	At            string `json:"at"`
	GrantID       string `json:"grant_id"`
	UserAgent     string `json:"user_agent"`
	ClientAddress string `json:"client_address"`
}

// surveyFlag reads the required --survey flag: a survey id as getLead shows
// it (survey.survey_id, a UUID), trimmed, not blank, without white space
// or control characters inside.
func surveyFlag(fs *flag.FlagSet, value string) (string, error) {
	id, err := requiredID(fs, "survey", value)
	if err != nil {
		return "", err
	}
	if strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "", usagef(fs, "--survey %q is not a survey id: it contains white space or control characters", id)
	}
	if len(id) > maxSurveyIDLen {
		return "", usagef(fs, "--survey is %d bytes long; a survey id (a UUID) has 36", len(id))
	}
	return id, nil
}

// surveyErr turns a not_found error of a survey's reads into the
// operator's message.
func surveyErr(id string, err error) error {
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return fmt.Errorf("survey %s not found", id)
	}
	return err
}

func parseSurveyGrants(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("survey", "", "survey id (required)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	surveyID, err := surveyFlag(fs, *id)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		// Operators know a survey by its id only: its id record names
		// the tenant whose partition holds the links.
		t, leadID, err := s.SurveyTenant(ctx, surveyID)
		if err != nil {
			return nil, surveyErr(surveyID, err)
		}
		set, err := s.VideoLinkSet(ctx, t, surveyID)
		if err != nil {
			return nil, surveyErr(surveyID, err)
		}
		grants, err := s.VideoGrants(ctx, t, surveyID)
		if err != nil {
			return nil, err
		}
		opens, err := s.VideoOpens(ctx, t, surveyID)
		if err != nil {
			return nil, err
		}
		live := map[string]bool{}
		for _, e := range set.Live(now) {
			live[e.GrantID] = true
		}
		count := map[string]int{}
		for _, o := range opens {
			count[o.GrantID]++
		}
		out := surveyGrants{SurveyID: surveyID, PartnerID: t.PartnerID, Mode: t.Mode, LeadID: leadID, Grants: make([]grantView, 0, len(grants))}
		for _, g := range grants {
			v := grantView{
				GrantID: g.ID, CreatedAt: lead.FormatTime(g.CreatedAt), ExpiresAt: lead.FormatTime(g.ExpiresAt),
				Live: live[g.ID], Opens: count[g.ID],
			}
			if g.Label != "" {
				v.Label = &g.Label
			}
			if !g.RevokedAt.IsZero() {
				at := lead.FormatTime(g.RevokedAt)
				v.RevokedAt = &at
			}
			out.Grants = append(out.Grants, v)
		}
		return out, nil
	}, nil
}

func parseSurveyOpens(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("survey", "", "survey id (required)")
	limit := fs.Int("limit", 0, "show only the last N opens (default: all)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	surveyID, err := surveyFlag(fs, *id)
	if err != nil {
		return nil, err
	}
	if setFlags(fs)["limit"] && *limit < 1 {
		return nil, usagef(fs, "--limit must be at least 1; got %d", *limit)
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		t, _, err := s.SurveyTenant(ctx, surveyID)
		if err != nil {
			return nil, surveyErr(surveyID, err)
		}
		opens, err := s.VideoOpens(ctx, t, surveyID)
		if err != nil {
			return nil, err
		}
		out := surveyOpens{SurveyID: surveyID, PartnerID: t.PartnerID, Mode: t.Mode, Total: len(opens)}
		if *limit > 0 && len(opens) > *limit {
			opens = opens[len(opens)-*limit:]
		}
		out.Opens = make([]openView, 0, len(opens))
		for _, o := range opens {
			out.Opens = append(out.Opens, openView{
				At: lead.FormatTime(o.At), GrantID: o.GrantID, UserAgent: o.UserAgent, ClientAddress: o.Client,
			})
		}
		return out, nil
	}, nil
}
