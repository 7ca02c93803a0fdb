package dynamo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// newClip returns clip id announced at at.
func newClip(t testing.TB, id string, at time.Time) survey.Clip {
	t.Helper()
	c, err := survey.NewClip(id, "Kitchen", 5<<20, "video/webm;codecs=vp8,opus", 0, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// clipSurvey stores lead_1 of surveyTenant with a new survey.
func clipSurvey(t testing.TB) (*Store, survey.Survey) {
	t.Helper()
	s := newStore(t)
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
	return s, sv
}

func TestPutClip(t *testing.T) {
	ctx := context.Background()
	t.Run("at most MaxClips", func(t *testing.T) {
		s, sv := clipSurvey(t)
		for i := range survey.MaxClips {
			if err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, fmt.Sprintf("clip_%02d", i), t0)); err != nil {
				t.Fatalf("PutClip %d: %v", i+1, err)
			}
		}
		err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_21", t0))
		e := wantCode(t, err, errcode.ValidationFailed)
		if e.Details["max_clips"] != survey.MaxClips {
			t.Errorf("details = %v; want max_clips %d", e.Details, survey.MaxClips)
		}
		_, err = s.GetClip(ctx, surveyTenant, sv.ID, "clip_21")
		wantCode(t, err, errcode.NotFound)
		rec, err := s.GetSurvey(ctx, surveyTenant, sv.ID)
		if err != nil || rec.ClipCount != survey.MaxClips {
			t.Errorf("clip count %d, %v; want %d", rec.ClipCount, err, survey.MaxClips)
		}
	})
	t.Run("a rejected clip gives its place back", func(t *testing.T) {
		s, sv := clipSurvey(t)
		for i := range survey.MaxClips {
			if err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, fmt.Sprintf("clip_%02d", i), t0)); err != nil {
				t.Fatalf("PutClip %d: %v", i+1, err)
			}
		}
		err := s.AdvanceClip(ctx, surveyTenant, record.ClipTransition{SurveyID: sv.ID, ClipID: "clip_03",
			From: survey.ClipAnnounced, To: survey.ClipRejected, At: t0.Add(time.Minute), RejectReason: "never uploaded"})
		if err != nil {
			t.Fatal(err)
		}
		if rec, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); rec.ClipCount != survey.MaxClips-1 {
			t.Errorf("clip count %d after a rejection; want %d", rec.ClipCount, survey.MaxClips-1)
		}
		if err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_again", t0)); err != nil {
			t.Fatalf("PutClip after a rejection = %v; want the freed place", err)
		}
		wantCode(t, s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_over", t0)), errcode.ValidationFailed)
	})
	t.Run("at most MaxClipUploads, rejected ones included", func(t *testing.T) {
		s, sv := clipSurvey(t)
		for i := range survey.MaxClipUploads {
			id := fmt.Sprintf("clip_%02d", i)
			if err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, id, t0)); err != nil {
				t.Fatalf("PutClip %d: %v", i+1, err)
			}
			err := s.AdvanceClip(ctx, surveyTenant, record.ClipTransition{SurveyID: sv.ID, ClipID: id,
				From: survey.ClipAnnounced, To: survey.ClipRejected, At: t0, RejectReason: "never uploaded"})
			if err != nil {
				t.Fatal(err)
			}
		}
		e := wantCode(t, s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_over", t0)), errcode.ValidationFailed)
		if e.Details["max_clip_uploads"] != survey.MaxClipUploads {
			t.Errorf("details = %v; want max_clip_uploads %d", e.Details, survey.MaxClipUploads)
		}
		if rec, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); rec.ClipCount != 0 {
			t.Errorf("clip count %d; want 0 (every clip rejected)", rec.ClipCount)
		}
	})
	t.Run("concurrent uploads never pass the limit", func(t *testing.T) {
		s, sv := clipSurvey(t)
		const tries = survey.MaxClips + 5
		errs := make([]error, tries)
		var wg sync.WaitGroup
		for i := range tries {
			wg.Go(func() { errs[i] = s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, fmt.Sprintf("clip_%02d", i), t0)) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if e := errcode.As(err); e == nil || (e.Code != errcode.ValidationFailed && !errors.Is(err, ErrChanged)) {
				t.Errorf("PutClip error %v; want validation_failed or ErrChanged", err)
			}
		}
		clips, err := s.ListClips(ctx, surveyTenant, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := s.GetSurvey(ctx, surveyTenant, sv.ID)
		if ok > survey.MaxClips || len(clips) != ok || rec.ClipCount != ok {
			t.Errorf("%d stored, %d listed, clip count %d; want the same, at most %d", ok, len(clips), rec.ClipCount, survey.MaxClips)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		s, sv := clipSurvey(t)
		c := newClip(t, "clip_1", t0)
		if err := s.PutClip(ctx, surveyTenant, sv.ID, c); err != nil {
			t.Fatal(err)
		}
		wantCause(t, s.PutClip(ctx, surveyTenant, sv.ID, c), errcode.Conflict, ErrClipExists)
		wantCode(t, s.PutClip(ctx, surveyTenant, "srv_unknown", newClip(t, "clip_2", t0)), errcode.NotFound)
		wantCode(t, s.PutClip(ctx, auth.Tenant{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}, sv.ID, newClip(t, "clip_2", t0)), errcode.NotFound)
		advanceAll(t, s, surveyTenant, sv, survey.Processing, t0.Add(time.Minute))
		wantCause(t, s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_2", t0)), errcode.SurveyClosed, survey.ErrClosed)
		if rec, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); rec.ClipCount != 1 {
			t.Errorf("clip count %d after the refusals; want 1", rec.ClipCount)
		}
	})
}

func TestGetAndListClips(t *testing.T) {
	ctx := context.Background()
	s, sv := clipSurvey(t)
	// Announced out of id order: the listing follows the announcements.
	var want []survey.Clip
	for i, id := range []string{"clip_c", "clip_a", "clip_b"} {
		c := newClip(t, id, t0.Add(time.Duration(i)*time.Second))
		if err := s.PutClip(ctx, surveyTenant, sv.ID, c); err != nil {
			t.Fatal(err)
		}
		want = append(want, c)
	}
	rec := &calls{}
	counted := New(newClient(t, rec.install), s.table)
	got, err := counted.ListClips(ctx, surveyTenant, sv.ID)
	if err != nil {
		t.Fatalf("ListClips: %v", err)
	}
	if !equalClips(got, want) {
		t.Errorf("ListClips = %+v; want %+v", got, want)
	}
	if ops, _ := rec.taken(); !reflect.DeepEqual(ops, []string{"Query"}) {
		t.Errorf("ListClips calls = %v; want one Query", ops)
	}
	c, err := s.GetClip(ctx, surveyTenant, sv.ID, "clip_a")
	if err != nil || !equalClips([]survey.Clip{c}, want[1:2]) {
		t.Errorf("GetClip = %+v, %v; want %+v", c, err, want[1])
	}
	otherTenant := auth.Tenant{PartnerID: "ptn_other", Mode: auth.Test}
	_, err = s.GetClip(ctx, otherTenant, sv.ID, "clip_a")
	wantCode(t, err, errcode.NotFound)
	if got, err := s.ListClips(ctx, otherTenant, sv.ID); err != nil || len(got) != 0 {
		t.Errorf("ListClips of another tenant = %d clips, %v; want none", len(got), err)
	}
}

// equalClips compares clips, times by instant.
func equalClips(a, b []survey.Clip) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !x.AnnouncedAt.Equal(y.AnnouncedAt) || !x.UpdatedAt.Equal(y.UpdatedAt) {
			return false
		}
		x.AnnouncedAt, x.UpdatedAt, y.AnnouncedAt, y.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if x != y {
			return false
		}
	}
	return true
}

func TestAdvanceClip(t *testing.T) {
	ctx := context.Background()
	s, sv := clipSurvey(t)
	if err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_1", t0)); err != nil {
		t.Fatal(err)
	}
	step := func(from, to survey.ClipStatus, at time.Time) record.ClipTransition {
		return record.ClipTransition{SurveyID: sv.ID, ClipID: "clip_1", From: from, To: to, At: at}
	}
	playable := step(survey.ClipProcessing, survey.ClipPlayable, t0.Add(3*time.Minute))
	playable.Size, playable.Duration, playable.Codec, playable.Width, playable.Height = 5<<20, 12500*time.Millisecond, "vp8", 640, 480
	tests := []struct {
		name  string
		tr    record.ClipTransition
		code  errcode.Code
		cause error
	}{
		{"upload begins", step(survey.ClipAnnounced, survey.ClipUploading, t0.Add(time.Minute)), "", nil},
		{"object arrives", step(survey.ClipUploading, survey.ClipProcessing, t0.Add(2*time.Minute)), "", nil},
		{"duplicate S3 event", step(survey.ClipUploading, survey.ClipProcessing, t0.Add(4*time.Minute)), errcode.Conflict, ErrChanged},
		{"late upload report", step(survey.ClipAnnounced, survey.ClipUploading, t0.Add(4*time.Minute)), errcode.Conflict, ErrChanged},
		{"backwards", step(survey.ClipProcessing, survey.ClipUploading, t0.Add(4*time.Minute)), "", ErrBadTransition},
		{"accepted", playable, "", nil},
		{"replayed after acceptance", step(survey.ClipProcessing, survey.ClipRejected, t0.Add(5*time.Minute)), errcode.Conflict, ErrChanged},
		{"out of a final state", step(survey.ClipPlayable, survey.ClipRejected, t0.Add(5*time.Minute)), "", ErrBadTransition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := s.GetClip(ctx, surveyTenant, sv.ID, "clip_1")
			if err != nil {
				t.Fatal(err)
			}
			err = s.AdvanceClip(ctx, surveyTenant, tt.tr)
			after, _ := s.GetClip(ctx, surveyTenant, sv.ID, "clip_1")
			switch {
			case tt.cause == nil && err != nil:
				t.Fatalf("AdvanceClip = %v; want nil", err)
			case tt.cause == nil:
				if after.Status != tt.tr.To || !after.UpdatedAt.Equal(tt.tr.At) {
					t.Errorf("clip status %s updated_at %s; want %s, %s", after.Status, after.UpdatedAt, tt.tr.To, tt.tr.At)
				}
			case tt.code != "":
				wantCause(t, err, tt.code, tt.cause)
				fallthrough
			default:
				if !errors.Is(err, tt.cause) {
					t.Errorf("AdvanceClip = %v; want %v", err, tt.cause)
				}
				if !equalClips([]survey.Clip{after}, []survey.Clip{before}) {
					t.Errorf("clip changed to %+v; want %+v", after, before)
				}
			}
		})
	}
	got, _ := s.GetClip(ctx, surveyTenant, sv.ID, "clip_1")
	if got.Size != playable.Size || got.Duration != playable.Duration || got.Codec != "vp8" || got.Width != 640 || got.Height != 480 || got.RejectReason != "" {
		t.Errorf("processed clip = %+v; want the processor's findings of %+v", got, playable)
	}
	wantCode(t, s.AdvanceClip(ctx, surveyTenant, record.ClipTransition{SurveyID: sv.ID, ClipID: "clip_x",
		From: survey.ClipAnnounced, To: survey.ClipUploading, At: t0}), errcode.NotFound)
	if rec, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); rec.Status != survey.Invited || !rec.UpdatedAt.Equal(t0) {
		t.Errorf("survey %s updated_at %s; want untouched by clip transitions", rec.Status, rec.UpdatedAt)
	}
}
