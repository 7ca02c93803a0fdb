package survey_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/clip"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

const fallback = "We could not use this video."

// declaredCodes returns every RejectCode constant declared in the
// package's source, so a code added without a sentence fails the test.
func declaredCodes(t *testing.T) []survey.RejectCode {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var codes []survey.RejectCode
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "RejectCode" {
				return true
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					codes = append(codes, survey.RejectCode(s))
				}
			}
			return true
		})
	}
	return codes
}

func TestEveryRejectCodeHasASentence(t *testing.T) {
	codes := declaredCodes(t)
	if len(codes) < 10 {
		t.Fatalf("found %d RejectCode constants (%v); want every code of reject.go", len(codes), codes)
	}
	for _, c := range codes {
		if got := survey.CustomerReason(c); got == fallback || got == "" {
			t.Errorf("CustomerReason(%q) = %q; want its own sentence", c, got)
		}
	}
	for _, c := range []survey.RejectCode{"", "a_code_from_a_newer_version"} {
		if got := survey.CustomerReason(c); got != fallback {
			t.Errorf("CustomerReason(%q) = %q; want %q", c, got, fallback)
		}
	}
}

// TestUnplayableCodesEveryClipRejection: each error clip rejects a clip
// with, wrapped as Probe and Check wrap it, has its code; a failed read
// is no rejection.
func TestUnplayableCodesEveryClipRejection(t *testing.T) {
	want := map[error]survey.RejectCode{
		clip.ErrNotVideo: survey.RejectNotAVideo, clip.ErrCorrupt: survey.RejectCorrupt,
		clip.ErrUnsupportedCodec: survey.RejectUnsupportedCodec, clip.ErrNoVideoTrack: survey.RejectNoPicture,
		clip.ErrTooComplex: survey.RejectUnreadable, clip.ErrEmpty: survey.RejectEmpty, clip.ErrTooLong: survey.RejectTooLong,
	}
	for _, e := range clip.Rejections() {
		err := fmt.Errorf("%w: at 12", e)
		r, ok := survey.Unplayable(err)
		if !ok || r.Code != want[e] || r.Code == "" || r.Reason != "not a playable video: "+err.Error() {
			t.Errorf("Unplayable(%v) = %+v, %v; want code %q", err, r, ok, want[e])
		}
	}
	if r, ok := survey.Unplayable(fmt.Errorf("read 16 bytes at 0: %w", io.ErrUnexpectedEOF)); ok {
		t.Errorf("Unplayable(read error) = %+v, true; want false", r)
	}
	if r, ok := survey.Unplayable(errors.New("clip: truncated or corrupt")); ok {
		t.Errorf("Unplayable(a look-alike message) = %+v, true; want false: codes come from the error, not its words", r)
	}
}

// TestCustomerReasonSaysWhatWentWrong checks each rejection site (Inspect,
// the processor's Unplayable and SizeMismatch, Finish's NeverUploaded)
// gives the code of its own plain sentence, never the operator's words.
func TestCustomerReasonSaysWhatWentWrong(t *testing.T) {
	c := survey.Clip{AnnouncedSize: 1000, ContentType: "video/webm"}
	inspect := func(m survey.Media) survey.Rejection { _, r := survey.Inspect(c, m); return r }
	unplayable := func(err error) survey.Rejection { r, _ := survey.Unplayable(err); return r }
	ok := survey.Media{Container: "webm", Codec: "vp8", Size: 1000, Duration: time.Minute, Width: 640, Height: 360}
	with := func(f func(*survey.Media)) survey.Media { m := ok; f(&m); return m }
	for _, tc := range []struct {
		r    survey.Rejection
		code survey.RejectCode
		want string
	}{
		{survey.NeverUploaded, survey.RejectNeverUploaded, "The video never finished sending."},
		{survey.SizeMismatch(10, 1000), survey.RejectSizeMismatch, "Only part of the video arrived."},
		{inspect(with(func(m *survey.Media) { m.Size = 10 })), survey.RejectSizeMismatch, "Only part of the video arrived."},
		{survey.Rejection{Code: survey.RejectTooLarge}, survey.RejectTooLarge, "The video is larger than we accept."},
		{inspect(with(func(m *survey.Media) { m.Container = "avi" })), survey.RejectNotAVideo, "This is not a video we can play."},
		{inspect(with(func(m *survey.Media) { m.Container = "mp4" })), survey.RejectTypeMismatch, "This is not a video we can play."},
		{inspect(with(func(m *survey.Media) { m.Codec = "theora" })), survey.RejectUnsupportedCodec, "The video is in a format we can’t play."},
		{inspect(with(func(m *survey.Media) { m.Width = 0 })), survey.RejectNoPicture, "The video has no picture."},
		{inspect(with(func(m *survey.Media) { m.Duration = 0 })), survey.RejectEmpty, "The video is empty: it has no length."},
		{inspect(with(func(m *survey.Media) { m.Duration = 11 * time.Minute })), survey.RejectTooLong, "The video is longer than 10 minutes."},
		{unplayable(clip.ErrNotVideo), survey.RejectNotAVideo, "This is not a video we can play."},
		{unplayable(fmt.Errorf("%w: at 12", clip.ErrCorrupt)), survey.RejectCorrupt, "The video file is damaged or was only partly saved."},
		// A corrupt file whose detail names a codec or a limit is still corrupt.
		{unplayable(fmt.Errorf("%w: codec private data over the limit", clip.ErrCorrupt)), survey.RejectCorrupt, "The video file is damaged or was only partly saved."},
		{unplayable(clip.ErrUnsupportedCodec), survey.RejectUnsupportedCodec, "The video is in a format we can’t play."},
		{unplayable(clip.ErrNoVideoTrack), survey.RejectNoPicture, "The video has no picture."},
		{unplayable(clip.ErrEmpty), survey.RejectEmpty, "The video is empty: it has no length."},
		{unplayable(clip.ErrTooLong), survey.RejectTooLong, "The video is longer than 10 minutes."},
		{unplayable(clip.ErrTooComplex), survey.RejectUnreadable, "We could not read this video file."},
	} {
		got := survey.CustomerReason(tc.r.Code)
		if tc.r.Code != tc.code || got != tc.want {
			t.Errorf("rejection %+v: code %q, sentence %q; want %q, %q", tc.r, tc.r.Code, got, tc.code, tc.want)
		}
		if tc.r.Reason != "" && strings.Contains(got, tc.r.Reason) {
			t.Errorf("sentence %q carries the operator's reason %q", got, tc.r.Reason)
		}
	}
}

// TestRewordedReasonKeepsTheSentence: the customer's sentence follows the
// code whatever the operator's reason says; a clip stored without a code
// gets the fallback, whatever its reason.
func TestRewordedReasonKeepsTheSentence(t *testing.T) {
	for _, tc := range []struct {
		code       survey.RejectCode
		reason     string
		wantReason string
	}{
		{survey.RejectTooLarge, "size 600000000 bytes exceeds the maximum", "The video is larger than we accept."},
		{survey.RejectTooLarge, "video codec over the duration limit (reworded)", "The video is larger than we accept."},
		{survey.RejectCorrupt, "the codec's limit was too long", "The video file is damaged or was only partly saved."},
		{"", "never uploaded", fallback},
	} {
		v, got := survey.Clip{Status: survey.ClipRejected, RejectCode: tc.code, RejectReason: tc.reason}.Verdict()
		if v != survey.VerdictUnusable || got != tc.wantReason {
			t.Errorf("code %q, reason %q: Verdict() = %q, %q; want unusable, %q", tc.code, tc.reason, v, got, tc.wantReason)
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
		v, reason := survey.Clip{Status: tc.status, RejectCode: survey.RejectNeverUploaded}.Verdict()
		if v != tc.want || (v == survey.VerdictUnusable) != (reason != "") {
			t.Errorf("%s: Verdict() = %q, %q; want %q", tc.status, v, reason, tc.want)
		}
	}
}
