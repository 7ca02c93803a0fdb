// Package videolinks is the forwardable video links' service:
// createSurveyVideoAccess (a partner mints a link to a survey's
// walkthrough video), revokeSurveyVideoAccess (it closes every live link
// of the survey), and the viewer page a link opens (shared/app/videolinks/viewerpage).
// The rules are shared/domain/videolink's; storage is the Store interface
// (shared/adapter/dynamo), the clip bucket the Objects interface (shared/adapter/s3store,
// adapted in shared/wire/wiring).
package videolinks

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Store is the storage the service needs (shared/adapter/dynamo's Store). Its
// errors carry errcodes; see each method's documentation there.
type Store interface {
	ListClips(ctx context.Context, t auth.Tenant, surveyID string) ([]survey.Clip, error)
	VideoLinkSet(ctx context.Context, t auth.Tenant, surveyID string) (videolink.Set, error)
	MintVideoLink(ctx context.Context, t auth.Tenant, g videolink.Grant, set videolink.Set, now time.Time) error
	RevokeVideoLinks(ctx context.Context, t auth.Tenant, surveyID string, set videolink.Set, now time.Time) (int, error)
	VideoLinkView(ctx context.Context, tokenHash string) (videolink.View, bool, error)
	OpenVideoLink(ctx context.Context, v videolink.View, o videolink.Opening, requestID string, limit int) (auth.Usage, error)
}

// Objects is the clip bucket as the viewer page uses it.
type Objects interface {
	// PresignGet signs a GET of the object at key, valid for ttl.
	PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error)
	// Origin is the scheme and host presigned URLs point at, for the
	// page's Content-Security-Policy.
	Origin() string
}

// Deps is what a Service needs; the access endpoints (create, revoke)
// leave Objects nil: they never touch the bucket.
type Deps struct {
	Store   Store
	Objects Objects
	// BaseURL is the API's public origin (settings.PublicBaseURL), from
	// which view URLs are made.
	BaseURL string
	Log     *slog.Logger
}

// Service runs the video link operations.
type Service struct {
	store   Store
	objects Objects
	baseURL string
	log     *slog.Logger
}

// New returns the service over d.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: d.Store, objects: d.Objects, baseURL: strings.TrimRight(d.BaseURL, "/"), log: d.Log}
}

// ViewPath is the path of the viewer page of token, under the API's
// public origin.
func ViewPath(token string) string { return "/v1-video/" + token }

// maxAttempts bounds how often a mint or a revoke reads the survey's live
// set again after a concurrent write changed it (each retry waits a
// jittered few milliseconds). Past it the call answers 409 conflict with
// nothing written.
const maxAttempts = 12

// retry runs f until it returns something other than a changed-set
// conflict, at most maxAttempts times.
func retry[T any](ctx context.Context, f func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		v, err := f()
		if !errors.Is(err, record.ErrChanged) || attempt == maxAttempts {
			return v, err
		}
		wait := time.Duration(rand.N(5*attempt)+1) * time.Millisecond
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(wait):
		}
	}
}

// AccessView is createSurveyVideoAccess's answer (the spec's Survey video
// access response).
type AccessView struct {
	SurveyID    string `json:"survey_id"`
	GrantID     string `json:"grant_id"`
	ViewURL     string `json:"view_url"`
	ExpiresAt   string `json:"expires_at"`
	ClipCount   int    `json:"clip_count"`
	Forwardable bool   `json:"forwardable"`
	Note        string `json:"note"`
}

// RevokeView is revokeSurveyVideoAccess's answer.
type RevokeView struct {
	SurveyID      string `json:"survey_id"`
	Revoked       bool   `json:"revoked"`
	GrantsRevoked int    `json:"grants_revoked"`
}

// AccessEndpoints returns the v1-survey-video-access function's
// endpoints: create and revoke.
func (s *Service) AccessEndpoints() []pipeline.Endpoint {
	return []pipeline.Endpoint{s.CreateSurveyVideoAccess(), s.RevokeSurveyVideoAccess()}
}

// CreateSurveyVideoAccess is the createSurveyVideoAccess endpoint: it mints
// a link to tenant's survey's walkthrough video, valid ttl_hours (default
// 72, capped at 168), with an optional label. A survey without a playable
// clip answers 422 no_playable_clips, and one with videolink.MaxLive live
// links 422 too_many_video_links; nothing is written then.
//
// It is not idempotent: each call mints a new link, because only the
// token's hash is stored and a replay could not answer the same URL. A
// retry after a lost response leaves a link nobody holds, which expires
// (or a revoke closes) like any other.
func (s *Service) CreateSurveyVideoAccess() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.CreateSurveyVideoAccess, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		req, err := videolink.ParseRequest(c.Body)
		if err != nil {
			return pipeline.Work{}, err
		}
		surveyID := c.ID
		t, now := c.Tenant(), c.Now
		return pipeline.Work{Run: func(ctx context.Context, id string) (any, error) {
			return s.Mint(ctx, t, surveyID, id, req, now)
		}}, nil
	}}
}

// Mint mints grant grantID on tenant t's survey surveyID (see
// CreateSurveyVideoAccess).
func (s *Service) Mint(ctx context.Context, t auth.Tenant, surveyID, grantID string, req videolink.Request, now time.Time) (AccessView, error) {
	clips, err := s.store.ListClips(ctx, t, surveyID)
	if err != nil {
		return AccessView{}, err
	}
	playable := len(Playable(clips))
	token, err := linktoken.New()
	if err != nil {
		return AccessView{}, err
	}
	g := videolink.Grant{
		ID: grantID, SurveyID: surveyID, Label: req.Label, TokenHash: linktoken.Hash(token),
		CreatedAt: now, ExpiresAt: now.Add(req.TTL).Truncate(time.Second),
	}
	_, err = retry(ctx, func() (struct{}, error) {
		set, err := s.store.VideoLinkSet(ctx, t, surveyID)
		if err != nil {
			return struct{}{}, err
		}
		// Checked after the survey is known to exist (a foreign survey has
		// no clips either, and must answer 404).
		if playable == 0 {
			return struct{}{}, errcode.New(errcode.NoPlayableClips,
				"The survey has no playable clip yet (clips become playable once the customer's uploads are checked); no link was made.")
		}
		if n := len(set.Live(now)); n >= videolink.MaxLive {
			return struct{}{}, errcode.New(errcode.TooManyVideoLinks,
				"The survey already has %d live video links, the most it may have; revoke them (DELETE) before minting more.", n).
				WithDetail("max", videolink.MaxLive)
		}
		return struct{}{}, s.store.MintVideoLink(ctx, t, g, set, now)
	})
	if err != nil {
		return AccessView{}, err
	}
	return AccessView{
		SurveyID: surveyID, GrantID: g.ID, ViewURL: s.baseURL + ViewPath(token),
		ExpiresAt: lead.FormatTime(g.ExpiresAt), ClipCount: playable, Forwardable: true,
		Note: videolink.Note(playable, g.ExpiresAt),
	}, nil
}

// RevokeSurveyVideoAccess is the revokeSurveyVideoAccess endpoint: it
// closes every live link of tenant's survey at once and answers how many
// were live and are now closed (0 is a success: nothing was left to
// close). A request body other than empty or {} answers 422: revoke takes
// no argument, and ignoring one (say, a grant id) would close more than
// the caller meant.
func (s *Service) RevokeSurveyVideoAccess() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.RevokeSurveyVideoAccess, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		if err := videolink.ParseRevokeBody(c.Body); err != nil {
			return pipeline.Work{}, err
		}
		surveyID := c.ID
		t, now := c.Tenant(), c.Now
		return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
			return s.Revoke(ctx, t, surveyID, now)
		}}, nil
	}}
}

// Revoke closes every live link of tenant t's survey surveyID.
func (s *Service) Revoke(ctx context.Context, t auth.Tenant, surveyID string, now time.Time) (RevokeView, error) {
	n, err := retry(ctx, func() (int, error) {
		set, err := s.store.VideoLinkSet(ctx, t, surveyID)
		if err != nil {
			return 0, err
		}
		return s.store.RevokeVideoLinks(ctx, t, surveyID, set, now)
	})
	if err != nil {
		return RevokeView{}, err
	}
	return RevokeView{SurveyID: surveyID, Revoked: true, GrantsRevoked: n}, nil
}

// Playable returns the clips that can be served, in recording order.
func Playable(clips []survey.Clip) []survey.Clip {
	var out []survey.Clip
	for _, c := range clips {
		if c.Status == survey.ClipPlayable {
			out = append(out, c)
		}
	}
	return out
}
