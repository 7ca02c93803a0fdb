package sample_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/edge/s3event"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/clipwiring"
)

// clipProcessor returns the clip processor's handler, built as
// functions/clip-processor's main builds it (s3event.Build over
// awsenv.Load) on env's table, with its log lines in logs.
func clipProcessor(t *testing.T, env *apitest.Env) (s3event.Handler, *apitest.SyncBuffer) {
	t.Helper()
	t.Setenv(settings.Table, env.Store.Table())
	logs := &apitest.SyncBuffer{}
	load := func() (*awsenv.Env, error) {
		e, err := awsenv.Load()
		if err != nil {
			return nil, err
		}
		e.Log = slog.New(slog.NewJSONHandler(logs, nil))
		return e, nil
	}
	h, err := s3event.Build(load, "clip-processor", clipwiring.ClipProcessor)
	if err != nil {
		t.Fatalf("build clip-processor: %v", err)
	}
	return h, logs
}

// checkFixtureClipSettled checks that the fixture clip was decided
// playable and that its survey, finished, is inventory_ready, with the
// recommended estimate on its lead.
func checkFixtureClipSettled(t *testing.T, env *apitest.Env) {
	t.Helper()
	ctx := context.Background()
	tenant := auth.Tenant{PartnerID: sample.PartnerID, Mode: auth.Test}
	c, err := env.Store.GetClip(ctx, tenant, sample.FinishSurveyID, sample.ClipID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != survey.ClipPlayable || c.Codec != "vp8" {
		t.Errorf("fixture clip %s, codec %q (%s); want playable vp8", c.Status, c.Codec, c.RejectReason)
	}
	rec, err := env.Store.GetSurvey(ctx, tenant, sample.FinishSurveyID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != survey.InventoryReady {
		t.Errorf("fixture survey %s (%s); want %s", rec.Status, rec.FailureReason, survey.InventoryReady)
	}
	_, ls, err := env.Store.GetLeadWithSurvey(ctx, tenant, sample.FinishLeadID)
	if err != nil {
		t.Fatal(err)
	}
	if ls.Recommended == nil {
		t.Errorf("lead %s has no recommended estimate after its survey settled", sample.FinishLeadID)
	}
}

// checkSeededClipsAsProcessed checks that the playable clips Seed writes
// (VideoClipID, ViewClipID, of the same object as ClipID) say what the
// clip processor said of ClipID, and that the videoPage events' opens of
// the fixture link were logged, by that link, while it stays live.
func checkSeededClipsAsProcessed(t *testing.T, env *apitest.Env, opens int) {
	t.Helper()
	ctx := context.Background()
	tenant := auth.Tenant{PartnerID: sample.PartnerID, Mode: auth.Test}
	want, err := env.Store.GetClip(ctx, tenant, sample.FinishSurveyID, sample.ClipID)
	if err != nil {
		t.Fatal(err)
	}
	for surveyID, clipID := range map[string]string{sample.VideoSurveyID: sample.VideoClipID, sample.ViewSurveyID: sample.ViewClipID} {
		c, err := env.Store.GetClip(ctx, tenant, surveyID, clipID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status != want.Status || c.Codec != want.Codec || c.Duration != want.Duration ||
			c.Width != want.Width || c.Height != want.Height || c.Size != want.Size || c.ContentType != want.ContentType {
			t.Errorf("seeded clip %s: %s %s %v %dx%d %d bytes %s; want as processed: %s %s %v %dx%d %d bytes %s", clipID,
				c.Status, c.Codec, c.Duration, c.Width, c.Height, c.Size, c.ContentType,
				want.Status, want.Codec, want.Duration, want.Width, want.Height, want.Size, want.ContentType)
		}
	}
	log, err := env.Store.VideoOpens(ctx, tenant, sample.ViewSurveyID)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != opens {
		t.Errorf("fixture video link opened %d times; want %d (the videoPage events)", len(log), opens)
	}
	for _, o := range log {
		if o.GrantID != sample.ViewGrantID || o.Client != "127.0.0.0" || o.UserAgent == "" {
			t.Errorf("open %+v; want grant %s from 127.0.0.0 with a user agent", o, sample.ViewGrantID)
		}
	}
	set, err := env.Store.VideoLinkSet(ctx, tenant, sample.ViewSurveyID)
	if err != nil {
		t.Fatal(err)
	}
	if live := set.Live(time.Now()); len(live) != 1 || live[0].GrantID != sample.ViewGrantID {
		t.Errorf("fixture survey's live links %+v; want only %s", live, sample.ViewGrantID)
	}
}

// checkS3Event checks that payload is an S3 event notification as Amazon
// S3 sends it to f: each record an object-created one from aws:s3, in a
// region, at a time, naming the bucket by name and ARN and an object under
// f's prefix by its URL-encoded key, with a size, an MD5 eTag and a
// sequencer.
func checkS3Event(t *testing.T, f manifest.Function, payload []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	var ev events.S3Event
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("decode S3 event: %v", err)
	}
	if len(ev.Records) == 0 {
		t.Fatal("S3 event has no records")
	}
	for i, r := range ev.Records {
		b, o := r.S3.Bucket, r.S3.Object
		var problems []string
		if r.EventSource != "aws:s3" || !strings.HasPrefix(r.EventName, "ObjectCreated:") || r.EventVersion == "" {
			problems = append(problems, fmt.Sprintf("eventSource %q eventName %q eventVersion %q; want aws:s3, ObjectCreated:*, a version", r.EventSource, r.EventName, r.EventVersion))
		}
		if r.AWSRegion == "" || r.EventTime.IsZero() {
			problems = append(problems, "no awsRegion or eventTime")
		}
		if b.Name == "" || b.Arn != "arn:aws:s3:::"+b.Name {
			problems = append(problems, fmt.Sprintf("bucket %q arn %q", b.Name, b.Arn))
		}
		if !strings.HasPrefix(o.URLDecodedKey, f.S3.Prefix) || sample.EncodeKey(o.URLDecodedKey) != o.Key {
			problems = append(problems, fmt.Sprintf("key %q (decoded %q): want a key under %q, URL-encoded as S3 does", o.Key, o.URLDecodedKey, f.S3.Prefix))
		}
		if o.Size < 0 || (o.Size == 0) != (o.ETag == "d41d8cd98f00b204e9800998ecf8427e") || len(o.ETag) != 32 || o.Sequencer == "" || strings.Trim(o.ETag+o.Sequencer, "0123456789abcdefABCDEF") != "" {
			problems = append(problems, fmt.Sprintf("size %d eTag %q sequencer %q: want a size, a hex MD5 and a hex sequencer", o.Size, o.ETag, o.Sequencer))
		}
		for _, p := range problems {
			t.Errorf("record %d: %s", i, p)
		}
	}
}

func TestEncodeKey(t *testing.T) {
	tests := []struct{ key, want string }{
		{"clips/ptn_1/test/a-b/c-d", "clips/ptn_1/test/a-b/c-d"},
		{"red flower.jpg", "red+flower.jpg"},
		{"a+b/ü&=%.txt", "a%2Bb/%C3%BC%26%3D%25.txt"},
	}
	for _, tt := range tests {
		got := sample.EncodeKey(tt.key)
		if got != tt.want {
			t.Errorf("EncodeKey(%q) = %q; want %q", tt.key, got, tt.want)
		}
		var o events.S3Object
		if err := json.Unmarshal([]byte(`{"key":"`+got+`"}`), &o); err != nil || o.URLDecodedKey != tt.key {
			t.Errorf("aws-lambda-go decodes %q as %q (%v); want %q", got, o.URLDecodedKey, err, tt.key)
		}
	}
}

// TestClipEventInEitherOrder runs the clip-processor event before and
// after the finish event (and the finish marker's event it causes), each
// time on a fresh table: whichever comes first, the clip is decided
// playable and the survey settles inventory_ready (S3 events arrive in no
// particular order).
func TestClipEventInEitherOrder(t *testing.T) {
	clipEvent, err := os.ReadFile(filepath.Join(eventsDir, "clip-processor.object-created.json"))
	if err != nil {
		t.Fatal(err)
	}
	finishEvent, err := os.ReadFile(filepath.Join(eventsDir, "v1-capture.finish.200.json"))
	if err != nil {
		t.Fatal(err)
	}
	markerEvent, err := os.ReadFile(filepath.Join(eventsDir, "clip-processor.survey-finished.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, clipFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("clip first %v", clipFirst), func(t *testing.T) {
			env := apitest.New(t)
			ctx := context.Background()
			if err := sample.Seed(ctx, env.Store); err != nil {
				t.Fatal(err)
			}
			processor, logs := clipProcessor(t, env)
			processClip := func() {
				if _, err := lambda.NewHandler(processor).Invoke(ctx, clipEvent); err != nil {
					t.Fatalf("clip-processor: %v (log %s)", err, logs)
				}
			}
			if clipFirst {
				processClip()
			}
			out, err := lambda.NewHandler(env.Stack.Route(manifest.CaptureFinish)).Invoke(ctx, finishEvent)
			if err != nil || !bytes.Contains(out, []byte(`"statusCode":200`)) {
				t.Fatalf("finish: %s, %v; want 200", out, err)
			}
			if _, err := lambda.NewHandler(processor).Invoke(ctx, markerEvent); err != nil {
				t.Fatalf("clip-processor on the finish marker: %v (log %s)", err, logs)
			}
			if !clipFirst {
				processClip()
			}
			checkFixtureClipSettled(t, env)
		})
	}
}
