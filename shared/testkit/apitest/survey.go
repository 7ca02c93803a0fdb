package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/local/repo"
)

// Clip is a clip PlayableSurvey uploads: a fixture of shared/domain/clip/testdata
// filmed in Room.
type Clip struct {
	Room, File, ContentType string
}

// Fixture clips, all playable.
var (
	MP4Clip  = Clip{Room: "Living room", File: "h264.mp4", ContentType: "video/mp4"}
	WebMClip = Clip{Room: "Kitchen", File: "mediarecorder-vp8-opus.webm", ContentType: "video/webm"}
)

// Survey is a survey PlayableSurvey made.
type Survey struct {
	LeadID, SurveyID string
	// CapturePath is its capture page's path (/v1-capture/<token>).
	CapturePath string
	// Clips are the clip ids, in upload order, with their decided status.
	Clips  []string
	Status map[string]survey.ClipStatus
}

// PlayableSurvey makes a lead with key (which needs leads:write and
// surveys:write), starts its video survey and uploads clips through the
// capture page's own calls and presigned PUTs to the Env's bucket, then
// waits (at most 30 s) until the clip processor decided each. A fixed
// clock (Env.Clock) moves one second per clip. The Env
// needs Options.S3. A clip's fixture may be anything: one that is not a
// video ends rejected.
func (e *Env) PlayableSurvey(t testing.TB, key string, clips ...Clip) Survey {
	t.Helper()
	if e.Bucket == "" {
		t.Fatal("apitest: PlayableSurvey needs Options.S3")
	}
	r := e.Do(t, "POST", "/v1/leads", key, `{"customer_name":"Ada","email":"ada@example.com","from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108","home_size":"2 bedroom"}`)
	return e.PlayableSurveyOf(t, key, field(t, r, "lead_id"), clips...)
}

// PlayableSurveyOf is PlayableSurvey for an existing lead of key's.
func (e *Env) PlayableSurveyOf(t testing.TB, key, leadID string, clips ...Clip) Survey {
	t.Helper()
	if e.Bucket == "" {
		t.Fatal("apitest: PlayableSurvey needs Options.S3")
	}
	r := e.Do(t, "POST", "/v1/leads/"+leadID+"/video-survey", key, "")
	sv := Survey{LeadID: leadID, SurveyID: field(t, r, "survey_id"), Status: map[string]survey.ClipStatus{}}
	captureURL := field(t, r, "capture_url")
	sv.CapturePath = captureURL[strings.Index(captureURL, "/v1-capture/"):]
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clips {
		body, err := os.ReadFile(filepath.Join(root, "shared", "domain", "clip", "testdata", c.File))
		if err != nil {
			t.Fatal(err)
		}
		id := uuid.NewString()
		b, _ := json.Marshal(map[string]any{"clip_id": id, "room": c.Room, "size": len(body), "content_type": c.ContentType})
		r := e.Do(t, "POST", sv.CapturePath+"/clips", "", string(b))
		if r.Status != 200 {
			t.Fatalf("announce clip: %d %s", r.Status, r.Body)
		}
		var ans struct {
			Upload struct {
				Method, URL string
				Headers     map[string]string
			}
		}
		if err := json.Unmarshal(r.Body, &ans); err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(ans.Upload.Method, ans.Upload.URL, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range ans.Upload.Headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("upload: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("upload of clip %s: S3 answered %d", id, resp.StatusCode)
		}
		sv.Clips = append(sv.Clips, id)
		// Clips are filmed one after another: a fixed clock moves on, so
		// that they keep their order (they are listed by announce time).
		e.Clock.tick(time.Second)
	}
	tn, _, err := e.Store.SurveyTenant(context.Background(), sv.SurveyID)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range sv.Clips {
		for {
			c, err := e.Store.GetClip(context.Background(), tn, sv.SurveyID, id)
			if err != nil {
				t.Fatal(err)
			}
			if c.Status.Final() {
				sv.Status[id] = c.Status
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("clip %s still %s after 30 s; logs:\n%s", id, c.Status, e.Logs)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return sv
}

// field returns the string field name of r's JSON body, failing the test
// unless r is a 200 with it.
func field(t testing.TB, r Result, name string) string {
	t.Helper()
	var m map[string]any
	if r.Status != 200 || json.Unmarshal(r.Body, &m) != nil {
		t.Fatalf("%s %s -> %d %s", r.Req.Method, r.Req.URL.Path, r.Status, r.Body)
	}
	v, _ := m[name].(string)
	if v == "" {
		t.Fatalf("%s %s: no %s in %s", r.Req.Method, r.Req.URL.Path, name, r.Body)
	}
	return v
}
