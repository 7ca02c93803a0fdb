package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// frameItem is one frame of a survey, in the survey's partition beside its
// clip. The offset is kept in whole milliseconds, as the capture page
// announces it (offset_ms).
type frameItem struct {
	PK            string              `dynamodbav:"pk"`
	SK            string              `dynamodbav:"sk"`
	Type          string              `dynamodbav:"type"`
	SurveyID      string              `dynamodbav:"survey_id"`
	ClipID        string              `dynamodbav:"clip_id"`
	Slot          int                 `dynamodbav:"slot"`
	OffsetMS      int64               `dynamodbav:"offset_ms"`
	AnnouncedSize int64               `dynamodbav:"size"`
	Width         int                 `dynamodbav:"width"`
	Height        int                 `dynamodbav:"height"`
	Status        string              `dynamodbav:"status"`
	AnnouncedAt   string              `dynamodbav:"announced_at"`
	UpdatedAt     string              `dynamodbav:"updated_at"`
	RejectReason  string              `dynamodbav:"reject_reason,omitempty"`
	Analysis      *inventory.Analysis `dynamodbav:"analysis,omitempty"`
}

// attrFrameCount is the survey's count of announced frames.
const attrFrameCount = "frame_count"

// clipFramesAttr names the survey item's count of clip clipID's announced
// frames: one top-level attribute per clip (at most survey.MaxClips), so
// the survey's own update can condition on it.
func clipFramesAttr(clipID string) string { return "frames_of_" + clipID }

func newFrameItem(t auth.Tenant, surveyID string, f record.Frame) frameItem {
	pk, sk := frameKey(t, surveyID, f.ClipID, f.Slot)
	it := frameItem{
		PK: pk, SK: sk, Type: "frame", SurveyID: surveyID, ClipID: f.ClipID, Slot: f.Slot,
		OffsetMS: f.Offset.Milliseconds(), AnnouncedSize: f.AnnouncedSize, Width: f.Width, Height: f.Height,
		Status: string(f.Status), AnnouncedAt: lead.FormatTime(f.AnnouncedAt), UpdatedAt: lead.FormatTime(f.UpdatedAt),
		RejectReason: f.RejectReason,
	}
	if !analysisEmpty(f.Analysis) {
		it.Analysis = &f.Analysis
	}
	return it
}

// analysisEmpty reports whether a says nothing: no detector looked, so
// the frame item carries no analysis attribute.
func analysisEmpty(a inventory.Analysis) bool {
	return a.Detector == "" && len(a.Detections) == 0 && a.Error == ""
}

// record returns the stored frame; a stored time that does not parse is an
// error naming the item.
func (it frameItem) record() (record.Frame, error) {
	announced, err := parseTime(it.PK+" "+it.SK, "announced_at", it.AnnouncedAt)
	if err != nil {
		return record.Frame{}, err
	}
	updated, err := parseTime(it.PK+" "+it.SK, "updated_at", it.UpdatedAt)
	if err != nil {
		return record.Frame{}, err
	}
	rec := record.Frame{Frame: survey.Frame{
		ClipID: it.ClipID, Slot: it.Slot, Offset: time.Duration(it.OffsetMS) * time.Millisecond,
		AnnouncedSize: it.AnnouncedSize, Width: it.Width, Height: it.Height, Status: survey.FrameStatus(it.Status),
		RejectReason: it.RejectReason, AnnouncedAt: announced, UpdatedAt: updated,
	}}
	if it.Analysis != nil {
		rec.Analysis = *it.Analysis
	}
	return rec, nil
}

// ErrFrameExists is the cause of PutFrames' conflict error for a frame
// (clip and slot) the survey already has.
var ErrFrameExists = record.ErrFrameExists

// checkFrames rejects a PutFrames argument its caller should never pass:
// frames come from survey.NewFrame through a handler that enforces these
// limits for the client, so a breach here is a programmer error, not a
// client's.
func checkFrames(frames []survey.Frame) error {
	if len(frames) == 0 || len(frames) > survey.MaxFramesPerRequest {
		return fmt.Errorf("put frames: %d frames; want 1 to %d", len(frames), survey.MaxFramesPerRequest)
	}
	slots := make(map[int]bool, len(frames))
	for _, f := range frames {
		switch {
		case f.ClipID != frames[0].ClipID:
			return fmt.Errorf("put frames: frames of clips %s and %s; want one clip", frames[0].ClipID, f.ClipID)
		case slots[f.Slot]:
			return fmt.Errorf("put frames: slot %d of clip %s twice", f.Slot, f.ClipID)
		case f.Status != survey.FrameAnnounced:
			return fmt.Errorf("put frames: frame %s#%d is %q; want %q", f.ClipID, f.Slot, f.Status, survey.FrameAnnounced)
		}
		slots[f.Slot] = true
	}
	return nil
}

// framesFull is the validation_failed error for announcing n frames into a
// survey that holds used of survey.MaxFrames.
func framesFull(used, n int) error {
	return errcode.New(errcode.ValidationFailed,
		"A survey holds at most %d frames; this one has %d, so %d more do not fit.", survey.MaxFrames, used, n).
		WithDetail("fields", map[string]any{"frames": fmt.Sprintf("a survey holds at most %d frames", survey.MaxFrames)}).
		WithDetail("max_frames", survey.MaxFrames).
		WithDetail("frames_used", used)
}

// PutFrames stores frames (from survey.NewFrame, all of one clip, 1 to
// survey.MaxFramesPerRequest of them, distinct slots, all announced) as
// new frames of tenant t's survey surveyID, in one TransactWriteItems
// (at most 1 + MaxFramesPerRequest items, within DynamoDB's 100): the
// survey's frame count and its count of the clip's frames
// (clipFramesAttr), each incremented by len(frames) under the condition
// that the survey is open (invited or recording), the count stays at
// most survey.MaxFrames and the clip's at most survey.FramesPerClip, so
// concurrent announcements never push either past its limit; and each
// frame, never overwriting. A survey stored before frames has no frame
// count, and one stored before clips' counts none for the clip: each
// counts as 0. The clip is not checked: the caller announces frames of a
// clip it has just read.
//
// Errors: frames breaking the rules above → a plain error (a programmer
// error), before any write; unknown survey (or another tenant's) →
// not_found; the count would pass MaxFrames → validation_failed with
// details.fields.frames, details.max_frames and details.frames_used (the
// survey's count); the clip's would pass FramesPerClip →
// survey.CheckClipFrames' validation_failed; a finished survey → survey_closed wrapping
// survey.ErrClosed (as PutClip); a frame the survey already has →
// conflict wrapping ErrFrameExists; a concurrent transaction → conflict
// wrapping ErrChanged; any other failure → upstream_failed. On every error
// nothing was written.
func (s *Store) PutFrames(ctx context.Context, t auth.Tenant, surveyID string, frames []survey.Frame) error {
	if err := checkFrames(frames); err != nil {
		return err
	}
	n := len(frames)
	clipID := frames[0].ClipID
	count, perClip := expression.Name(attrFrameCount), expression.Name(clipFramesAttr(clipID))
	expr, err := expression.NewBuilder().
		WithUpdate(expression.
			Set(count, expression.Plus(expression.IfNotExists(count, expression.Value(0)), expression.Value(n))).
			Set(perClip, expression.Plus(expression.IfNotExists(perClip, expression.Value(0)), expression.Value(n)))).
		WithCondition(surveyOpen().
			And(expression.AttributeNotExists(count).Or(count.LessThanEqual(expression.Value(survey.MaxFrames - n)))).
			And(expression.AttributeNotExists(perClip).Or(perClip.LessThanEqual(expression.Value(survey.FramesPerClip - n))))).
		Build()
	if err != nil {
		return fmt.Errorf("build frame count update: %w", err)
	}
	pk, sk := surveyKey(t, surveyID)
	// The survey first: item i+1 is frames[i].
	items := []types.TransactWriteItem{s.update(pk, sk, expr)}
	for _, f := range frames {
		put, err := s.putNew(newFrameItem(t, surveyID, record.Frame{Frame: f}))
		if err != nil {
			return fmt.Errorf("put frame %s#%d: %w", f.ClipID, f.Slot, err)
		}
		items = append(items, put)
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: items, ReturnConsumedCapacity: capacity,
	})
	if err == nil {
		return nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(0); failed {
		var cur surveyItem
		if len(old) > 0 {
			if err := attributevalue.UnmarshalMap(old, &cur); err != nil {
				return fmt.Errorf("unmarshal survey %s: %w", surveyID, err)
			}
		}
		if len(old) > 0 && survey.Status(cur.Status).Open() && cur.FrameCount > survey.MaxFrames-n {
			return framesFull(cur.FrameCount, n)
		}
		var used int
		if av, ok := old[clipFramesAttr(clipID)]; ok && survey.Status(cur.Status).Open() {
			if err := attributevalue.Unmarshal(av, &used); err != nil {
				return fmt.Errorf("unmarshal frame count of clip %s: %w", clipID, err)
			}
			if err := survey.CheckClipFrames(clipID, used, n); err != nil {
				return err
			}
		}
		return surveyCondFailed(surveyID, old, survey.Status.Open)
	}
	for i, f := range frames {
		if failed, _ := tx.failedAt(i + 1); failed {
			e := errcode.New(errcode.Conflict, "The survey already has frame %d of clip %s; nothing was written.", f.Slot, f.ClipID)
			e.Cause = fmt.Errorf("frame %s#%d: %w", f.ClipID, f.Slot, ErrFrameExists)
			return e
		}
	}
	return tx.otherwise("survey", "put frames")
}

// GetFrame returns frame slot of clip clipID of tenant t's survey surveyID
// (strongly consistent), or not_found (also for another tenant's). A
// failed read is upstream_failed.
func (s *Store) GetFrame(ctx context.Context, t auth.Tenant, surveyID, clipID string, slot int) (record.Frame, error) {
	pk, sk := frameKey(t, surveyID, clipID, slot)
	var it frameItem
	if err := s.getItem(ctx, pk, sk, "frame", &it); err != nil {
		return record.Frame{}, err
	}
	return it.record()
}

// ListFrames returns every frame of tenant t's survey surveyID, by clip id
// (not the clips' announcement order) then slot, from one strongly
// consistent Query of the survey's partition (sort key begins_with
// FRAME#), read to its last page: survey.MaxFrames frames with their
// analyses may pass the 1 MB page. A survey that does not exist, or
// another tenant's, has no frames: the answer is empty, not not_found. A
// failed query is upstream_failed.
func (s *Store) ListFrames(ctx context.Context, t auth.Tenant, surveyID string) ([]record.Frame, error) {
	// The sort key already orders them so; sorting says it without relying
	// on how clip ids compare with '#'.
	return queryPartition(ctx, s, t, surveyID, frameSKPrefix, "frames", frameItem.record, func(a, b record.Frame) int {
		return cmp.Or(cmp.Compare(a.ClipID, b.ClipID), cmp.Compare(a.Slot, b.Slot))
	})
}

// AdvanceFrame moves a frame of tenant t along ft in one UpdateItem,
// conditioned on its status still being ft.From: S3 delivers
// object-created events at least once, so a duplicate or late event finds
// the frame moved and changes nothing. It sets the status and updated_at,
// reject_reason when ft has one, and the analysis when ft.To is
// survey.FrameValid and ft.Analysis says something. The survey and its
// frame count are untouched.
//
// Errors: a transition other than announced → valid | rejected → an error
// wrapping ErrBadTransition, before any write; unknown frame (or another
// tenant's) → not_found; a frame no longer in ft.From → conflict wrapping
// ErrChanged; any other failure → upstream_failed.
func (s *Store) AdvanceFrame(ctx context.Context, t auth.Tenant, ft record.FrameTransition) error {
	if ft.From != survey.FrameAnnounced || !ft.To.Final() {
		return fmt.Errorf("advance frame %s#%d from %q to %q: %w", ft.ClipID, ft.Slot, ft.From, ft.To, ErrBadTransition)
	}
	status := expression.Name("status")
	upd := expression.Set(status, expression.Value(string(ft.To))).
		Set(expression.Name("updated_at"), expression.Value(lead.FormatTime(ft.At)))
	if ft.RejectReason != "" {
		upd = upd.Set(expression.Name("reject_reason"), expression.Value(ft.RejectReason))
	}
	if ft.To == survey.FrameValid && !analysisEmpty(ft.Analysis) {
		upd = upd.Set(expression.Name("analysis"), expression.Value(ft.Analysis))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(
		expression.AttributeExists(expression.Name(table.PK)).And(status.Equal(expression.Value(string(ft.From))))).Build()
	if err != nil {
		return fmt.Errorf("build frame transition: %w", err)
	}
	pk, sk := frameKey(t, ft.SurveyID, ft.ClipID, ft.Slot)
	failed, old, err := s.updateIf(ctx, pk, sk, expr)
	switch {
	case failed && len(old) == 0:
		return notFound("frame")
	case failed:
		return changed("frame")
	case err != nil:
		return upstream("advance frame", err)
	}
	return nil
}
