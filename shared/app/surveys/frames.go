package surveys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// framesRequest is the body of POST /v1-capture/{token}/frames: the
// frames the page took from one clip.
type framesRequest struct {
	ClipID string              `json:"clip_id"`
	Frames []frameAnnouncement `json:"frames"`
}

// frameAnnouncement is one frame as the page took it.
type frameAnnouncement struct {
	OffsetMS int64 `json:"offset_ms"`
	Size     int64 `json:"size"`
	Width    int   `json:"width"`
	Height   int   `json:"height"`
}

// FramesView is the answer to a frames announcement: each frame in the
// order sent, with its presigned upload (nil for a frame already
// received), and the survey's frame count.
type FramesView struct {
	ClipID     string      `json:"clip_id"`
	Frames     []FrameView `json:"frames"`
	FramesUsed int         `json:"frames_used"`
	FramesMax  int         `json:"frames_max"`
	ExpiresAt  time.Time   `json:"expires_at"`
}

// FrameView is one frame of a FramesView.
type FrameView struct {
	Slot     int         `json:"slot"`
	OffsetMS int64       `json:"offset_ms"`
	Status   string      `json:"status"`
	Upload   *UploadView `json:"upload"`
}

// parseFrames checks a frames announcement: a clip id (UUID) and 1 to
// survey.MaxFramesPerRequest frames, each valid (survey.NewFrame) and in
// its own slot. Errors are validation_failed naming each bad field as
// frames[i].<field>.
func parseFrames(body []byte, now time.Time) (string, []survey.Frame, error) {
	var req framesRequest
	if err := strictJSON(body, &req); err != nil {
		return "", nil, err
	}
	id, err := uuid.Parse(req.ClipID)
	if err != nil || len(req.ClipID) != 36 {
		return "", nil, errcode.New(errcode.ValidationFailed, "clip_id must be the id of a clip of this survey.").
			WithDetail("fields", map[string]any{"clip_id": "must be a UUID"})
	}
	if len(req.Frames) == 0 || len(req.Frames) > survey.MaxFramesPerRequest {
		return "", nil, errcode.New(errcode.ValidationFailed, "frames must list 1 to %d frames; got %d.", survey.MaxFramesPerRequest, len(req.Frames)).
			WithDetail("fields", map[string]any{"frames": fmt.Sprintf("must list 1 to %d frames", survey.MaxFramesPerRequest)})
	}
	fields := errcode.FieldErrors{}
	frames := make([]survey.Frame, 0, len(req.Frames))
	slots := map[int]int{}
	for i, a := range req.Frames {
		if a.OffsetMS < 0 || a.OffsetMS >= survey.MaxClipDuration.Milliseconds() {
			// Checked before the conversion to a Duration, which a huge
			// value would overflow into range.
			fields.Add(fmt.Sprintf("frames[%d].offset_ms", i), fmt.Sprintf("must be from 0 to %d (a clip lasts at most %s); got %d",
				survey.MaxClipDuration.Milliseconds()-1, survey.MaxClipDuration, a.OffsetMS))
			continue
		}
		f, err := survey.NewFrame(id.String(), time.Duration(a.OffsetMS)*time.Millisecond, a.Size, a.Width, a.Height, 0, now)
		if e := errcode.As(err); e != nil {
			for name, reason := range e.Fields() {
				fields.Add(fmt.Sprintf("frames[%d].%s", i, name), reason)
			}
			continue
		} else if err != nil {
			return "", nil, err
		}
		if j, dup := slots[f.Slot]; dup {
			fields.Add(fmt.Sprintf("frames[%d].offset_ms", i), fmt.Sprintf("falls in the same %s slot as frames[%d] (one frame per %s of a clip)", survey.FrameInterval, j, survey.FrameInterval))
			continue
		}
		slots[f.Slot] = i
		frames = append(frames, f)
	}
	if err := fields.Err(); err != nil {
		return "", nil, err
	}
	return id.String(), frames, nil
}

func (s *Service) captureFrames() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.CaptureFrames, Verify: s.verify(),
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			clipID, frames, err := parseFrames(c.Body, c.Now)
			if err != nil {
				return pipeline.Work{}, err
			}
			ss := session(c)
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				return s.RequestFrameUploads(ctx, ss, clipID, frames, c.Now)
			}}, nil
		},
	}
}

// RequestFrameUploads announces frames (from parseFrames: one clip,
// distinct slots) for the session's survey and signs their uploads. The
// clip must be one of the survey's and not rejected. Announcing a frame
// again (a retry: same slot, offset, size and dimensions) signs a fresh
// upload for it without counting it again; a frame already received is
// answered with its status and no upload. A different frame in a slot
// already used is a conflict; passing survey.MaxFrames (validation_failed
// with details.max_frames and details.frames_used) or survey.FramesPerClip
// for the clip (survey.CheckClipFrames) is refused: either way nothing is
// written.
func (s *Service) RequestFrameUploads(ctx context.Context, ss *Session, clipID string, frames []survey.Frame, now time.Time) (FramesView, error) {
	if err := ss.usable(); err != nil {
		return FramesView{}, err
	}
	t, rec := ss.Tenant, ss.Record
	c, err := s.store.GetClip(ctx, t, rec.ID, clipID)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return FramesView{}, errcode.New(errcode.NotFound, "The survey has no clip %s; announce the clip before its frames.", clipID).
			WithDetail("clip_id", clipID)
	}
	if err != nil {
		return FramesView{}, err
	}
	if c.Status == survey.ClipRejected {
		return FramesView{}, errcode.New(errcode.Conflict, "Clip %s was rejected; its frames are not needed.", clipID).
			WithDetail("clip_id", clipID).WithDetail("status", string(c.Status))
	}
	var stored map[int]record.Frame
	var used int
	for attempt := 0; ; attempt++ {
		all, err := s.store.ListFrames(ctx, t, rec.ID)
		if err != nil {
			return FramesView{}, err
		}
		stored = map[int]record.Frame{}
		for _, f := range all {
			if f.ClipID == clipID {
				stored[f.Slot] = f
			}
		}
		var fresh []survey.Frame
		for _, f := range frames {
			prev, ok := stored[f.Slot]
			switch {
			case !ok:
				fresh = append(fresh, f)
			case !prev.SameAnnouncement(f):
				return FramesView{}, errcode.New(errcode.Conflict,
					"Clip %s already has another frame in slot %d (%d ms, %d bytes, %d×%d); one frame per %s of a clip.",
					clipID, f.Slot, prev.Offset.Milliseconds(), prev.AnnouncedSize, prev.Width, prev.Height, survey.FrameInterval).
					WithDetail("clip_id", clipID).WithDetail("slot", f.Slot)
			}
		}
		used = len(all)
		if len(fresh) == 0 {
			break
		}
		// The store enforces this too, atomically; checked here as well
		// for clips whose frames predate the store's per-clip count.
		if err := survey.CheckClipFrames(clipID, len(stored), len(fresh)); err != nil {
			return FramesView{}, err
		}
		err = s.store.PutFrames(ctx, t, rec.ID, fresh)
		if err == nil {
			used += len(fresh)
			for _, f := range fresh {
				stored[f.Slot] = record.Frame{Frame: f}
			}
			break
		}
		// A concurrent announcement of the same frames (a retry racing the
		// first request): read them again, once.
		if attempt == 0 && (errors.Is(err, record.ErrFrameExists) || errors.Is(err, record.ErrChanged)) {
			continue
		}
		return FramesView{}, err
	}
	view := FramesView{ClipID: clipID, Frames: make([]FrameView, 0, len(frames)), FramesUsed: used, FramesMax: survey.MaxFrames}
	for _, f := range frames {
		cur := stored[f.Slot]
		fv := FrameView{Slot: f.Slot, OffsetMS: f.Offset.Milliseconds(), Status: string(cur.Status)}
		if !cur.Status.Final() {
			up, err := s.objects.PresignUpload(ctx, survey.FrameKey(t.PartnerID, string(t.Mode), rec.ID, clipID, f.Slot), survey.FrameContentType, f.AnnouncedSize, UploadTTL)
			if err != nil {
				return FramesView{}, err
			}
			fv.Upload = &UploadView{Method: up.Method, URL: up.URL, Headers: up.Headers}
			view.ExpiresAt = up.ExpiresAt.UTC()
		}
		view.Frames = append(view.Frames, fv)
	}
	if view.ExpiresAt.IsZero() {
		view.ExpiresAt = now.Add(UploadTTL).UTC()
	}
	return view, nil
}

// processFrame validates frame slot of clip clipID, stored at obj.Key, runs the detector
// on it and records both (survey.FrameValid with the analysis, or
// survey.FrameRejected with the reason), then settles its survey. Like
// ProcessClip it tolerates duplicate and late events, and a key that names
// no announced frame is ignored. A frame is read only when its size is the
// announced one (at most survey.MaxFrameBytes), so memory stays bounded.
// The detector's failure is recorded with the frame, never retried by
// failing the event: the survey settles without it.
func (s *Service) processFrame(ctx context.Context, t auth.Tenant, surveyID, clipID string, slot int, obj Object, now time.Time) error {
	f, err := s.store.GetFrame(ctx, t, surveyID, clipID, slot)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		s.log.WarnContext(ctx, "object names no announced frame", "key", obj.Key)
		return nil
	}
	if err != nil {
		return err
	}
	if !f.Status.Final() {
		if err := s.decideFrame(ctx, t, surveyID, f, obj.Key, now); err != nil {
			return err
		}
	}
	return s.Settle(ctx, t, surveyID, now)
}

func (s *Service) decideFrame(ctx context.Context, t auth.Tenant, surveyID string, f record.Frame, key string, now time.Time) error {
	size, found, err := s.objects.Size(ctx, key)
	if err != nil {
		return err
	}
	if !found {
		s.log.WarnContext(ctx, "frame object is gone", "key", key)
		return nil
	}
	ft := record.FrameTransition{SurveyID: surveyID, ClipID: f.ClipID, Slot: f.Slot, From: f.Status, At: now}
	var detail string // the detector's own error, for the log only
	if size != f.AnnouncedSize {
		ft.To, ft.RejectReason = survey.FrameRejected, fmt.Sprintf("size %d bytes, announced %d", size, f.AnnouncedSize)
	} else {
		data := make([]byte, size)
		if _, err := io.ReadFull(io.NewSectionReader(s.objects.Open(ctx, key, size), 0, size), data); err != nil {
			return fmt.Errorf("read frame %s: %w", key, err)
		}
		if reason := f.Frame.CheckData(data); reason != "" {
			ft.To, ft.RejectReason = survey.FrameRejected, reason
		} else {
			dctx, cancel := context.WithTimeout(ctx, manifest.DetectTimeout)
			a, derr := inventory.Analyse(dctx, s.detector, data)
			cancel()
			if derr != nil {
				detail = derr.Error()
			}
			// A frame the detector cannot read is the customer's bad
			// frame, not a detector failure.
			if errors.Is(derr, inventory.ErrBadFrame) {
				ft.To, ft.RejectReason = survey.FrameRejected, inventory.ReasonBadFrame
			} else {
				ft.To, ft.Analysis = survey.FrameValid, a
			}
		}
	}
	err = s.store.AdvanceFrame(ctx, t, ft)
	if errors.Is(err, record.ErrChanged) {
		return nil // decided by another delivery
	}
	if err == nil {
		s.log.InfoContext(ctx, "frame decided", "key", key, "status", string(ft.To), "reason", ft.RejectReason,
			"detector", ft.Analysis.Detector, "detections", len(ft.Analysis.Detections), "detector_error", ft.Analysis.Error,
			"detector_detail", detail)
	}
	return err
}

// rejectMissingFrames rejects, as never uploaded, the announced frames of
// tenant t's survey whose objects are not in the bucket (the customer
// finished; the page finishes after its uploads ended or gave up), at
// most 8 lookups at a time, so that the survey does not wait for them.
func (s *Service) rejectMissingFrames(ctx context.Context, t auth.Tenant, surveyID string, now time.Time) error {
	frames, err := s.store.ListFrames(ctx, t, surveyID)
	if err != nil {
		return err
	}
	var (
		wg   sync.WaitGroup
		sem  = make(chan struct{}, 8)
		mu   sync.Mutex
		errs []error
	)
	for _, f := range frames {
		if f.Status.Final() {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			key := survey.FrameKey(t.PartnerID, string(t.Mode), surveyID, f.ClipID, f.Slot)
			_, found, err := s.objects.Size(ctx, key)
			if err == nil && !found {
				err = s.store.AdvanceFrame(ctx, t, record.FrameTransition{
					SurveyID: surveyID, ClipID: f.ClipID, Slot: f.Slot, From: f.Status, To: survey.FrameRejected, At: now, RejectReason: survey.NeverUploaded.Reason,
				})
				if errors.Is(err, record.ErrChanged) {
					err = nil
				}
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}
