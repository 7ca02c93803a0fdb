package survey_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/clip"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestCustomerReasonSaysWhatWentWrong checks each reason the processor
// and Inspect write gets its own plain sentence, never the operator's
// words.
func TestCustomerReasonSaysWhatWentWrong(t *testing.T) {
	c := survey.Clip{AnnouncedSize: 1000, ContentType: "video/webm"}
	inspect := func(m survey.Media) string { _, r := survey.Inspect(c, m); return r }
	ok := survey.Media{Container: "webm", Codec: "vp8", Size: 1000, Duration: time.Minute, Width: 640, Height: 360}
	with := func(f func(*survey.Media)) survey.Media { m := ok; f(&m); return m }
	for _, tc := range []struct{ reason, want string }{
		{"never uploaded", "The video never finished sending."},
		{inspect(with(func(m *survey.Media) { m.Size = 10 })), "Only part of the video arrived."},
		{inspect(with(func(m *survey.Media) { m.Container = "avi" })), "This is not a video we can play."},
		{inspect(with(func(m *survey.Media) { m.Container = "mp4" })), "This is not a video we can play."},
		{inspect(with(func(m *survey.Media) { m.Codec = "theora" })), "The video is in a format we can’t play."},
		{inspect(with(func(m *survey.Media) { m.Width = 0 })), "The video has no picture."},
		{inspect(with(func(m *survey.Media) { m.Duration = 0 })), "The video is empty: it has no length."},
		{inspect(with(func(m *survey.Media) { m.Duration = 11 * time.Minute })), "The video is longer than 10 minutes."},
		{"not a playable video: " + clip.ErrNotVideo.Error(), "This is not a video we can play."},
		{"not a playable video: " + fmt.Errorf("%w: at 12", clip.ErrCorrupt).Error(), "The video file is damaged or was only partly saved."},
		{"not a playable video: " + clip.ErrUnsupportedCodec.Error(), "The video is in a format we can’t play."},
		{"not a playable video: " + clip.ErrNoVideoTrack.Error(), "The video has no picture."},
		{"not a playable video: " + clip.ErrEmpty.Error(), "The video is empty: it has no length."},
		{"not a playable video: " + clip.ErrTooLong.Error(), "The video is longer than 10 minutes."},
		{"not a playable video: " + clip.ErrTooComplex.Error(), "We could not read this video file."},
		{"something new", "We could not use this video."},
	} {
		if got := survey.CustomerReason(tc.reason); got != tc.want {
			t.Errorf("CustomerReason(%q) = %q; want %q", tc.reason, got, tc.want)
		}
	}
}

func TestClipVerdict(t *testing.T) {
	for _, tc := range []struct {
		status survey.ClipStatus
		want   survey.Verdict
	}{
		{survey.ClipAnnounced, survey.VerdictSending}, {survey.ClipUploading, survey.VerdictSending},
		{survey.ClipProcessing, survey.VerdictReceived}, {survey.ClipPlayable, survey.VerdictChecked},
		{survey.ClipRejected, survey.VerdictUnusable},
	} {
		v, reason := survey.Clip{Status: tc.status, RejectReason: "never uploaded"}.Verdict()
		if v != tc.want || (v == survey.VerdictUnusable) != (reason != "") {
			t.Errorf("%s: Verdict() = %q, %q; want %q", tc.status, v, reason, tc.want)
		}
	}
}
