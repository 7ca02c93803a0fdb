package dynamo

import (
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
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// clipItem is one clip of a survey, in the survey's partition.
type clipItem struct {
	PK            string `dynamodbav:"pk"`
	SK            string `dynamodbav:"sk"`
	Type          string `dynamodbav:"type"`
	SurveyID      string `dynamodbav:"survey_id"`
	ClipID        string `dynamodbav:"clip_id"`
	Room          string `dynamodbav:"room"`
	Status        string `dynamodbav:"status"`
	AnnouncedSize int64  `dynamodbav:"announced_size"`
	ContentType   string `dynamodbav:"content_type"`
	AnnouncedAt   string `dynamodbav:"announced_at"`
	UpdatedAt     string `dynamodbav:"updated_at"`
	Size          int64  `dynamodbav:"size,omitempty"`
	DurationNS    int64  `dynamodbav:"duration_ns,omitempty"`
	Codec         string `dynamodbav:"codec,omitempty"`
	Width         int    `dynamodbav:"width,omitempty"`
	Height        int    `dynamodbav:"height,omitempty"`
	RejectReason  string `dynamodbav:"reject_reason,omitempty"`
	RejectCode    string `dynamodbav:"reject_code,omitempty"` // absent on clips rejected before codes
}

func newClipItem(t auth.Tenant, surveyID string, c survey.Clip) clipItem {
	pk, sk := clipKey(t, surveyID, c.ID)
	return clipItem{
		PK: pk, SK: sk, Type: "clip", SurveyID: surveyID, ClipID: c.ID, Room: c.Room, Status: string(c.Status),
		AnnouncedSize: c.AnnouncedSize, ContentType: c.ContentType,
		AnnouncedAt: lead.FormatTime(c.AnnouncedAt), UpdatedAt: lead.FormatTime(c.UpdatedAt),
		Size: c.Size, DurationNS: int64(c.Duration), Codec: c.Codec, Width: c.Width, Height: c.Height,
		RejectReason: c.RejectReason, RejectCode: string(c.RejectCode),
	}
}

// clip returns the stored clip; a stored time that does not parse is an
// error naming the item.
func (it clipItem) clip() (survey.Clip, error) {
	announced, err := parseTime(it.PK+" "+it.SK, "announced_at", it.AnnouncedAt)
	if err != nil {
		return survey.Clip{}, err
	}
	updated, err := parseTime(it.PK+" "+it.SK, "updated_at", it.UpdatedAt)
	if err != nil {
		return survey.Clip{}, err
	}
	return survey.Clip{
		ID: it.ClipID, Room: it.Room, Status: survey.ClipStatus(it.Status), AnnouncedSize: it.AnnouncedSize,
		ContentType: it.ContentType, AnnouncedAt: announced, UpdatedAt: updated,
		Size: it.Size, Duration: time.Duration(it.DurationNS), Codec: it.Codec, Width: it.Width, Height: it.Height,
		RejectReason: it.RejectReason, RejectCode: survey.RejectCode(it.RejectCode),
	}, nil
}

// ErrClipExists is the cause of PutClip's conflict error for a clip id the
// survey already has.
var ErrClipExists = record.ErrClipExists

// PutClip stores c (from survey.NewClip) as a new clip of tenant t's survey
// surveyID, in one TransactWriteItems: the clip (never overwriting) and the
// survey's clip count and upload count, incremented under the condition
// that the survey is open (invited or recording), holds fewer than
// survey.MaxClips clips that count and has taken fewer than
// survey.MaxClipUploads uploads, so concurrent uploads never push it past
// the limits. It does not move the
// survey to recording: that is AdvanceSurvey's.
//
// Errors: unknown survey (or another tenant's) → not_found; a full survey →
// validation_failed with details.fields.clips and details.max_clips, as
// survey.NewClip reports it (survey.UploadsUsedUp past MaxClipUploads); a finished survey → conflict wrapping
// survey.ErrClosed; a clip id the survey already has → conflict wrapping
// ErrClipExists; a concurrent transaction → conflict wrapping ErrChanged;
// any other failure → upstream_failed. On every error nothing was written.
func (s *Store) PutClip(ctx context.Context, t auth.Tenant, surveyID string, c survey.Clip) error {
	put, err := s.putNew(newClipItem(t, surveyID, c))
	if err != nil {
		return fmt.Errorf("put clip %s: %w", c.ID, err)
	}
	count, uploads := expression.Name("clip_count"), expression.Name("clip_uploads")
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(count, count.Plus(expression.Value(1))).
			Set(uploads, expression.Plus(expression.IfNotExists(uploads, expression.Value(0)), expression.Value(1)))).
		WithCondition(surveyOpen().And(count.LessThan(expression.Value(survey.MaxClips))).
			And(expression.Or(expression.AttributeNotExists(uploads), uploads.LessThan(expression.Value(survey.MaxClipUploads))))).Build()
	if err != nil {
		return fmt.Errorf("build clip count update: %w", err)
	}
	pk, sk := surveyKey(t, surveyID)
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{put, s.update(pk, sk, expr)}, ReturnConsumedCapacity: capacity,
	})
	if err == nil {
		return nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(1); failed {
		var cur struct {
			surveyItem
			ClipUploads int `dynamodbav:"clip_uploads"`
		}
		if len(old) > 0 {
			if err := attributevalue.UnmarshalMap(old, &cur); err != nil {
				return fmt.Errorf("unmarshal survey %s: %w", surveyID, err)
			}
		}
		if len(old) > 0 && survey.Status(cur.Status).Open() && cur.ClipCount >= survey.MaxClips {
			_, full := survey.NewClip(c.ID, c.Room, c.AnnouncedSize, c.ContentType, cur.ClipCount, c.AnnouncedAt)
			return full
		}
		if len(old) > 0 && survey.Status(cur.Status).Open() && cur.ClipUploads >= survey.MaxClipUploads {
			return survey.UploadsUsedUp(cur.ClipUploads)
		}
		return surveyCondFailed(surveyID, old, survey.Status.Open)
	}
	if failed, _ := tx.failedAt(0); failed {
		e := errcode.New(errcode.Conflict, "The survey already has a clip with id %s; nothing was written.", c.ID)
		e.Cause = fmt.Errorf("clip %s: %w", c.ID, ErrClipExists)
		return e
	}
	return tx.otherwise("survey", "put clip")
}

// GetClip returns clip clipID of tenant t's survey surveyID (strongly
// consistent), or not_found (also for another tenant's). A failed read is
// upstream_failed.
func (s *Store) GetClip(ctx context.Context, t auth.Tenant, surveyID, clipID string) (survey.Clip, error) {
	pk, sk := clipKey(t, surveyID, clipID)
	var it clipItem
	if err := s.getItem(ctx, pk, sk, "clip", &it); err != nil {
		return survey.Clip{}, err
	}
	return it.clip()
}

// ListClips returns every clip of tenant t's survey surveyID, in the order
// they were announced (then by id), from one strongly consistent Query of
// the survey's partition (survey.MaxClips small clips never fill the 1 MB
// page; a longer answer would still be read to the end). A survey that does
// not exist, or another tenant's, has no clips: the answer is empty, not
// not_found. A failed query is upstream_failed.
func (s *Store) ListClips(ctx context.Context, t auth.Tenant, surveyID string) ([]survey.Clip, error) {
	return queryPartition(ctx, s, t, surveyID, clipSKPrefix, "clips", clipItem.clip,
		func(a, b survey.Clip) int { return a.AnnouncedAt.Compare(b.AnnouncedAt) })
}

// AdvanceClip moves a clip of tenant t along ct in one UpdateItem,
// conditioned on the clip's status still being ct.From: S3 delivers
// object-created events at least once, so a duplicate or late event finds
// the clip moved and changes nothing. A clip's transition is not the
// survey's: the survey's state and the lead are untouched, but a rejected
// clip gives its place back (the survey's clip count drops by one, in the
// same transaction), so it does not count against survey.MaxClips.
//
// Errors: a transition survey.AdvanceClip would not make → an error
// wrapping ErrBadTransition, before any write; unknown clip (or another
// tenant's) → not_found; a clip no longer in ct.From → conflict wrapping
// ErrChanged; any other failure → upstream_failed.
func (s *Store) AdvanceClip(ctx context.Context, t auth.Tenant, ct record.ClipTransition) error {
	if next, moved, err := survey.AdvanceClip(ct.From, ct.To); err != nil || !moved || next != ct.To {
		return fmt.Errorf("advance clip %s from %q to %q: %w (%v)", ct.ClipID, ct.From, ct.To, ErrBadTransition, err)
	}
	status := expression.Name("status")
	upd := expression.Set(status, expression.Value(string(ct.To))).
		Set(expression.Name("updated_at"), expression.Value(lead.FormatTime(ct.At)))
	for _, f := range []struct {
		name string
		v    any
		set  bool
	}{
		{"size", ct.Size, ct.Size != 0}, {"duration_ns", int64(ct.Duration), ct.Duration != 0},
		{"codec", ct.Codec, ct.Codec != ""}, {"width", ct.Width, ct.Width != 0}, {"height", ct.Height, ct.Height != 0},
		{"reject_reason", ct.RejectReason, ct.RejectReason != ""},
		{"reject_code", string(ct.RejectCode), ct.RejectCode != ""},
	} {
		if f.set {
			upd = upd.Set(expression.Name(f.name), expression.Value(f.v))
		}
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(
		expression.AttributeExists(expression.Name(table.PK)).And(status.Equal(expression.Value(string(ct.From))))).Build()
	if err != nil {
		return fmt.Errorf("build clip transition: %w", err)
	}
	pk, sk := clipKey(t, ct.SurveyID, ct.ClipID)
	if ct.To == survey.ClipRejected {
		if done, err := s.rejectClip(ctx, t, ct, pk, sk, expr); done || err != nil {
			return err
		}
	}
	failed, old, err := s.updateIf(ctx, pk, sk, expr)
	switch {
	case failed && len(old) == 0:
		return notFound("clip")
	case failed:
		return changed("clip")
	case err != nil:
		return upstream("advance clip", err)
	}
	return nil
}

// rejectClip applies clip update expr and gives the clip's place back in
// one transaction. done is false, with nothing written, when the survey's
// count is already 0 (nothing to give back): the caller updates the clip
// alone.
func (s *Store) rejectClip(ctx context.Context, t auth.Tenant, ct record.ClipTransition, pk, sk string, expr expression.Expression) (done bool, err error) {
	count := expression.Name("clip_count")
	give, err := expression.NewBuilder().WithUpdate(expression.Set(count, count.Minus(expression.Value(1)))).
		WithCondition(count.GreaterThan(expression.Value(0))).Build()
	if err != nil {
		return false, fmt.Errorf("build clip count release: %w", err)
	}
	spk, ssk := surveyKey(t, ct.SurveyID)
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{s.update(pk, sk, expr), s.update(spk, ssk, give)}, ReturnConsumedCapacity: capacity,
	})
	if err == nil {
		return true, nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(0); failed {
		if len(old) == 0 {
			return true, notFound("clip")
		}
		return true, changed("clip")
	}
	if failed, _ := tx.failedAt(1); failed {
		return false, nil
	}
	return true, tx.otherwise("clip", "advance clip")
}
