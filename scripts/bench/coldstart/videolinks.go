package coldstart

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
)

// linksPerSurvey is how many video links the cold starts mint on one
// survey before they start another: a survey holds videolink.MaxLive live
// links.
const linksPerSurvey = videolink.MaxLive - 10

// videoSurvey is a survey with one playable clip that the video-link cold
// starts mint links on, and how many they minted.
type videoSurvey struct {
	tenant auth.Tenant
	id     string
	minted int
}

// playableSurvey starts a survey of the survey partner with one clip
// already decided playable (the processor's verdict written directly: the
// video-link functions only read it).
func (f *fixture) playableSurvey(ctx context.Context, t auth.Tenant) (string, error) {
	now := time.Now().UTC()
	sv, _, err := f.startSurvey(ctx, t, now)
	if err != nil {
		return "", err
	}
	c, err := survey.NewClip(uuid.NewString(), "Kitchen", int64(len(f.clip)), clipContentType, 0, now)
	if err != nil {
		return "", err
	}
	if err := f.store.PutClip(ctx, t, sv.ID, c); err != nil {
		return "", fmt.Errorf("announce clip: %w", err)
	}
	for _, step := range [][2]survey.ClipStatus{{survey.ClipAnnounced, survey.ClipProcessing}, {survey.ClipProcessing, survey.ClipPlayable}} {
		err := f.store.AdvanceClip(ctx, t, record.ClipTransition{
			SurveyID: sv.ID, ClipID: c.ID, From: step[0], To: step[1], At: now,
			Size: int64(len(f.clip)), Duration: 1920 * time.Millisecond, Codec: "vp8", Width: 640, Height: 480,
		})
		if err != nil {
			return "", fmt.Errorf("clip %s → %s: %w", c.ID, step[1], err)
		}
	}
	return sv.ID, nil
}

// next returns the survey to mint the next link on, starting a new one
// every linksPerSurvey links.
func (f *fixture) next(ctx context.Context, v *videoSurvey) (string, error) {
	if v.id == "" || v.minted >= linksPerSurvey {
		id, err := f.playableSurvey(ctx, v.tenant)
		if err != nil {
			return "", err
		}
		v.id, v.minted = id, 0
	}
	v.minted++
	return v.id, nil
}

// viewToken mints a video link on the viewer's survey through the store,
// as createSurveyVideoAccess would, and returns its token: one per cold
// start, so none nears a link's 20 opens an hour.
func (f *fixture) viewToken(ctx context.Context) (string, error) {
	surveyID, err := f.next(ctx, &f.viewSurvey)
	if err != nil {
		return "", err
	}
	token, err := linktoken.New()
	if err != nil {
		return "", err
	}
	now := time.Now().UTC()
	g := videolink.Grant{
		ID: uuid.NewString(), SurveyID: surveyID, TokenHash: linktoken.Hash(token),
		CreatedAt: now, ExpiresAt: now.Add(time.Hour).Truncate(time.Second),
	}
	set, err := f.store.VideoLinkSet(ctx, f.viewSurvey.tenant, surveyID)
	if err != nil {
		return "", err
	}
	if err := f.store.MintVideoLink(ctx, f.viewSurvey.tenant, g, set, now); err != nil {
		return "", fmt.Errorf("mint video link: %w", err)
	}
	return token, nil
}
