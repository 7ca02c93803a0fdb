package surveys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

func newUUID() string { return uuid.NewString() }

// DeliveryLink is the one delivery there is: the partner sends the URL on
// its own channel; the service sends nothing.
const DeliveryLink = "link"

// LinkView is getSurveyLink's response.
type LinkView struct {
	SurveyID   string `json:"survey_id"`
	CaptureURL string `json:"capture_url"`
	Status     string `json:"status"`
	Delivery   string `json:"delivery"`
}

// storedLink is what an Idempotency-Key keeps of a LinkView: everything
// but the capture URL, whose token is never stored in plain text. A
// replay computes the token again (linktoken.Derive) and answers the
// same body.
type storedLink struct {
	SurveyID string `json:"survey_id"`
	Status   string `json:"status"`
	Delivery string `json:"delivery"`
}

// linkStatus is the status a link response reports for a survey in st:
// awaiting_recording until the first clip, then the survey's own status.
func linkStatus(st survey.Status) string {
	if st == survey.Invited {
		return survey.AwaitingRecording
	}
	return string(st)
}

// parseLinkBody reads getSurveyLink's optional body: nothing, or an object
// whose only property is delivery, "link".
func parseLinkBody(body []byte) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return errcode.New(errcode.InvalidJSON, "The request body must be a JSON object (or empty).")
	}
	fe := errcode.FieldErrors{}
	for name, raw := range fields {
		if name != "delivery" {
			fe.Add(name, "is not a field of this request; the body may hold only delivery")
			continue
		}
		var d string
		if err := json.Unmarshal(raw, &d); err != nil || d != DeliveryLink {
			fe.Add("delivery", fmt.Sprintf("must be %q (the partner sends the link itself)", DeliveryLink))
		}
	}
	return fe.Err()
}

// GetSurveyLink is the getSurveyLink endpoint.
//
// The first call for a lead starts its survey (invited; the lead moves from
// new to surveying and its updated_at moves). Later calls return the same
// survey while it is open or processing. Once it reached inventory_ready or
// failed, a call starts a new survey, which getLead then shows.
//
// A call without an Idempotency-Key answers a fresh capture URL (a random
// token) for the survey: only token hashes are stored, so an earlier URL
// cannot be shown again. Earlier URLs keep working until they expire (the
// customer may hold one); a survey keeps its survey.MaxTokens newest.
// Under an Idempotency-Key the token is linktoken.Derive of the tenant,
// the lead and the key, under the capture link key: the stored response
// holds no token, and a replay computes it again, so it answers the
// original body, capture_url included, as the spec's replay rule says.
func (s *Service) GetSurveyLink() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.GetSurveyLink, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		if err := parseLinkBody(c.Body); err != nil {
			return pipeline.Work{}, err
		}
		leadID := c.ID
		partner, err := c.Partner(ctx)
		if err != nil {
			return pipeline.Work{}, err
		}
		t, now, lifetime := c.Tenant(), c.Now, partner.CaptureLinkTTL()
		mint := linktoken.New
		if c.IdempotencyKey != nil {
			key, err := s.linkKey(ctx)
			if err != nil {
				return pipeline.Work{}, err
			}
			idem := *c.IdempotencyKey
			mint = func() (string, error) {
				return linktoken.Derive(key, string(manifest.GetSurveyLink), t.PartnerID, string(t.Mode), leadID, idem)
			}
		}
		return pipeline.Work{
			Run: func(ctx context.Context, _ string) (any, error) {
				return s.link(ctx, t, leadID, lifetime, now, mint)
			},
			Secret: &pipeline.SecretResponse{
				Strip: func(view any) any {
					v := view.(LinkView)
					return storedLink{SurveyID: v.SurveyID, Status: v.Status, Delivery: v.Delivery}
				},
				Restore: func(_ context.Context, stored []byte) (any, error) {
					var st storedLink
					if err := json.Unmarshal(stored, &st); err != nil {
						return nil, fmt.Errorf("read stored survey link: %w", err)
					}
					token, err := mint()
					if err != nil {
						return nil, err
					}
					return LinkView{SurveyID: st.SurveyID, CaptureURL: s.captureURL(token), Status: st.Status, Delivery: st.Delivery}, nil
				},
			},
		}, nil
	}}
}

// Link returns a capture link for tenant t's lead leadID, starting a new
// survey unless the lead's latest is still open or processing.
func (s *Service) Link(ctx context.Context, t auth.Tenant, leadID string, lifetime time.Duration, now time.Time) (LinkView, error) {
	return s.link(ctx, t, leadID, lifetime, now, linktoken.New)
}

// link is Link with the link's token made by mint.
func (s *Service) link(ctx context.Context, t auth.Tenant, leadID string, lifetime time.Duration, now time.Time, mint func() (string, error)) (LinkView, error) {
	token, err := mint()
	if err != nil {
		return LinkView{}, err
	}
	for attempt := 0; ; attempt++ {
		_, ls, err := s.store.GetLeadWithSurvey(ctx, t, leadID)
		if err != nil {
			return LinkView{}, err
		}
		var view LinkView
		if ls.SurveyID != "" && !ls.Status.Final() {
			view, err = s.reissue(ctx, t, ls.SurveyID, token, lifetime, now)
		} else {
			view, err = s.start(ctx, t, leadID, token, lifetime, now)
		}
		// Raced by another call (a survey started or closed, a token
		// added): read again and decide again, a few times.
		if err != nil && attempt < 3 && retryable(err) {
			continue
		}
		return view, err
	}
}

// retryable reports whether err means the survey or lead changed between
// the read and the write.
func retryable(err error) bool {
	var live *record.LiveSurveyError
	return errors.As(err, &live) || errors.Is(err, survey.ErrClosed) || errors.Is(err, record.ErrChanged)
}

func (s *Service) start(ctx context.Context, t auth.Tenant, leadID, token string, lifetime time.Duration, now time.Time) (LinkView, error) {
	sv, err := survey.NewWithToken(s.newID(), leadID, token, lifetime, now)
	if err != nil {
		return LinkView{}, err
	}
	if err := s.store.StartSurvey(ctx, t, sv); err != nil {
		return LinkView{}, err
	}
	return s.view(sv, token), nil
}

func (s *Service) reissue(ctx context.Context, t auth.Tenant, surveyID, token string, lifetime time.Duration, now time.Time) (LinkView, error) {
	rec, err := s.store.GetSurvey(ctx, t, surveyID)
	if err != nil {
		return LinkView{}, err
	}
	if rec.Status.Final() {
		return LinkView{}, closed(rec.ID)
	}
	sv, err := s.store.PutSurveyToken(ctx, t, rec.Survey, token, lifetime, now)
	if err != nil {
		return LinkView{}, err
	}
	return s.view(sv, token), nil
}

func (s *Service) view(sv survey.Survey, token string) LinkView {
	return LinkView{SurveyID: sv.ID, CaptureURL: s.captureURL(token), Status: linkStatus(sv.Status), Delivery: DeliveryLink}
}

func (s *Service) captureURL(token string) string {
	return strings.TrimRight(s.baseURL, "/") + CapturePath(token)
}

// closed is the survey_closed error of survey id.
func closed(id string) error {
	e := errcode.New(errcode.SurveyClosed, "The survey is finished; nothing was written.")
	e.Cause = fmt.Errorf("survey %s: %w", id, survey.ErrClosed)
	return e
}
