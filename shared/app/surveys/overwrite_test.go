package surveys_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"image/color"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestDecidedUploadsAreNotReplaced: once the processor decided a clip or
// a frame, other bytes of the same size PUT through the same presigned
// URL (valid 15 minutes) are refused with 412: the object the processor
// checked is the one the viewer serves and the detector read.
func TestDecidedUploadsAreNotReplaced(t *testing.T) {
	d := &scripted{}
	e := newDetectingEnv(t, d)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))

	webm := fixture(t, "mediarecorder-vp8-opus.webm")
	clipID := uuid.NewString()
	up := want(t, e.announce(t, capture, clipID, "Living room", len(webm), "video/webm"), 200, "")["upload"].(map[string]any)
	if st := put(t, up, webm); st != 200 {
		t.Fatalf("first upload: S3 answered %d", st)
	}
	if st := e.waitClip(t, surveyID, clipID); st != "playable" {
		t.Fatalf("clip %s; want playable", st)
	}
	f0 := still(t, 640, 360, color.RGBA{200, 10, 10, 255})
	d.answer(f0, "couch")
	fs := want(t, e.announceFrames(t, capture, clipID, jpegFrame(0, f0)), 200, "")["frames"].([]any)
	fup := fs[0].(map[string]any)["upload"].(map[string]any)
	if st := put(t, fup, f0); st != 200 {
		t.Fatalf("frame upload: S3 answered %d", st)
	}
	e.waitFrames(t, surveyID, 1)

	clipKey := survey.ObjectKey(e.partner, "test", surveyID, clipID)
	for _, c := range []struct {
		name     string
		upload   map[string]any
		key      string
		original []byte
	}{
		{"clip", up, clipKey, webm},
		{"frame", fup, survey.FrameKey(e.partner, "test", surveyID, clipID, 0), f0},
	} {
		t.Run(c.name, func(t *testing.T) {
			other := make([]byte, len(c.original))
			_, _ = rand.Read(other)
			if st := put(t, c.upload, other); st != 412 {
				t.Errorf("PUT of other bytes after the decision: S3 answered %d; want 412", st)
			}
			out, err := e.S3.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &e.Bucket, Key: aws.String(c.key)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(out.Body)
			out.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.original) {
				t.Errorf("object %s: %d bytes differ from what was checked", c.key, len(got))
			}
		})
	}
	if st := e.clipStatus(t, surveyID, clipID); st != "playable" {
		t.Errorf("clip %s after the refused PUT; want playable", st)
	}
	if f := e.frames(t, surveyID)[clipID+"/0"]; f.Status != survey.FrameValid || d.calls != 1 {
		t.Errorf("frame %s, detector called %d times; want valid, once", f.Status, d.calls)
	}
}
