package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/local/repo"
)

// The banner's demo lines: the lead and its capture link.
var (
	bannerLead    = regexp.MustCompile(`Video survey of the demo lead (\S+) `)
	bannerCapture = regexp.MustCompile(`Open this on your phone or in a browser: (\S+)`)
)

// demoFromBanner waits up to a minute for out to hold the banner's demo
// lines and returns the lead id and the capture link.
func demoFromBanner(t *testing.T, out *syncBuffer) (leadID, capture string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		s := out.String()
		l, c := bannerLead.FindStringSubmatch(s), bannerCapture.FindStringSubmatch(s)
		if l != nil && c != nil {
			return l[1], c[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the banner has no demo lead and capture link:\n%s", s)
		}
	}
}

// httpClient plays the browser and the partner: no proxy, no cookies.
var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil}}

// send sends a request and returns the status, the headers and the body.
func send(t *testing.T, method, url string, header http.Header, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, redact(url), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read the answer: %v", method, redact(url), err)
	}
	return resp.StatusCode, resp.Header, b
}

// captureToken matches the token of a capture link.
var captureToken = regexp.MustCompile(`/v1-capture/[^/?]+`)

// redact hides a capture link's token for a failure message (local, but a
// log is no place for a token).
func redact(url string) string {
	return captureToken.ReplaceAllString(url, "/v1-capture/{token}")
}

// checkCapturePage: the banner's capture link answers the page.
func checkCapturePage(t *testing.T, capture string) {
	t.Helper()
	status, h, body := send(t, "GET", capture, nil, nil)
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Errorf("GET the capture link: %d %q; want 200 text/html\n%.300s", status, h.Get("Content-Type"), body)
	}
}

// bannerVideo is the banner's forwardable video link.
var bannerVideo = regexp.MustCompile(`(http://\S+/v1-video/\S+)`)

// checkVideoLink: the banner's video link answers the viewer page, whose
// clip address plays from MinIO.
func checkVideoLink(t *testing.T, banner string) {
	t.Helper()
	m := bannerVideo.FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("the banner has no video link:\n%s", banner)
	}
	status, h, body := send(t, "GET", m[1], nil, nil)
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("GET the video link: %d %q; want 200 text/html\n%.300s", status, h.Get("Content-Type"), body)
	}
	src := regexp.MustCompile(`<source src="([^"]+)"`).FindSubmatch(body)
	if src == nil {
		t.Fatalf("the viewer page has no clip:\n%.600s", body)
	}
	clip := strings.ReplaceAll(string(src[1]), "&amp;", "&")
	if status, _, b := send(t, "GET", clip, nil, nil); status != 200 || len(b) == 0 {
		t.Errorf("GET the clip address: %d, %d bytes; want 200 with the clip", status, len(b))
	}
}

// checkSurveyFlow does what the capture page does, without a browser: it
// requests an upload for a real MediaRecorder clip, PUTs the clip to the
// presigned URL, saves a checklist and finishes; MinIO's notification then
// runs the clip processor through the gateway, and getLead must show the
// survey inventory_ready with a recommended estimate.
func checkSurveyFlow(t *testing.T, dev devfile.File, leadID, capture string) {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	clip, err := os.ReadFile(filepath.Join(root, "shared", "domain", "clip", "testdata", "mediarecorder-vp8-opus.webm"))
	if err != nil {
		t.Fatal(err)
	}
	jsonHeader := http.Header{"Content-Type": {"application/json"}}

	announce, _ := json.Marshal(map[string]any{
		"clip_id": uuid.NewString(), "room": "Living room", "size": len(clip), "content_type": "video/webm;codecs=vp8,opus",
	})
	status, _, body := send(t, "POST", capture+"/clips", jsonHeader, announce)
	if status != 200 {
		t.Fatalf("POST {capture}/clips: %d %s", status, body)
	}
	var clipAnswer struct {
		Upload struct {
			Method  string            `json:"method"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"upload"`
	}
	if err := json.Unmarshal(body, &clipAnswer); err != nil || clipAnswer.Upload.URL == "" {
		t.Fatalf("POST {capture}/clips answered %s (%v); want an upload", body, err)
	}
	up := clipAnswer.Upload
	if !strings.HasPrefix(up.URL, dev.Env["AWS_ENDPOINT_URL_S3"]+"/"+dev.Env["CLIP_BUCKET"]+"/clips/") {
		t.Errorf("upload URL %.80s… is not in the clip bucket at MinIO (%s)", up.URL, dev.Env["AWS_ENDPOINT_URL_S3"])
	}
	upHeader := http.Header{}
	for k, v := range up.Headers {
		upHeader.Set(k, v)
	}
	if status, _, body := send(t, up.Method, up.URL, upHeader, clip); status != 200 {
		t.Fatalf("%s the clip to its presigned URL: %d %s", up.Method, status, body)
	}

	checklist := []byte(`{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":1}]}]}`)
	if status, _, body := send(t, "PUT", capture+"/checklist", jsonHeader, checklist); status != 200 {
		t.Fatalf("PUT {capture}/checklist: %d %s", status, body)
	}
	if status, _, body := send(t, "POST", capture+"/finish", jsonHeader, []byte(`{}`)); status != 200 {
		t.Fatalf("POST {capture}/finish: %d %s", status, body)
	}

	auth := http.Header{"Authorization": {"Bearer " + dev.APIKey}}
	var lead struct {
		Survey struct {
			Status string `json:"status"`
		} `json:"survey"`
		RecommendedEstimate json.RawMessage `json:"recommended_estimate"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		status, _, body := send(t, "GET", dev.BaseURL+"/v1/leads/"+leadID, auth, nil)
		if status != 200 {
			t.Fatalf("GET /v1/leads/%s: %d %s", leadID, status, body)
		}
		if err := json.Unmarshal(body, &lead); err != nil {
			t.Fatalf("getLead answered %s: %v", body, err)
		}
		if lead.Survey.Status == "inventory_ready" || lead.Survey.Status == "failed" || time.Now().After(deadline) {
			if lead.Survey.Status != "inventory_ready" || len(lead.RecommendedEstimate) == 0 || string(lead.RecommendedEstimate) == "null" {
				t.Fatalf("after finishing, getLead shows survey %q and recommended_estimate %s; want inventory_ready and an estimate:\n%s",
					lead.Survey.Status, lead.RecommendedEstimate, body)
			}
			return
		}
	}
}

// checkS3EventsEndpoint: the endpoint MinIO posts to refuses a request
// without the webhook's token, and dev.json names it.
func checkS3EventsEndpoint(t *testing.T, dev devfile.File) {
	t.Helper()
	if dev.S3Events == nil || dev.S3Events.URL != dev.BaseURL+s3EventsPath || !strings.HasPrefix(dev.S3Events.Authorization, "Bearer ") {
		t.Fatalf("dev.json s3_events = %+v; want %s%s and a bearer token", dev.S3Events, dev.BaseURL, s3EventsPath)
	}
	event := []byte(`{"Records":[{"s3":{"bucket":{"name":"b"},"object":{"key":"clips%2Fx","size":1}}}]}`)
	for _, auth := range []string{"", "Bearer wrong"} {
		h := http.Header{}
		if auth != "" {
			h.Set("Authorization", auth)
		}
		if status, _, body := send(t, "POST", dev.S3Events.URL, h, event); status != 401 {
			t.Errorf("POST %s with Authorization %q: %d %s; want 401", s3EventsPath, auth, status, body)
		}
	}
	// An object that names no clip is ignored by the processor: 204.
	h := http.Header{"Authorization": {dev.S3Events.Authorization}}
	if status, _, body := send(t, "POST", dev.S3Events.URL, h, event); status != 204 {
		t.Errorf("POST %s with dev.json's Authorization: %d %s; want 204", s3EventsPath, status, body)
	}
}

// wantEnv reports the variables of want that env lacks or holds another
// value of ("" in want: any non-empty value).
func wantEnv(env, want map[string]string) []string {
	var bad []string
	for k, v := range want {
		if got := env[k]; got == "" || (v != "" && got != v) {
			bad = append(bad, fmt.Sprintf("%s=%q (want %q)", k, got, v))
		}
	}
	return bad
}
