package surveys

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/clip"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Finish ends the capture of the session's survey: it moves it to
// processing and writes its finish marker (survey.FinishKey), whose event
// has the clip processor settle it (Settle): the capture function answers
// at once and never builds an inventory. Clips and frames whose upload
// was requested but whose object is not in the bucket when the customer
// finishes are rejected as never uploaded (the page finishes only after
// its uploads ended), so that the survey does not wait for them.
// Finishing a survey that is already processing writes the marker again
// (a retried finish whose first marker failed still settles) and answers
// its state; finishing a closed survey answers its state.
func (s *Service) Finish(ctx context.Context, ss *Session, now time.Time) (FinishView, error) {
	t, rec := ss.Tenant, ss.Record
	if rec.Status == survey.Processing {
		if err := s.objects.Touch(ctx, survey.FinishKey(t.PartnerID, string(t.Mode), rec.ID)); err != nil {
			return FinishView{}, err
		}
	}
	if !rec.Status.Open() {
		return s.finishView(ctx, t, rec.ID)
	}
	if ss.Expired {
		return FinishView{}, expired()
	}
	clips, err := s.store.ListClips(ctx, t, rec.ID)
	if err != nil {
		return FinishView{}, err
	}
	for _, c := range clips {
		if c.Status != survey.ClipAnnounced && c.Status != survey.ClipUploading {
			continue
		}
		key := survey.ObjectKey(t.PartnerID, string(t.Mode), rec.ID, c.ID)
		if _, found, err := s.objects.Size(ctx, key); err != nil {
			return FinishView{}, err
		} else if found {
			continue // the processor decides it
		}
		err := s.store.AdvanceClip(ctx, t, record.ClipTransition{
			SurveyID: rec.ID, ClipID: c.ID, From: c.Status, To: survey.ClipRejected, At: now,
			RejectCode: survey.NeverUploaded.Code, RejectReason: survey.NeverUploaded.Reason,
		})
		if err != nil && !errors.Is(err, record.ErrChanged) {
			return FinishView{}, err
		}
	}
	if err := s.rejectMissingFrames(ctx, t, rec.ID, now); err != nil {
		return FinishView{}, err
	}
	err = s.store.AdvanceSurvey(ctx, t, record.SurveyTransition{
		LeadID: rec.LeadID, SurveyID: rec.ID, From: rec.Status, To: survey.Processing, At: now,
	})
	if err != nil && !errors.Is(err, record.ErrChanged) {
		return FinishView{}, err
	}
	// The marker is written after the survey is processing, so the
	// processor settles it if every clip and frame is decided by then;
	// one decided later settles it when the processor decides it.
	if err := s.objects.Touch(ctx, survey.FinishKey(t.PartnerID, string(t.Mode), rec.ID)); err != nil {
		return FinishView{}, err
	}
	return s.finishView(ctx, t, rec.ID)
}

func (s *Service) finishView(ctx context.Context, t auth.Tenant, id string) (FinishView, error) {
	rec, err := s.store.GetSurvey(ctx, t, id)
	if err != nil {
		return FinishView{}, err
	}
	return FinishView{Status: string(rec.Status), Clips: rec.ClipCount}, nil
}

// Settle closes tenant t's survey id when it is processing and every clip
// is decided: inventory_ready, with the inventory built from its clips,
// frames (each analysed by the detector when it arrived) and checklist and
// the recommended estimate priced under the partner's rate card, or failed
// with the reason kept. A survey that would be inventory_ready waits for
// its frames still on their way (survey.Frame.Waiting), so that every
// frame's detections count; the processor settles it when the last one is
// decided. Anything else (still recording,
// a clip on its way, already closed) changes nothing. Settling twice, or
// concurrently, is harmless: the transition is conditioned on the survey
// still processing.
func (s *Service) Settle(ctx context.Context, t auth.Tenant, id string, now time.Time) error {
	rec, err := s.store.GetSurvey(ctx, t, id)
	if err != nil {
		return err
	}
	if rec.Status != survey.Processing {
		return nil
	}
	clips, err := s.store.ListClips(ctx, t, id)
	if err != nil {
		return err
	}
	sv := rec.Survey
	if moved, err := sv.Settle(clips, now); err != nil || !moved {
		return err
	}
	var frames []record.Frame
	if sv.Status == survey.InventoryReady {
		if frames, err = s.store.ListFrames(ctx, t, id); err != nil {
			return err
		}
		for _, f := range frames {
			if f.Waiting(now) {
				return nil
			}
		}
	}
	tr := record.SurveyTransition{LeadID: rec.LeadID, SurveyID: id, From: survey.Processing, To: sv.Status, At: now}
	switch sv.Status {
	case survey.Failed:
		tr.FailureReason = sv.FailureReason
	case survey.InventoryReady:
		inv, est, err := s.inventory(ctx, t, rec, clips, frames)
		if err != nil {
			return err
		}
		tr.Inventory, tr.Recommended = &inv, est
	}
	if tr.Events, err = webhook.SurveyEvents(string(t.Mode), rec.LeadID, id, tr.To, tr.Inventory, tr.Recommended, now); err != nil {
		return err
	}
	err = s.store.AdvanceSurvey(ctx, t, tr)
	if errors.Is(err, record.ErrChanged) {
		return nil // settled by another call
	}
	if err == nil {
		s.log.InfoContext(ctx, "survey settled", "partner_id", t.PartnerID, "mode", string(t.Mode),
			"survey_id", id, "lead_id", rec.LeadID, "status", string(sv.Status), "failure_reason", sv.FailureReason)
	}
	return err
}

// inventory builds a finished survey's inventory from its playable clips,
// their valid frames and the checklist, and prices it. The estimate is nil
// when the inventory holds nothing or the rate card cannot price it.
func (s *Service) inventory(ctx context.Context, t auth.Tenant, rec record.Survey, clips []survey.Clip, frames []record.Frame) (inventory.Inventory, *estimate.Estimate, error) {
	var playable []survey.Clip
	isPlayable := map[string]bool{}
	for _, c := range clips {
		if c.Status == survey.ClipPlayable {
			playable = append(playable, c)
			isPlayable[c.ID] = true
		}
	}
	var analysed []inventory.Frame
	for _, f := range frames {
		if f.Status == survey.FrameValid && isPlayable[f.ClipID] {
			analysed = append(analysed, inventory.Frame{ClipID: f.ClipID, Offset: f.Offset, Analysis: f.Analysis})
		}
	}
	inv, err := s.builder.Build(ctx, inventory.Input{Clips: playable, Frames: analysed, Checklist: rec.Checklist})
	if err != nil {
		return inventory.Inventory{}, nil, fmt.Errorf("build inventory of survey %s: %w", rec.ID, err)
	}
	l, err := s.store.GetLead(ctx, t, rec.LeadID)
	if err != nil {
		return inventory.Inventory{}, nil, err
	}
	partner, err := s.store.GetPartner(ctx, t.PartnerID)
	if err != nil {
		return inventory.Inventory{}, nil, err
	}
	r, ok := inventory.Recommend(partner.RateCard, inv, l.FromAddress, l.ToAddress)
	if !ok {
		return inv, nil, nil
	}
	return inv, &r.Estimate, nil
}

// Object is one created object of the clip bucket, as an S3 event names it.
type Object struct {
	Key  string
	Size int64
}

// ProcessClip validates the clip (or frame: processFrame) stored at
// obj.Key and records the verdict, then settles its survey if the customer
// has finished; a survey's finish marker (survey.FinishKey) settles it. It reads
// the container by ranges (memory does not grow with the clip): a clip is
// playable when it is MP4, MOV or WebM with an avc1, hvc1, vp8 or vp9 video
// track, a picture and a duration of at most 10 minutes, and its size is the
// size announced at upload; otherwise it is rejected with a reason kept for
// the operator, and does not count.
//
// S3 delivers events at least once and in any order: a clip already
// decided is not read again (its survey is still settled, in case an
// earlier delivery stopped before that), and a key that names no clip (a
// stray object) is ignored. It returns an error only for a failure worth
// retrying (storage unreachable).
func (s *Service) ProcessClip(ctx context.Context, obj Object, now time.Time) error {
	if partnerID, mode, surveyID, ok := survey.ParseFinishKey(obj.Key); ok {
		// The customer finished (Finish's marker): settle the survey if
		// its clips and frames allow.
		err := s.Settle(ctx, auth.Tenant{PartnerID: partnerID, Mode: auth.Mode(mode)}, surveyID, now)
		if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
			s.log.WarnContext(ctx, "finish marker names no survey", "key", obj.Key)
			return nil
		}
		return err
	}
	if partnerID, mode, surveyID, clipID, slot, err := survey.ParseFrameKey(obj.Key); err == nil {
		return s.processFrame(ctx, auth.Tenant{PartnerID: partnerID, Mode: auth.Mode(mode)}, surveyID, clipID, slot, obj, now)
	}
	partnerID, mode, surveyID, clipID, err := survey.ParseObjectKey(obj.Key)
	if err != nil {
		s.log.WarnContext(ctx, "object is not a clip", "key", obj.Key)
		return nil
	}
	t := auth.Tenant{PartnerID: partnerID, Mode: auth.Mode(mode)}
	c, err := s.store.GetClip(ctx, t, surveyID, clipID)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		s.log.WarnContext(ctx, "object names no announced clip", "key", obj.Key)
		return nil
	}
	if err != nil {
		return err
	}
	if !c.Status.Final() {
		if err := s.decide(ctx, t, surveyID, c, obj, now); err != nil {
			return err
		}
	}
	return s.Settle(ctx, t, surveyID, now)
}

// decide reads clip c's object and records whether it is playable.
func (s *Service) decide(ctx context.Context, t auth.Tenant, surveyID string, c survey.Clip, obj Object, now time.Time) error {
	size, found, err := s.objects.Size(ctx, obj.Key)
	if err != nil {
		return err
	}
	if !found {
		// Deleted since the event (a lifecycle rule, an operator): the
		// clip stays as it is; nothing to read.
		s.log.WarnContext(ctx, "clip object is gone", "key", obj.Key)
		return nil
	}
	tr := record.ClipTransition{SurveyID: surveyID, ClipID: c.ID, From: c.Status, At: now, Size: size}
	var info clip.Info
	var rj survey.Rejection
	switch {
	case size != c.AnnouncedSize:
		tr.To, rj = survey.ClipRejected, survey.SizeMismatch(size, c.AnnouncedSize)
	default:
		info, err = clip.Probe(s.objects.Open(ctx, obj.Key, size), size)
		if err == nil {
			err = clip.Check(info, clip.Rules{MaxDuration: survey.MaxClipDuration})
		}
		var unplayable bool
		switch rj, unplayable = survey.Unplayable(err); {
		case unplayable:
			tr.To = survey.ClipRejected
		case err != nil:
			return fmt.Errorf("read clip %s: %w", obj.Key, err)
		default:
			m := survey.Media{Container: string(info.Container), Codec: string(info.Codec), Size: size,
				Duration: info.Duration, Width: info.Width, Height: info.Height}
			tr.To, rj = survey.Inspect(c, m)
			tr.Duration, tr.Codec, tr.Width, tr.Height = info.Duration, codecName(info.Codec), info.Width, info.Height
		}
	}
	tr.RejectCode, tr.RejectReason = rj.Code, rj.Reason
	err = s.store.AdvanceClip(ctx, t, tr)
	if errors.Is(err, record.ErrChanged) {
		return nil // decided by another delivery
	}
	if err == nil {
		s.log.InfoContext(ctx, "clip decided", "key", obj.Key, "status", string(tr.To), "code", string(tr.RejectCode), "reason", tr.RejectReason,
			"duration_ms", tr.Duration.Milliseconds(), "codec", tr.Codec)
	}
	return err
}

// codecName is the survey's name for a codec the probe reports.
func codecName(c clip.Codec) string {
	if n, ok := survey.NormalizeCodec(string(c)); ok {
		return n
	}
	return string(c)
}
