package coldstart

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// clipFixture is the clip each cold start of the clip processor validates:
// a real MediaRecorder recording (WebM without Duration, so the probe
// scans back for its last cluster), from shared/domain/clip/testdata.
const (
	clipFixture     = "mediarecorder-vp8-opus.webm"
	clipContentType = "video/webm"
)

// surveyFixture is the fixture of the functions that serve the video survey
// through a capture token or an S3 event: their own partner, a survey
// whose capture page every capture cold start opens with a token of its
// own, and the clip the processor's cold starts validate.
type surveyFixture struct {
	tenant   auth.Tenant
	lifetime time.Duration
	capture  survey.Survey // its tokens grow by one per capture event
	clip     []byte
	// The surveys the video-link functions' cold starts mint links on:
	// the access function's (through its partner's key) and the viewer's.
	accessSurvey, viewSurvey videoSurvey
}

// seedSurveys creates the survey partner and the capture page's survey,
// and reads the clip.
func (f *fixture) seedSurveys(ctx context.Context, root string, now time.Time) error {
	data, err := os.ReadFile(filepath.Join(root, "shared", "domain", "clip", "testdata", clipFixture))
	if err != nil {
		return err
	}
	p := partner.Partner{ID: "ptn_coldstart_surveys", Name: "Cold start surveys", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now}
	if err := f.store.CreatePartner(ctx, p); err != nil {
		return fmt.Errorf("survey partner: %w", err)
	}
	f.surveyFixture = surveyFixture{tenant: auth.Tenant{PartnerID: p.ID, Mode: auth.Test}, lifetime: p.CaptureLinkTTL(), clip: data}
	sv, _, err := f.startSurvey(ctx, f.tenant, now)
	if err != nil {
		return err
	}
	f.capture = sv
	f.viewSurvey = videoSurvey{tenant: f.tenant}
	return nil
}

// startSurvey creates a lead of tenant t and starts its survey
// (invited, with one token, which it returns).
func (f *fixture) startSurvey(ctx context.Context, t auth.Tenant, now time.Time) (survey.Survey, string, error) {
	l := lead.Build(uuid.NewString(), lead.CreateInput{
		CustomerName: "Grace Hopper", Email: "grace@example.com",
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108",
		HomeSize: "2 bedroom", Source: "coldstart",
	}, estimate.DefaultRateCard("usd"), now)
	if err := f.store.PutLead(ctx, t, l, false); err != nil {
		return survey.Survey{}, "", fmt.Errorf("survey lead: %w", err)
	}
	sv, token, err := survey.New(uuid.NewString(), l.ID, f.lifetime, now)
	if err != nil {
		return survey.Survey{}, "", err
	}
	if err := f.store.StartSurvey(ctx, t, sv); err != nil {
		return survey.Survey{}, "", fmt.Errorf("start survey: %w", err)
	}
	return sv, token, nil
}

// captureToken issues a fresh capture token for the capture survey (which
// keeps its survey.MaxTokens newest), so that no token nears the per-token
// rate limit whatever the number of cold starts.
func (f *fixture) captureToken(ctx context.Context) (string, error) {
	token, sv, err := f.store.AddSurveyToken(ctx, f.tenant, f.capture, f.lifetime, time.Now().UTC())
	if err != nil {
		return "", fmt.Errorf("capture token: %w", err)
	}
	f.capture = sv
	return token, nil
}

// clipTarget is the cold start of the S3-triggered function fn: each
// event announces the clip for a new survey (a survey holds at most
// survey.MaxClips), stores its object in the clip bucket and names it in
// an object-created event, as S3 would send it. The function must answer
// null (success), and the clip must then be decided playable: the first
// response includes reading the clip over S3 and recording the verdict.
func (f *fixture) clipTarget(fn manifest.Function, bin string) target {
	var last survey.Clip
	var lastSurvey string
	return target{
		Name: fn.Slug, Bin: bin, Env: f.Env(&fn), Check: checkNull,
		Event: func(ctx context.Context) ([]byte, error) {
			key, c, surveyID, err := f.putClip(ctx, fn.S3.Prefix)
			if err != nil {
				return nil, err
			}
			last, lastSurvey = c, surveyID
			return s3Event(f.bucket, key, int64(len(f.clip)))
		},
		Verify: func(ctx context.Context) error {
			c, err := f.store.GetClip(ctx, f.tenant, lastSurvey, last.ID)
			if err != nil {
				return fmt.Errorf("read back clip %s: %w", last.ID, err)
			}
			if c.Status != survey.ClipPlayable {
				return fmt.Errorf("clip %s is %s (%s); want %s", c.ID, c.Status, c.RejectReason, survey.ClipPlayable)
			}
			return nil
		},
	}
}

// putClip starts a survey, announces the clip for it and stores the
// clip's object; it returns the object's key, the clip and the survey id.
func (f *fixture) putClip(ctx context.Context, prefix string) (string, survey.Clip, string, error) {
	now := time.Now().UTC()
	sv, _, err := f.startSurvey(ctx, f.tenant, now)
	if err != nil {
		return "", survey.Clip{}, "", err
	}
	c, err := survey.NewClip(uuid.NewString(), "Kitchen", int64(len(f.clip)), clipContentType, 0, now)
	if err != nil {
		return "", survey.Clip{}, "", err
	}
	if err := f.store.PutClip(ctx, f.tenant, sv.ID, c); err != nil {
		return "", survey.Clip{}, "", fmt.Errorf("announce clip: %w", err)
	}
	key := survey.ObjectKey(f.tenant.PartnerID, string(f.tenant.Mode), sv.ID, c.ID)
	if !strings.HasPrefix(key, prefix) {
		return "", survey.Clip{}, "", fmt.Errorf("clip key %s is not under the trigger's prefix %q", key, prefix)
	}
	_, err = f.s3c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &f.bucket, Key: &key, Body: bytes.NewReader(f.clip), ContentType: aws.String(clipContentType),
	})
	if err != nil {
		return "", survey.Clip{}, "", fmt.Errorf("store clip: %w", err)
	}
	return key, c, sv.ID, nil
}

// s3Event returns the JSON of the object-created event Amazon S3 sends
// Lambda for key (keys made by survey.ObjectKey need no URL encoding).
func s3Event(bucket, key string, size int64) ([]byte, error) {
	return json.Marshal(events.S3Event{Records: []events.S3EventRecord{{
		EventVersion: "2.1", EventSource: "aws:s3", AWSRegion: region,
		EventTime: time.Now().UTC(), EventName: "ObjectCreated:Put",
		S3: events.S3Entity{
			SchemaVersion: "1.0", ConfigurationID: "ClipCreated",
			Bucket: events.S3Bucket{Name: bucket, Arn: "arn:aws:s3:::" + bucket},
			Object: events.S3Object{Key: key, Size: size, Sequencer: fmt.Sprintf("%016X", time.Now().UnixNano())},
		},
	}}})
}
