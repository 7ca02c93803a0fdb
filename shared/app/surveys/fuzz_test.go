package surveys

import (
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// FuzzCaptureBodies: the parsers of getSurveyLink's body and the capture
// page's clip request never panic, and refuse with a 4xx error code.
func FuzzCaptureBodies(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"delivery":"link"}`, `{"delivery":"sms"}`, `{"delivery":null}`, `[]`, `"link"`, `{"a":1}`,
		`{"clip_id":"9b2f1d2e-3c4b-4a5d-8e6f-7a8b9c0d1e2f","room":"Kitchen","size":10,"content_type":"video/mp4"}`,
		`{"clip_id":1}`, `{"size":1e400}`, `{} {}`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(what string, err error) {
			if err == nil {
				return
			}
			e := errcode.As(err)
			if e == nil || errcode.Status(e.Code) < 400 || errcode.Status(e.Code) >= 500 {
				t.Fatalf("%s(%q) = %v; want a 4xx errcode", what, body, err)
			}
		}
		check("parseLinkBody", parseLinkBody(body))
		var req clipRequest
		check("strictJSON", strictJSON(body, &req))
	})
}

// FuzzFramesBody: the frames announcement's parser never panics, refuses
// with a 4xx error code, and what it accepts keeps the rules: 1 to 60
// frames of one clip, distinct slots, sizes and sides in bounds.
func FuzzFramesBody(f *testing.F) {
	for _, s := range []string{
		`{"clip_id":"9b2f1d2e-3c4b-4a5d-8e6f-7a8b9c0d1e2f","frames":[{"offset_ms":0,"size":10,"width":64,"height":64}]}`,
		`{"clip_id":"9b2f1d2e-3c4b-4a5d-8e6f-7a8b9c0d1e2f","frames":[{"offset_ms":0,"size":10,"width":64,"height":64},{"offset_ms":1999,"size":10,"width":64,"height":64}]}`,
		`{"clip_id":"9b2f1d2e-3c4b-4a5d-8e6f-7a8b9c0d1e2f","frames":[{"offset_ms":-9223372036854775808,"size":1,"width":64,"height":64}]}`,
		`{"clip_id":"9b2f1d2e-3c4b-4a5d-8e6f-7a8b9c0d1e2f","frames":[{"offset_ms":18446744073709,"size":1,"width":64,"height":64}]}`,
		`{"clip_id":"x","frames":[]}`, `{"frames":null}`, `{"frames":[{}]}`, `[]`, ``, "\xff",
	} {
		f.Add([]byte(s))
	}
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		clipID, frames, err := parseFrames(body, now)
		if err != nil {
			if e := errcode.As(err); e == nil || errcode.Status(e.Code) < 400 || errcode.Status(e.Code) >= 500 {
				t.Fatalf("parseFrames(%q) = %v; want a 4xx errcode", body, err)
			}
			return
		}
		if len(frames) == 0 || len(frames) > survey.MaxFramesPerRequest {
			t.Fatalf("accepted %d frames", len(frames))
		}
		slots := map[int]bool{}
		for _, fr := range frames {
			if fr.ClipID != clipID || slots[fr.Slot] || fr.Slot < 0 || fr.Slot >= survey.MaxClipSlots ||
				fr.AnnouncedSize < 1 || fr.AnnouncedSize > survey.MaxFrameBytes ||
				fr.Width < survey.MinFrameSide || fr.Width > survey.MaxFrameSide || fr.Height < survey.MinFrameSide || fr.Height > survey.MaxFrameSide {
				t.Fatalf("accepted %+v", fr)
			}
			slots[fr.Slot] = true
		}
	})
}
