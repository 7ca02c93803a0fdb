package surveys_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// TestMain runs the package's tests against DynamoDB Local and a MinIO
// whose notifications reach each test's clip processor.
func TestMain(m *testing.M) { apitest.MainS3(m) }

// env is one test's stack with a partner, its test key and its live key.
type env struct {
	*apitest.Env
	partner, key, liveKey string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := apitest.New(t, apitest.Options{S3: true, Parallel: true})
	p := e.NewPartner(t, "Demo Movers")
	key, _ := e.NewKey(t, p, auth.Test)
	live, _ := e.NewKey(t, p, auth.Live)
	return &env{Env: e, partner: p, key: key, liveKey: live}
}

// want checks a response: apitest.Want.
var want = apitest.Want

// newLead creates a lead with addresses the rate card can price.
func (e *env) newLead(t *testing.T, key string) string {
	t.Helper()
	r := e.Do(t, "POST", "/v1/leads", key, `{"customer_name":"Ada","email":"ada@example.com","from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108","home_size":"2 bedroom"}`)
	return want(t, r, 200, "")["lead_id"].(string)
}

// link calls getSurveyLink and returns the response.
func (e *env) link(t *testing.T, leadID string) map[string]any {
	t.Helper()
	return want(t, e.Do(t, "POST", "/v1/leads/"+leadID+"/video-survey", e.key, ""), 200, "")
}

// capture is the path of a capture URL (its server is the Env's).
func capturePath(t *testing.T, captureURL string) string {
	t.Helper()
	i := strings.Index(captureURL, "/v1-capture/")
	if i < 0 {
		t.Fatalf("capture_url %q has no /v1-capture/ path", captureURL)
	}
	return captureURL[i:]
}

// getLead returns the lead's detail.
func (e *env) getLead(t *testing.T, id string) map[string]any {
	t.Helper()
	return want(t, e.Do(t, "GET", "/v1/leads/"+id, e.key, ""), 200, "")
}

func surveyStatus(lead map[string]any) string {
	s, _ := lead["survey"].(map[string]any)
	st, _ := s["status"].(string)
	return st
}

// waitSurvey polls getLead until the lead's survey is in status (bounded).
func (e *env) waitSurvey(t *testing.T, leadID, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		l := e.getLead(t, leadID)
		if surveyStatus(l) == status {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("lead %s: survey status %q after 30 s; want %q", leadID, surveyStatus(l), status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "domain", "clip", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// announce requests an upload of body as a clip of room and returns the
// answer.
func (e *env) announce(t *testing.T, capture, clipID, room string, size int, contentType string) apitest.Result {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"clip_id": clipID, "room": room, "size": size, "content_type": contentType})
	return e.Do(t, "POST", capture+"/clips", "", string(b))
}

// put sends body to a presigned upload and returns S3's status.
func put(t *testing.T, upload map[string]any, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(upload["method"].(string), upload["url"].(string), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range upload["headers"].(map[string]any) {
		req.Header.Set(k, v.(string))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// upload announces and uploads body as a new clip of room and returns its
// id.
func (e *env) upload(t *testing.T, capture, room string, body []byte, contentType string) string {
	t.Helper()
	id := uuid.NewString()
	m := want(t, e.announce(t, capture, id, room, len(body), contentType), 200, "")
	if st := put(t, m["upload"].(map[string]any), body); st != 200 {
		t.Fatalf("upload of clip %s: S3 answered %d", id, st)
	}
	return id
}

// clipStatus reads a clip's stored status.
func (e *env) clipStatus(t *testing.T, surveyID, clipID string) string {
	t.Helper()
	c, err := e.Store.GetClip(context.Background(), auth.Tenant{PartnerID: e.partner, Mode: auth.Test}, surveyID, clipID)
	if err != nil {
		t.Fatal(err)
	}
	return string(c.Status)
}

// waitClip polls until a clip is decided and returns its status.
func (e *env) waitClip(t *testing.T, surveyID, clipID string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := e.clipStatus(t, surveyID, clipID)
		if st == "playable" || st == "rejected" {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("clip %s still %s after 30 s; logs:\n%s", clipID, st, e.Logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// listSince returns the ids of the leads listLeads returns for
// updated_since.
func (e *env) listSince(t *testing.T, since string) []string {
	t.Helper()
	r := want(t, e.Do(t, "GET", "/v1/leads?updated_since="+since, e.key, ""), 200, "")
	var ids []string
	for _, l := range r["data"].([]any) {
		ids = append(ids, l.(map[string]any)["lead_id"].(string))
	}
	return ids
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

var _ = fmt.Sprint
