package videolinks

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/videolinks/viewerpage"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// session is what a live link's open found: the link and its survey's
// playable clips.
type session struct {
	view  videolink.View
	clips []survey.Clip
}

// ViewEndpoints returns the v1-video function's endpoint: the viewer page.
func (s *Service) ViewEndpoints() []pipeline.Endpoint { return []pipeline.Endpoint{s.videoPage()} }

// videoPage answers the viewer page of a live link (every playable clip,
// each from a presigned GET that lives videolink.AddressTTL), or a
// friendly page: unknown link 404, expired or revoked 410, past its opens
// of the last hour 429 with Retry-After. None of them says whose link it was or
// whether the survey exists.
func (s *Service) videoPage() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.VideoPage, Verify: s.verifyView(), RenderError: viewErrorPage,
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			ss := c.Subject.(*session)
			partner, err := c.Partner(ctx)
			if err != nil {
				return pipeline.Work{}, err
			}
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				return s.render(ctx, ss, partner.Name)
			}}, nil
		},
	}
}

func (s *Service) render(ctx context.Context, ss *session, company string) (pipeline.Document, error) {
	clips, err := s.presign(ctx, ss.view.Tenant, ss.view.SurveyID, ss.clips)
	if err != nil {
		return pipeline.Document{}, err
	}
	return viewerpage.Render(viewerpage.Page{
		Company: company, Clips: clips, LinkExpiresAt: ss.view.ExpiresAt,
		AddressTTL: videolink.AddressTTL, MediaOrigin: s.objects.Origin(),
	}), nil
}

// videoLink is the viewer page's words for an unknown link and for one
// that expired or was revoked: the same for both, as the spec's
// revocation is not an event the viewer needs to tell apart.
var videoLink = linktoken.Link{
	Unknown: "This video link is not known.",
	Expired: "This video link has expired or was turned off.",
}

// verifyView resolves a view token and counts the open. A known live link
// costs three requests to the table: the token's record (GetItem), then at
// once the clips (Query) and the open (a transaction that checks the link
// is live, counts it among the last hour's opens and logs it). An unknown
// token costs the one GetItem and writes nothing: a token carries 256
// bits, so learning that one does not exist (from the answer or its
// timing) gives a guesser nothing to use, and random guesses must not
// cost writes. A malformed token (wrong length or alphabet) cannot be one
// and is refused without a request.
func (s *Service) verifyView() func(context.Context, *pipeline.Call) (pipeline.Grant, error) {
	return pipeline.TokenVerify(videoLink, s.admitView)
}

func (s *Service) admitView(ctx context.Context, c *pipeline.Call, hash string) (pipeline.Grant, error) {
	v, found, err := s.store.VideoLinkView(ctx, hash)
	if err != nil {
		return pipeline.Grant{}, err
	}
	if !found {
		return pipeline.Grant{}, linktoken.ErrUnknown
	}
	if !c.Now.Before(v.ExpiresAt) {
		return pipeline.Grant{}, linktoken.ErrExpired
	}
	u, clips, err := s.open(ctx, c, v)
	switch e := errcode.As(err); {
	case errors.Is(err, videolink.ErrClosed), e != nil && e.Code == errcode.NotFound:
		return pipeline.Grant{}, linktoken.ErrExpired
	case err != nil:
		return pipeline.Grant{}, err
	case !u.Admitted:
		return pipeline.Grant{Tenant: v.Tenant, Usage: u}, nil
	}
	return pipeline.Grant{Tenant: v.Tenant, Subject: &session{view: v, clips: Playable(clips)}, Usage: u}, nil
}

// open lists v's survey's clips and counts and logs the open, both at
// once. The open's error comes first: a closed link's clips do not matter.
func (s *Service) open(ctx context.Context, c *pipeline.Call, v videolink.View) (auth.Usage, []survey.Clip, error) {
	var (
		wg       sync.WaitGroup
		clips    []survey.Clip
		clipsErr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		clips, clipsErr = s.store.ListClips(ctx, v.Tenant, v.SurveyID)
	}()
	o := videolink.Opening{
		GrantID: v.GrantID, At: c.Now,
		UserAgent: videolink.TruncateUserAgent(c.UserAgent), Client: videolink.TruncateAddress(c.SourceIP),
	}
	u, err := s.store.OpenVideoLink(ctx, v, o, c.RequestID, videolink.OpensPerHour)
	wg.Wait()
	if err != nil {
		return u, nil, err
	}
	return u, clips, clipsErr
}

// viewErrorPage renders an error of the viewer page as a friendly page
// with its status (and Retry-After for 429).
func viewErrorPage(err error) pipeline.Document {
	status, _ := pipeline.Render(err)
	var retry time.Duration
	if e := errcode.As(err); e != nil {
		// The pipeline's rate_limited error carries Usage.RetryAfter.
		if secs, ok := e.Details["retry_after"].(int64); ok {
			retry = time.Duration(secs) * time.Second
		}
	}
	return viewerpage.ErrorPage(status, retry)
}

// presign gives each of clips of tenant t's survey surveyID a presigned
// GET that lives videolink.AddressTTL.
func (s *Service) presign(ctx context.Context, t auth.Tenant, surveyID string, clips []survey.Clip) ([]viewerpage.Clip, error) {
	out := make([]viewerpage.Clip, 0, len(clips))
	for _, c := range clips {
		url, err := s.objects.PresignGet(ctx, survey.ObjectKey(t.PartnerID, string(t.Mode), surveyID, c.ID), videolink.AddressTTL)
		if err != nil {
			return nil, err
		}
		out = append(out, viewerpage.Clip{Room: c.Room, Duration: c.Duration, URL: url, ContentType: c.ContentType})
	}
	return out, nil
}

// Playback returns tenant t's survey surveyID's playable clips as the
// viewer page plays them (each from a presigned GET that lives
// videolink.AddressTTL), for a signed-in page: the partner dashboard's
// lead page. A survey of another tenant, or none, has no clips.
func (s *Service) Playback(ctx context.Context, t auth.Tenant, surveyID string) ([]viewerpage.Clip, error) {
	clips, err := s.store.ListClips(ctx, t, surveyID)
	if err != nil {
		return nil, err
	}
	return s.presign(ctx, t, surveyID, Playable(clips))
}

// MediaOrigin is the origin of Playback's addresses, for a page's
// Content-Security-Policy media-src.
func (s *Service) MediaOrigin() string { return s.objects.Origin() }
