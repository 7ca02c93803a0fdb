package surveys_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestRejectionSitesStoreTheirCodes: each way the real processor (MinIO's
// notifications) and Finish reject a clip stores its code beside the
// operator's reason, and the capture page's poll says the code's
// sentence.
func TestRejectionSitesStoreTheirCodes(t *testing.T) {
	e := newEnv(t)
	link := e.link(t, e.newLead(t, e.key))
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))
	tn := auth.Tenant{PartnerID: e.partner, Mode: auth.Test}

	codes := map[string]survey.RejectCode{}
	for _, tc := range []struct {
		file, contentType string
		code              survey.RejectCode
	}{
		{"not-video.mp4", "video/mp4", survey.RejectNotAVideo},
		{"corrupt.webm", "video/webm", survey.RejectCorrupt},
		{"truncated.mp4", "video/mp4", survey.RejectCorrupt},
		{"mpeg4.mp4", "video/mp4", survey.RejectUnsupportedCodec},
		{"audio-only.webm", "video/webm", survey.RejectNoPicture},
		{"h264.mp4", "video/webm", survey.RejectTypeMismatch},
	} {
		codes[e.upload(t, capture, "Kitchen", fixture(t, tc.file), tc.contentType)] = tc.code
	}
	// Bytes of another size than announced, stored without the presigned
	// upload (which would refuse them).
	short := uuid.NewString()
	body := fixture(t, "h264.mp4")
	want(t, e.announce(t, capture, short, "Office", len(body)+1, "video/mp4"), 200, "")
	_, err := e.S3.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &e.Bucket,
		Key: aws.String(survey.ObjectKey(e.partner, "test", surveyID, short)), Body: bytes.NewReader(body)})
	if err != nil {
		t.Fatal(err)
	}
	codes[short] = survey.RejectSizeMismatch

	for id, code := range codes {
		if st := e.waitClip(t, surveyID, id); st != "rejected" {
			t.Fatalf("clip %s (want %s) is %s; want rejected", id, code, st)
		}
	}
	polled := map[string]string{}
	for _, c := range want(t, e.Do(t, "GET", capture+"/clips", "", ""), 200, "")["clips"].([]any) {
		m := c.(map[string]any)
		polled[m["clip_id"].(string)], _ = m["reason"].(string)
	}
	for id, code := range codes {
		c, err := e.Store.GetClip(context.Background(), tn, surveyID, id)
		if err != nil {
			t.Fatal(err)
		}
		if c.RejectCode != code || c.RejectReason == "" || polled[id] != survey.CustomerReason(code) {
			t.Errorf("clip %s: code %q, reason %q, page told %q; want %q with an operator reason and %q",
				id, c.RejectCode, c.RejectReason, polled[id], code, survey.CustomerReason(code))
		}
	}

	// Announced, never sent: Finish rejects it.
	never := uuid.NewString()
	want(t, e.announce(t, capture, never, "Garage", len(body), "video/mp4"), 200, "")
	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	c, err := e.Store.GetClip(context.Background(), tn, surveyID, never)
	if err != nil || c.Status != survey.ClipRejected || c.RejectCode != survey.RejectNeverUploaded {
		t.Errorf("unsent clip after finish: %s %q, %v; want rejected, %q", c.Status, c.RejectCode, err, survey.RejectNeverUploaded)
	}
}
