package dynamo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// newFrames returns frames of clip clipID in slots, announced at at.
func newFrames(t testing.TB, clipID string, at time.Time, slots ...int) []survey.Frame {
	t.Helper()
	var fs []survey.Frame
	for _, slot := range slots {
		offset := time.Duration(slot)*survey.FrameInterval + 250*time.Millisecond
		f, err := survey.NewFrame(clipID, offset, 48_000+int64(slot), 640, 480, 0, at)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// slotRange returns the slots from 0 to n-1.
func slotRange(n int) []int {
	slots := make([]int, n)
	for i := range slots {
		slots[i] = i
	}
	return slots
}

// fillFrames stores n frames in survey id, survey.FramesPerClip per clip
// (clips fill_00, fill_01, …).
func fillFrames(t testing.TB, s *Store, id string, n int) {
	t.Helper()
	for i := 0; n > 0; i++ {
		k := min(n, survey.FramesPerClip)
		if err := s.PutFrames(context.Background(), surveyTenant, id, newFrames(t, fmt.Sprintf("fill_%02d", i), t0, slotRange(k)...)); err != nil {
			t.Fatalf("PutFrames of %d: %v", k, err)
		}
		n -= k
	}
}

// frameCount returns the frame count of tenant surveyTenant's survey id.
func frameCount(t testing.TB, s *Store, id string) int {
	t.Helper()
	rec, err := s.GetSurvey(context.Background(), surveyTenant, id)
	if err != nil {
		t.Fatalf("GetSurvey: %v", err)
	}
	return rec.FrameCount
}

// testAnalysis is a detector's finding with every field set.
var testAnalysis = inventory.Analysis{
	Detector: "rekognition",
	Detections: []inventory.Detection{
		{Label: "Couch", Parents: []string{"Furniture"}, Confidence: 0.9734211,
			Box: inventory.Box{Left: 0.125, Top: 0.3, Width: 0.5099999, Height: 1.0 / 3}},
		{Label: "Chair", Confidence: 0.51, Box: inventory.Box{Left: 0, Top: 0.001, Width: 0.2, Height: 0.25}},
	},
}

func TestPutFrames(t *testing.T) {
	ctx := context.Background()
	t.Run("at most MaxFrames", func(t *testing.T) {
		s, sv := clipSurvey(t)
		fillFrames(t, s, sv.ID, survey.MaxFrames-1)
		err := s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_b", t0, 0, 1))
		e := wantCode(t, err, errcode.ValidationFailed)
		fields, _ := e.Details["fields"].(map[string]any)
		if e.Details["max_frames"] != survey.MaxFrames || e.Details["frames_used"] != survey.MaxFrames-1 || fields["frames"] == nil {
			t.Errorf("details = %v; want fields.frames, max_frames %d, frames_used %d", e.Details, survey.MaxFrames, survey.MaxFrames-1)
		}
		_, err = s.GetFrame(ctx, surveyTenant, sv.ID, "clip_b", 0)
		wantCode(t, err, errcode.NotFound)
		if n := frameCount(t, s, sv.ID); n != survey.MaxFrames-1 {
			t.Errorf("frame count %d after the refusal; want %d", n, survey.MaxFrames-1)
		}
		if err := s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_b", t0, 0)); err != nil {
			t.Fatalf("PutFrames of the last frame: %v", err)
		}
		e = wantCode(t, s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_b", t0, 1)), errcode.ValidationFailed)
		if e.Details["frames_used"] != survey.MaxFrames {
			t.Errorf("details = %v; want frames_used %d", e.Details, survey.MaxFrames)
		}
		if n := frameCount(t, s, sv.ID); n != survey.MaxFrames {
			t.Errorf("frame count %d; want %d", n, survey.MaxFrames)
		}
	})
	t.Run("MaxFramesPerRequest in one request", func(t *testing.T) {
		s, sv := clipSurvey(t)
		if err := s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_a", t0, slotRange(survey.MaxFramesPerRequest)...)); err != nil {
			t.Fatalf("PutFrames of %d: %v", survey.MaxFramesPerRequest, err)
		}
		frames, err := s.ListFrames(ctx, surveyTenant, sv.ID)
		if err != nil || len(frames) != survey.MaxFramesPerRequest || frameCount(t, s, sv.ID) != survey.MaxFramesPerRequest {
			t.Errorf("%d frames listed (%v), count %d; want %d", len(frames), err, frameCount(t, s, sv.ID), survey.MaxFramesPerRequest)
		}
	})
	t.Run("at most FramesPerClip per clip", func(t *testing.T) {
		s, sv := clipSurvey(t)
		if err := s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_a", t0, slotRange(survey.FramesPerClip-2)...)); err != nil {
			t.Fatal(err)
		}
		// Concurrent announcements of one clip's other slots: never more
		// than FramesPerClip in all.
		const tries = 6
		errs := make([]error, tries)
		var wg sync.WaitGroup
		for i := range tries {
			wg.Go(func() {
				frames := newFrames(t, "clip_a", t0, 100+i)
				for range 50 {
					if errs[i] = s.PutFrames(ctx, surveyTenant, sv.ID, frames); !errors.Is(errs[i], ErrChanged) {
						return
					}
				}
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			e := wantCode(t, err, errcode.ValidationFailed)
			if e.Details["max_frames_per_clip"] != survey.FramesPerClip || e.Details["clip_frames_used"] != survey.FramesPerClip || e.Details["clip_id"] != "clip_a" {
				t.Errorf("details = %v; want max_frames_per_clip %d, clip_frames_used %d, clip_id clip_a", e.Details, survey.FramesPerClip, survey.FramesPerClip)
			}
		}
		frames, err := s.ListFrames(ctx, surveyTenant, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ok != 2 || len(frames) != survey.FramesPerClip || frameCount(t, s, sv.ID) != survey.FramesPerClip {
			t.Errorf("%d announcements stored, %d frames, count %d; want 2, %d, %d", ok, len(frames), frameCount(t, s, sv.ID), survey.FramesPerClip, survey.FramesPerClip)
		}
		// Another clip still takes frames.
		if err := s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_b", t0, slotRange(survey.FramesPerClip)...)); err != nil {
			t.Errorf("PutFrames of another clip: %v", err)
		}
	})
	t.Run("survey stored before frames", func(t *testing.T) {
		s, sv := clipSurvey(t)
		pk, sk := surveyKey(surveyTenant, sv.ID)
		remove := "REMOVE frame_count"
		if _, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: keyAV(pk, sk), UpdateExpression: &remove}); err != nil {
			t.Fatal(err)
		}
		if _, ok := rawItem(t, s, pk, sk)["frame_count"]; ok {
			t.Fatal("frame_count still stored")
		}
		if err := s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_a", t0, 0, 1, 2)); err != nil {
			t.Fatalf("PutFrames: %v", err)
		}
		if n := frameCount(t, s, sv.ID); n != 3 {
			t.Errorf("frame count %d; want 3", n)
		}
	})
	t.Run("concurrent announcements never pass the limit", func(t *testing.T) {
		s, sv := clipSurvey(t)
		const used, each, tries = survey.MaxFrames - 10, 3, 8
		fillFrames(t, s, sv.ID, used)
		errs := make([]error, tries)
		var wg sync.WaitGroup
		for i := range tries {
			// As a caller would, try again while the survey changed.
			wg.Go(func() {
				frames := newFrames(t, fmt.Sprintf("clip_%02d", i), t0, slotRange(each)...)
				for range 50 {
					if errs[i] = s.PutFrames(ctx, surveyTenant, sv.ID, frames); !errors.Is(errs[i], ErrChanged) {
						return
					}
				}
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if e := errcode.As(err); e == nil || e.Code != errcode.ValidationFailed {
				t.Errorf("PutFrames error %v; want validation_failed", err)
			}
		}
		frames, err := s.ListFrames(ctx, surveyTenant, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		n := frameCount(t, s, sv.ID)
		const fit = (survey.MaxFrames - used) / each
		if want := used + ok*each; ok != fit || len(frames) != want || n != want {
			t.Errorf("%d announcements stored, %d frames listed, frame count %d; want %d stored, %d frames, at most %d",
				ok, len(frames), n, fit, used+fit*each, survey.MaxFrames)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		s, sv := clipSurvey(t)
		if err := s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_1", t0, 0, 1)); err != nil {
			t.Fatal(err)
		}
		wantCause(t, s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_1", t0, 2, 1)), errcode.Conflict, ErrFrameExists)
		_, err := s.GetFrame(ctx, surveyTenant, sv.ID, "clip_1", 2)
		wantCode(t, err, errcode.NotFound)
		wantCode(t, s.PutFrames(ctx, surveyTenant, "srv_unknown", newFrames(t, "clip_1", t0, 3)), errcode.NotFound)
		wantCode(t, s.PutFrames(ctx, auth.Tenant{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}, sv.ID, newFrames(t, "clip_1", t0, 3)), errcode.NotFound)
		advanceAll(t, s, surveyTenant, sv, survey.Processing, t0.Add(time.Minute))
		wantCause(t, s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_1", t0, 3)), errcode.SurveyClosed, survey.ErrClosed)
		_, err = s.GetFrame(ctx, surveyTenant, sv.ID, "clip_1", 3)
		wantCode(t, err, errcode.NotFound)
		if n := frameCount(t, s, sv.ID); n != 2 {
			t.Errorf("frame count %d after the refusals; want 2", n)
		}
	})
	t.Run("arguments no caller may pass", func(t *testing.T) {
		s, sv := clipSurvey(t)
		valid := newFrames(t, "clip_1", t0, 0)
		valid[0].Status = survey.FrameValid
		tests := []struct {
			name   string
			frames []survey.Frame
		}{
			{"none", nil},
			{"too many", newFrames(t, "clip_1", t0, slotRange(survey.MaxFramesPerRequest+1)...)},
			{"two clips", append(newFrames(t, "clip_1", t0, 0), newFrames(t, "clip_2", t0, 1)...)},
			{"a slot twice", newFrames(t, "clip_1", t0, 4, 5, 4)},
			{"not announced", valid},
		}
		rec := &calls{}
		counted := New(newClient(t, rec.install), s.table)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := counted.PutFrames(ctx, surveyTenant, sv.ID, tt.frames)
				if err == nil || errcode.As(err) != nil {
					t.Errorf("PutFrames = %v; want a plain error", err)
				}
			})
		}
		if ops, _ := rec.taken(); len(ops) != 0 {
			t.Errorf("calls = %v; want none", ops)
		}
	})
}

func TestGetAndListFrames(t *testing.T) {
	ctx := context.Background()
	s, sv := clipSurvey(t)
	if err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_b", t0)); err != nil {
		t.Fatal(err)
	}
	// Announced out of order: the listing goes by clip id, then slot.
	b := newFrames(t, "clip_b", t0, 12, 3)
	a := newFrames(t, "clip_a", t0.Add(time.Second), 1, 0)
	for _, fs := range [][]survey.Frame{b, a} {
		if err := s.PutFrames(ctx, surveyTenant, sv.ID, fs); err != nil {
			t.Fatal(err)
		}
	}
	validated := record.FrameTransition{SurveyID: sv.ID, ClipID: "clip_b", Slot: 12,
		From: survey.FrameAnnounced, To: survey.FrameValid, At: t0.Add(time.Minute), Analysis: testAnalysis}
	if err := s.AdvanceFrame(ctx, surveyTenant, validated); err != nil {
		t.Fatal(err)
	}
	want := []record.Frame{{Frame: a[1]}, {Frame: a[0]}, {Frame: b[1]}, {Frame: b[0], Analysis: testAnalysis}}
	want[3].Status, want[3].UpdatedAt = survey.FrameValid, validated.At

	rec := &calls{}
	counted := New(newClient(t, rec.install), s.table)
	got, err := counted.ListFrames(ctx, surveyTenant, sv.ID)
	if err != nil {
		t.Fatalf("ListFrames: %v", err)
	}
	if !equalFrames(got, want) {
		t.Errorf("ListFrames = %+v; want %+v", got, want)
	}
	if ops, _ := rec.taken(); !reflect.DeepEqual(ops, []string{"Query"}) {
		t.Errorf("ListFrames calls = %v; want one Query", ops)
	}
	f, err := s.GetFrame(ctx, surveyTenant, sv.ID, "clip_b", 12)
	if err != nil || !equalFrames([]record.Frame{f}, want[3:]) {
		t.Errorf("GetFrame = %+v, %v; want %+v", f, err, want[3])
	}
	pk, sk := frameKey(surveyTenant, sv.ID, "clip_a", 0)
	if item := rawItem(t, s, pk, sk); item == nil || item["analysis"] != nil {
		t.Errorf("announced frame item = %v; want one without an analysis attribute", item)
	}

	clips, err := s.ListClips(ctx, surveyTenant, sv.ID)
	if err != nil || len(clips) != 1 || clips[0].ID != "clip_b" {
		t.Errorf("ListClips = %+v, %v; want clip_b alone", clips, err)
	}
	otherTenant := auth.Tenant{PartnerID: "ptn_other", Mode: auth.Test}
	_, err = s.GetFrame(ctx, otherTenant, sv.ID, "clip_b", 12)
	wantCode(t, err, errcode.NotFound)
	if got, err := s.ListFrames(ctx, otherTenant, sv.ID); err != nil || got == nil || len(got) != 0 {
		t.Errorf("ListFrames of another tenant = %v, %v; want none", got, err)
	}
}

// equalFrames compares frame records, times by instant.
func equalFrames(a, b []record.Frame) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !x.AnnouncedAt.Equal(y.AnnouncedAt) || !x.UpdatedAt.Equal(y.UpdatedAt) {
			return false
		}
		x.AnnouncedAt, x.UpdatedAt, y.AnnouncedAt, y.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func TestAdvanceFrame(t *testing.T) {
	ctx := context.Background()
	s, sv := clipSurvey(t)
	if err := s.PutFrames(ctx, surveyTenant, sv.ID, newFrames(t, "clip_1", t0, 0, 1)); err != nil {
		t.Fatal(err)
	}
	step := func(slot int, from, to survey.FrameStatus, at time.Time) record.FrameTransition {
		return record.FrameTransition{SurveyID: sv.ID, ClipID: "clip_1", Slot: slot, From: from, To: to, At: at}
	}
	valid := step(0, survey.FrameAnnounced, survey.FrameValid, t0.Add(time.Minute))
	valid.Analysis = testAnalysis
	rejected := step(1, survey.FrameAnnounced, survey.FrameRejected, t0.Add(2*time.Minute))
	rejected.RejectReason = "not a JPEG image"
	rejected.Analysis = testAnalysis // a rejected frame keeps none
	rec := &calls{}
	counted := New(newClient(t, rec.install), s.table)
	tests := []struct {
		name  string
		tr    record.FrameTransition
		code  errcode.Code
		cause error
	}{
		{"validated", valid, "", nil},
		{"duplicate S3 event", valid, errcode.Conflict, ErrChanged},
		{"late rejection", step(0, survey.FrameAnnounced, survey.FrameRejected, t0.Add(3*time.Minute)), errcode.Conflict, ErrChanged},
		{"backwards", step(0, survey.FrameValid, survey.FrameAnnounced, t0.Add(3*time.Minute)), "", ErrBadTransition},
		{"out of a final state", step(0, survey.FrameValid, survey.FrameRejected, t0.Add(3*time.Minute)), "", ErrBadTransition},
		{"nowhere", step(1, survey.FrameAnnounced, survey.FrameAnnounced, t0.Add(3*time.Minute)), "", ErrBadTransition},
		{"unknown status", step(1, survey.FrameAnnounced, "processed", t0.Add(3*time.Minute)), "", ErrBadTransition},
		{"rejected", rejected, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := s.GetFrame(ctx, surveyTenant, sv.ID, "clip_1", tt.tr.Slot)
			if err != nil {
				t.Fatal(err)
			}
			rec.reset()
			err = counted.AdvanceFrame(ctx, surveyTenant, tt.tr)
			after, _ := s.GetFrame(ctx, surveyTenant, sv.ID, "clip_1", tt.tr.Slot)
			switch {
			case tt.cause == nil && err != nil:
				t.Fatalf("AdvanceFrame = %v; want nil", err)
			case tt.cause == nil:
				if after.Status != tt.tr.To || !after.UpdatedAt.Equal(tt.tr.At) || after.RejectReason != tt.tr.RejectReason {
					t.Errorf("frame status %s updated_at %s reason %q; want %s, %s, %q", after.Status, after.UpdatedAt, after.RejectReason, tt.tr.To, tt.tr.At, tt.tr.RejectReason)
				}
			case tt.code != "":
				wantCause(t, err, tt.code, tt.cause)
				fallthrough
			default:
				if !errors.Is(err, tt.cause) {
					t.Errorf("AdvanceFrame = %v; want %v", err, tt.cause)
				}
				if !equalFrames([]record.Frame{after}, []record.Frame{before}) {
					t.Errorf("frame changed to %+v; want %+v", after, before)
				}
				if ops, _ := rec.taken(); errors.Is(tt.cause, ErrBadTransition) && len(ops) != 0 {
					t.Errorf("calls = %v; want none for a bad transition", ops)
				}
			}
		})
	}
	if got, _ := s.GetFrame(ctx, surveyTenant, sv.ID, "clip_1", 0); !reflect.DeepEqual(got.Analysis, testAnalysis) {
		t.Errorf("valid frame's analysis = %+v; want %+v", got.Analysis, testAnalysis)
	}
	if got, _ := s.GetFrame(ctx, surveyTenant, sv.ID, "clip_1", 1); !reflect.DeepEqual(got.Analysis, inventory.Analysis{}) {
		t.Errorf("rejected frame's analysis = %+v; want none", got.Analysis)
	}
	wantCode(t, s.AdvanceFrame(ctx, surveyTenant, step(2, survey.FrameAnnounced, survey.FrameValid, t0)), errcode.NotFound)
	wantCode(t, s.AdvanceFrame(ctx, auth.Tenant{PartnerID: "ptn_other", Mode: auth.Test}, step(0, survey.FrameAnnounced, survey.FrameValid, t0)), errcode.NotFound)
	if r, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); r.FrameCount != 2 || r.Status != survey.Invited || !r.UpdatedAt.Equal(t0) {
		t.Errorf("survey %s, %d frames, updated_at %s; want untouched by frame transitions", r.Status, r.FrameCount, r.UpdatedAt)
	}
}
