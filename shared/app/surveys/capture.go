package surveys

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/app/surveys/capturepage"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Session is what a capture token resolved to: the survey as read when the
// request arrived, and whether the token itself has expired.
type Session struct {
	Tenant  auth.Tenant
	Record  record.Survey
	Expired bool
	// ExpiresAt is when the token stops working.
	ExpiresAt time.Time
}

// usable returns nil when the session may change the survey: the link has
// not expired and the survey is still open (invited or recording).
// A finished survey answers survey_closed even when the link has expired
// too ("you already finished" helps more than "this link expired").
func (ss *Session) usable() error {
	switch {
	case !ss.Record.Status.Open():
		return closed(ss.Record.ID)
	case ss.Expired:
		return expired()
	}
	return nil
}

// captureLink is the capture page's words for an unknown and an expired
// link.
var captureLink = linktoken.Link{
	Unknown: "This capture link is not known.",
	Expired: "This link has expired; ask the moving company for a new one.",
}

func expired() error { return captureLink.ExpiredError() }

// verify is the capture routes' token check: it resolves the token to its
// survey and counts the request against the token's rate limit. An
// unknown token (malformed, never issued, or dropped from the survey's
// newest tokens) is not_found; an expired one or a finished survey is left
// to each endpoint (Session), so the page can say which.
func (s *Service) verify() func(context.Context, *pipeline.Call) (pipeline.Grant, error) {
	return pipeline.TokenVerify(captureLink, s.admit)
}

func (s *Service) admit(ctx context.Context, c *pipeline.Call, hash string) (pipeline.Grant, error) {
	now := c.Now
	g, u, err := s.store.AdmitCaptureToken(ctx, hash, now, CaptureRateLimit)
	if err != nil {
		return pipeline.Grant{}, err
	}
	if !u.Admitted {
		return pipeline.Grant{Tenant: g.Tenant, Usage: u}, nil
	}
	rec, err := s.store.GetSurvey(ctx, g.Tenant, g.SurveyID)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return pipeline.Grant{}, linktoken.ErrUnknown
	}
	if err != nil {
		return pipeline.Grant{}, err
	}
	ss := &Session{Tenant: g.Tenant, Record: rec, ExpiresAt: g.ExpiresAt}
	switch err := rec.Access(hash, now); {
	case errors.Is(err, survey.ErrTokenUnknown):
		return pipeline.Grant{}, err
	case errors.Is(err, survey.ErrTokenExpired):
		ss.Expired = true
	}
	if !now.Before(g.ExpiresAt) {
		ss.Expired = true
	}
	return pipeline.Grant{Tenant: g.Tenant, Subject: ss, Usage: u}, nil
}

func session(c *pipeline.Call) *Session { return c.Subject.(*Session) }

// CaptureEndpoints returns the v1-capture function's endpoints: the page
// and its five JSON calls.
func (s *Service) CaptureEndpoints() []pipeline.Endpoint {
	return []pipeline.Endpoint{s.capturePage(), s.captureClip(), s.captureClips(), s.captureFrames(), s.captureChecklist(), s.captureFinish()}
}

// capturePage answers the capture page, or a friendly page saying the link
// is unknown (404), expired (410) or the survey already finished (409).
func (s *Service) capturePage() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.CapturePage, Verify: s.verify(), RenderError: errorPage,
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			ss := session(c)
			partner, err := c.Partner(ctx)
			if err != nil {
				return pipeline.Work{}, err
			}
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				switch {
				case !ss.Record.Status.Open():
					return capturepage.ErrorPage(409, partner.Name), nil
				case ss.Expired:
					return capturepage.ErrorPage(410, partner.Name), nil
				}
				clips, err := s.store.ListClips(ctx, ss.Tenant, ss.Record.ID)
				if err != nil {
					return nil, err
				}
				return capturepage.Render(s.page(c.PathParam, partner.Name, ss, clips)), nil
			}}, nil
		},
	}
}

func (s *Service) page(token, company string, ss *Session, clips []survey.Clip) capturepage.Page {
	p := capturepage.Page{
		Company: company, APIBase: CapturePath(token), UploadOrigin: s.objects.Origin(),
		Rooms: survey.Rooms, RoomItems: inventory.RoomItems(), Checklist: map[string]map[string]int{},
		ClipsMax: survey.MaxClips, MaxClipBytes: survey.MaxClipBytes, MaxClipSeconds: int(survey.MaxClipDuration / time.Second),
		ExpiresAt: ss.ExpiresAt,
		FramesMax: survey.MaxFrames, FramesUsed: ss.Record.FrameCount, FramesPerClip: survey.FramesPerClip,
		MaxFrameBytes: survey.MaxFrameBytes, MaxFrameSide: survey.MaxFrameSide, FrameInterval: survey.FrameInterval,
	}
	for _, e := range inventory.Entries() {
		p.Items = append(p.Items, capturepage.Item{Key: e.Key, Name: e.Name})
	}
	for _, c := range clips {
		v, reason := c.Verdict()
		p.Clips = append(p.Clips, capturepage.Clip{ID: c.ID, Room: c.Room, Verdict: string(v), Reason: reason, At: c.AnnouncedAt})
	}
	p.ClipsUsed = ss.Record.ClipCount
	for _, r := range ss.Record.Checklist.Rooms {
		counts := map[string]int{}
		for _, it := range r.Items {
			counts[it.Key] = it.Count
		}
		p.Checklist[r.Name] = counts
	}
	return p
}

// errorPage renders a capture page error as HTML: an unknown link 404, an
// expired one 410, anything else with its own status (a rate limit, a
// failure) as a page saying to try again shortly.
func errorPage(err error) pipeline.Document {
	status, _ := pipeline.Render(err)
	return capturepage.ErrorPage(status, "")
}

// clipRequest is the body of POST /v1-capture/{token}/clips.
type clipRequest struct {
	ClipID      string `json:"clip_id"`
	Room        string `json:"room"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type"`
}

// ClipView is the answer to a clip upload request.
type ClipView struct {
	ClipID    string     `json:"clip_id"`
	Room      string     `json:"room"`
	Status    string     `json:"status"`
	Upload    UploadView `json:"upload"`
	ExpiresAt time.Time  `json:"expires_at"`
	ClipsUsed int        `json:"clips_used"`
	ClipsMax  int        `json:"clips_max"`
}

// UploadView is a presigned upload as the page uses it.
type UploadView struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// strictJSON decodes body into v, refusing unknown fields and trailing
// data: invalid_json when it is not one JSON object of the right types,
// validation_failed naming an unknown field.
func strictJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ):
			return errcode.New(errcode.ValidationFailed, "The field %s has the wrong type.", typ.Field).
				WithDetail("fields", map[string]any{typ.Field: "has the wrong type (" + typ.Value + ")"})
		case errors.As(err, &syn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return errcode.New(errcode.InvalidJSON, "The request body must be one JSON object.")
		}
		if name, ok := unknownField(err); ok {
			return errcode.New(errcode.ValidationFailed, "The field %s is not part of this request.", name).
				WithDetail("fields", map[string]any{name: "is not a field of this request"})
		}
		return errcode.New(errcode.InvalidJSON, "The request body must be one JSON object.")
	}
	if dec.More() {
		return errcode.New(errcode.InvalidJSON, "The request body must be one JSON object, with nothing after it.")
	}
	return nil
}

// unknownField reads the field name of encoding/json's "unknown field"
// error (it has no type of its own).
func unknownField(err error) (string, bool) {
	quoted, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return "", false
	}
	name, uerr := strconv.Unquote(quoted)
	return name, uerr == nil
}

func (s *Service) captureClip() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.CaptureClip, Verify: s.verify(),
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			var req clipRequest
			if err := strictJSON(c.Body, &req); err != nil {
				return pipeline.Work{}, err
			}
			id, err := uuid.Parse(req.ClipID)
			if err != nil || len(req.ClipID) != 36 {
				return pipeline.Work{}, errcode.New(errcode.ValidationFailed, "clip_id must be a UUID the page makes for the clip.").
					WithDetail("fields", map[string]any{"clip_id": "must be a UUID"})
			}
			clip, err := survey.NewClip(id.String(), req.Room, req.Size, req.ContentType, 0, c.Now)
			if err != nil {
				return pipeline.Work{}, err
			}
			ss := session(c)
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				return s.RequestUpload(ctx, ss, clip, c.Now)
			}}, nil
		},
	}
}

// RequestUpload announces clip c (from survey.NewClip) for the session's
// survey and signs its upload. Announcing the same clip again (a retried
// upload: same id, room, size and type) signs a fresh upload for it
// without counting it again. The first clip moves the survey to recording.
func (s *Service) RequestUpload(ctx context.Context, ss *Session, c survey.Clip, now time.Time) (ClipView, error) {
	if err := ss.usable(); err != nil {
		return ClipView{}, err
	}
	t, rec := ss.Tenant, ss.Record
	used := rec.ClipCount + 1
	err := s.store.PutClip(ctx, t, rec.ID, c)
	if e := errcode.As(err); e != nil && e.Code == errcode.ValidationFailed {
		// A full survey refuses a new clip; a retried one it already
		// holds is still welcome.
		if _, gerr := s.store.GetClip(ctx, t, rec.ID, c.ID); gerr == nil {
			err = fmt.Errorf("clip %s: %w", c.ID, record.ErrClipExists)
		}
	}
	if errors.Is(err, record.ErrClipExists) {
		prev, gerr := s.store.GetClip(ctx, t, rec.ID, c.ID)
		if gerr != nil {
			return ClipView{}, gerr
		}
		switch {
		case prev.Room != c.Room || prev.AnnouncedSize != c.AnnouncedSize || prev.ContentType != c.ContentType:
			return ClipView{}, errcode.New(errcode.Conflict,
				"clip_id %s was already used for another clip (%s, %d bytes, %s); make a new id for a new clip.",
				c.ID, prev.Room, prev.AnnouncedSize, prev.ContentType).WithDetail("clip_id", c.ID)
		case prev.Status.Final() || prev.Status == survey.ClipProcessing:
			return ClipView{}, errcode.New(errcode.Conflict, "Clip %s was already received; nothing to upload again.", c.ID).
				WithDetail("clip_id", c.ID).WithDetail("status", string(prev.Status))
		}
		c, used, err = prev, rec.ClipCount, nil
	}
	if err != nil {
		return ClipView{}, err
	}
	if rec.Status == survey.Invited {
		err := s.store.AdvanceSurvey(ctx, t, record.SurveyTransition{
			LeadID: rec.LeadID, SurveyID: rec.ID, From: survey.Invited, To: survey.Recording, At: now,
		})
		if err != nil && !errors.Is(err, record.ErrChanged) {
			return ClipView{}, err
		}
	}
	up, err := s.objects.PresignUpload(ctx, survey.ObjectKey(t.PartnerID, string(t.Mode), rec.ID, c.ID), c.ContentType, c.AnnouncedSize, UploadTTL)
	if err != nil {
		return ClipView{}, err
	}
	return ClipView{
		ClipID: c.ID, Room: c.Room, Status: string(c.Status),
		Upload:    UploadView{Method: up.Method, URL: up.URL, Headers: up.Headers},
		ExpiresAt: up.ExpiresAt.UTC(), ClipsUsed: used, ClipsMax: survey.MaxClips,
	}, nil
}

// ClipsView is the answer to the page's poll of its clips: each clip's
// verdict, and how many of the survey's places they take.
type ClipsView struct {
	Clips     []ClipStatusView `json:"clips"`
	ClipsUsed int              `json:"clips_used"`
	ClipsMax  int              `json:"clips_max"`
}

// ClipStatusView is one clip as the customer is told about it: its
// verdict (survey.Verdict) and, when it could not be used, why in plain
// words (survey.CustomerReason).
type ClipStatusView struct {
	ClipID      string    `json:"clip_id"`
	Room        string    `json:"room"`
	Verdict     string    `json:"verdict"`
	Reason      string    `json:"reason,omitempty"`
	AnnouncedAt time.Time `json:"announced_at"`
}

// captureClips answers GET /v1-capture/{token}/clips: the survey's clips,
// oldest first, with their verdicts. A finished survey or an expired
// link answers as the other calls do (survey_closed, link_expired).
func (s *Service) captureClips() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.CaptureClips, Verify: s.verify(),
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			ss := session(c)
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				if err := ss.usable(); err != nil {
					return nil, err
				}
				clips, err := s.store.ListClips(ctx, ss.Tenant, ss.Record.ID)
				if err != nil {
					return nil, err
				}
				v := ClipsView{Clips: make([]ClipStatusView, 0, len(clips)), ClipsMax: survey.MaxClips}
				for _, cl := range clips {
					verdict, reason := cl.Verdict()
					v.Clips = append(v.Clips, ClipStatusView{ClipID: cl.ID, Room: cl.Room, Verdict: string(verdict), Reason: reason, AnnouncedAt: cl.AnnouncedAt.UTC()})
					if verdict != survey.VerdictUnusable {
						v.ClipsUsed++
					}
				}
				return v, nil
			}}, nil
		},
	}
}

// ChecklistView is the answer to a saved checklist.
type ChecklistView struct {
	Saved bool `json:"saved"`
	Items int  `json:"items"`
}

func (s *Service) captureChecklist() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.CaptureChecklist, Verify: s.verify(),
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			cl, err := inventory.ParseChecklist(c.Body)
			if err != nil {
				return pipeline.Work{}, err
			}
			ss := session(c)
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				if err := ss.usable(); err != nil {
					return nil, err
				}
				if err := s.store.SetChecklist(ctx, ss.Tenant, ss.Record.ID, cl); err != nil {
					return nil, err
				}
				n := 0
				for _, r := range cl.Rooms {
					for _, it := range r.Items {
						if it.Count > 0 {
							n++
						}
					}
				}
				return ChecklistView{Saved: true, Items: n}, nil
			}}, nil
		},
	}
}

// FinishView is the answer to a finish.
type FinishView struct {
	Status string `json:"status"`
	Clips  int    `json:"clips"`
}

func (s *Service) captureFinish() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.CaptureFinish, Verify: s.verify(),
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			if len(bytes.TrimSpace(c.Body)) > 0 {
				var none struct{}
				if err := strictJSON(c.Body, &none); err != nil {
					return pipeline.Work{}, err
				}
			}
			ss := session(c)
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				return s.Finish(ctx, ss, c.Now)
			}}, nil
		},
	}
}
