package surveys_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/testkit/dynamotest"
)

// TestRejectedClips: a corrupt file, a text file named .mp4 and a clip
// over the announced size are rejected and do not count; a survey with no
// playable clip fails with a reason kept for the operator.
func TestRejectedClips(t *testing.T) {
	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))

	corrupt := e.upload(t, capture, "Kitchen", fixture(t, "corrupt.webm"), "video/webm")
	text := e.upload(t, capture, "Garage", []byte("this is a shopping list, not a video\n"), "video/mp4")
	for name, id := range map[string]string{"corrupt": corrupt, "text renamed .mp4": text} {
		if st := e.waitClip(t, surveyID, id); st != "rejected" {
			t.Errorf("%s clip is %s; want rejected", name, st)
		}
	}

	// An upload larger than announced: S3 refuses the presigned PUT, since
	// the signature covers Content-Length.
	body := fixture(t, "h264.mp4")
	id := uuid.NewString()
	m := want(t, e.announce(t, capture, id, "Office", len(body)-100, "video/mp4"), 200, "")
	if st := put(t, m["upload"].(map[string]any), body); st != 403 {
		t.Errorf("upload of %d bytes announced as %d: S3 answered %d; want 403", len(body), len(body)-100, st)
	}
	// The page retries the same clip with a fresh URL; a changed size is a
	// different clip and refused.
	want(t, e.announce(t, capture, id, "Office", len(body)-100, "video/mp4"), 200, "")
	want(t, e.announce(t, capture, id, "Office", len(body), "video/mp4"), 409, "conflict")

	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	e.waitSurvey(t, leadID, "failed")
	rec, err := e.Store.GetSurvey(context.Background(), auth.Tenant{PartnerID: e.partner, Mode: auth.Test}, surveyID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.FailureReason, "never uploaded") || !strings.Contains(rec.FailureReason, "not a playable video") {
		t.Errorf("failure reason %q; want it to name the rejected and the never-uploaded clips", rec.FailureReason)
	}
	if l := e.getLead(t, leadID); l["recommended_estimate"] != nil {
		t.Errorf("failed survey has recommended_estimate %v", l["recommended_estimate"])
	}
	// The move to failed owes survey.failed, written with it.
	tn := auth.Tenant{PartnerID: e.partner, Mode: auth.Test}
	if ev, err := e.Store.GetEvent(context.Background(), tn, "evt_"+surveyID+"_survey.failed"); err != nil || ev.Type != "survey.failed" {
		t.Errorf("survey.failed event: %+v, %v", ev, err)
	}
	if _, err := e.Store.GetEvent(context.Background(), tn, "evt_"+surveyID+"_survey.completed"); err == nil {
		t.Error("a failed survey owes survey.completed")
	}
}

// TestTwentyFirstClip: a survey holds 20 clips; the 21st is refused with
// 422 and nothing is stored; retrying one of the 20 still works.
func TestTwentyFirstClip(t *testing.T) {
	e := newEnv(t)
	link := e.link(t, e.newLead(t, e.key))
	capture := capturePath(t, link["capture_url"].(string))
	var first string
	for i := range survey.MaxClips {
		id := uuid.NewString()
		if i == 0 {
			first = id
		}
		want(t, e.announce(t, capture, id, fmt.Sprintf("Room %d", i), 1000, "video/webm"), 200, "")
	}
	r := want(t, e.announce(t, capture, uuid.NewString(), "Attic", 1000, "video/webm"), 422, "validation_failed")
	if d := r["error"].(map[string]any)["details"].(map[string]any); d["max_clips"] != float64(survey.MaxClips) {
		t.Errorf("21st clip details %v; want max_clips %d", d, survey.MaxClips)
	}
	want(t, e.announce(t, capture, first, "Room 0", 1000, "video/webm"), 200, "")
}

// TestCaptureCallsRefuseBadInput: the page's calls answer bad bodies with
// 4xx and the API's error body.
func TestCaptureCallsRefuseBadInput(t *testing.T) {
	e := newEnv(t)
	link := e.link(t, e.newLead(t, e.key))
	capture := capturePath(t, link["capture_url"].(string))
	for _, c := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/clips", `not json`, 422, "invalid_json"},
		{"POST", "/clips", `{"clip_id":"x","room":"Kitchen","size":10,"content_type":"video/mp4"}`, 422, "validation_failed"},
		{"POST", "/clips", `{"clip_id":"` + uuid.NewString() + `","room":"Kitchen","size":10,"content_type":"image/png"}`, 422, "validation_failed"},
		{"POST", "/clips", `{"clip_id":"` + uuid.NewString() + `","room":"Kitchen","size":600000000,"content_type":"video/mp4"}`, 422, "validation_failed"},
		{"POST", "/clips", `{"clip_id":"` + uuid.NewString() + `","room":"","size":10,"content_type":"video/mp4"}`, 422, "validation_failed"},
		{"POST", "/clips", `{"clip_id":"` + uuid.NewString() + `","room":"Kitchen","size":10,"content_type":"video/mp4","extra":1}`, 422, "validation_failed"},
		{"POST", "/clips", `{"clip_id":"` + uuid.NewString() + `","room":"Kitchen","size":"10","content_type":"video/mp4"}`, 422, "validation_failed"},
		{"PUT", "/checklist", `{"rooms":[{"name":"Kitchen","items":[{"key":"unicorn","count":1}]}]}`, 422, "validation_failed"},
		{"PUT", "/checklist", `{"rooms":[{"name":"Kitchen","items":[{"key":"sofa_3_seat","count":100}]}]}`, 422, "validation_failed"},
		{"PUT", "/checklist", `[]`, 422, "invalid_json"},
		{"POST", "/finish", `{"now":true}`, 422, "validation_failed"},
		{"POST", "/clips", strings.Repeat("x", 5000), 413, "payload_too_large"},
	} {
		t.Run(c.method+c.path+" "+c.body[:min(len(c.body), 40)], func(t *testing.T) {
			want(t, e.Do(t, c.method, capture+c.path, "", c.body), c.status, c.code)
		})
	}
	// Nothing was stored by any of them: no clip, no checklist, and the
	// survey is still invited.
	rec, err := e.Store.GetSurvey(context.Background(), auth.Tenant{PartnerID: e.partner, Mode: auth.Test}, link["survey_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if rec.ClipCount != 0 || len(rec.Checklist.Rooms) != 0 || rec.Status != survey.Invited {
		t.Errorf("after refused calls: %d clips, checklist %+v, status %s; want none, none, invited", rec.ClipCount, rec.Checklist, rec.Status)
	}
}

// TestLinksAndTokensRefused: unknown, expired and another partner's links;
// another partner's lead, a live key against a test lead, a non-UUID and a
// bad body for getSurveyLink.
func TestLinksAndTokensRefused(t *testing.T) {
	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	capture := capturePath(t, link["capture_url"].(string))

	other := e.NewPartner(t, "Other Movers")
	otherKey, _ := e.NewKey(t, other, auth.Test)
	want(t, e.Do(t, "POST", "/v1/leads/"+leadID+"/video-survey", otherKey, ""), 404, "not_found")
	want(t, e.Do(t, "POST", "/v1/leads/"+leadID+"/video-survey", e.liveKey, ""), 404, "not_found")
	want(t, e.Do(t, "POST", "/v1-lead-survey/not-a-uuid", e.key, ""), 404, "not_found")
	want(t, e.Do(t, "POST", "/v1/leads/"+uuid.NewString()+"/video-survey", e.key, ""), 404, "not_found")
	want(t, e.Do(t, "POST", "/v1/leads/"+leadID+"/video-survey", e.key, `{"delivery":"sms"}`), 422, "validation_failed")
	want(t, e.Do(t, "POST", "/v1/leads/"+leadID+"/video-survey", e.key, `{"delivery":"link","to":"x"}`), 422, "validation_failed")
	want(t, e.Do(t, "POST", "/v1/leads/"+leadID+"/video-survey", e.key, `"link"`), 422, "invalid_json")
	readOnly, _ := e.NewKey(t, e.partner, auth.Test, "leads:read")
	want(t, e.Do(t, "POST", "/v1/leads/"+leadID+"/video-survey", readOnly, ""), 403, "insufficient_scope")

	// Unknown tokens: a well-formed one never issued, and a malformed one.
	for _, tok := range []string{strings.Repeat("A", linktoken.Len), "short"} {
		p := e.Do(t, "GET", "/v1-capture/"+tok, "", "")
		if p.Status != 404 || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") || strings.Contains(string(p.Body), `"error"`) {
			t.Errorf("unknown token page: %d %s; want a 404 HTML page", p.Status, p.Header.Get("Content-Type"))
		}
		want(t, e.Do(t, "POST", "/v1-capture/"+tok+"/clips", "", `{}`), 404, "not_found")
	}

	// Expired: 8 days later, the page says so with 410 and the calls
	// answer link_expired.
	e.Clock.Set(time.Now().Add(8 * 24 * time.Hour))
	p := e.Do(t, "GET", capture, "", "")
	if p.Status != 410 || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
		t.Errorf("expired link page: %d %s; want 410 HTML", p.Status, p.Header.Get("Content-Type"))
	}
	want(t, e.announce(t, capture, uuid.NewString(), "Kitchen", 10, "video/mp4"), 410, "link_expired")
	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 410, "link_expired")
	// A fresh link works again for the same survey.
	e.Clock.Set(time.Time{})
	fresh := e.link(t, leadID)
	if fresh["survey_id"] != link["survey_id"] {
		t.Errorf("fresh link for survey %v; want %v", fresh["survey_id"], link["survey_id"])
	}

	// No token ever reaches a log line.
	for _, u := range []any{link["capture_url"], fresh["capture_url"]} {
		tok := strings.TrimPrefix(capturePath(t, u.(string)), "/v1-capture/")
		if strings.Contains(e.Logs.String(), tok) {
			t.Errorf("a capture token appears in the logs")
		}
	}
}

// TestPerTokenRateLimit: a capture link makes at most 120 requests a
// minute; the 121st answers 429 with Retry-After.
func TestPerTokenRateLimit(t *testing.T) {
	e := newEnv(t)
	capture := capturePath(t, e.link(t, e.newLead(t, e.key))["capture_url"].(string))
	e.Clock.Set(time.Now().Truncate(time.Minute).Add(time.Second))
	for i := range 120 {
		if r := e.DoRaw(t, "PUT", capture+"/checklist", "", `{"rooms":[]}`); r.Status != 200 {
			t.Fatalf("request %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := e.Do(t, "PUT", capture+"/checklist", "", `{"rooms":[]}`)
	want(t, r, 429, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	if e.DoRaw(t, "GET", capture, "", "").Status != 429 {
		t.Error("the page itself is not rate-limited")
	}
	e.Clock.Advance(time.Minute)
	want(t, e.Do(t, "PUT", capture+"/checklist", "", `{"rooms":[]}`), 200, "")
}

// TestIdempotentLinkReplaysTheSameLink: getSurveyLink under an
// Idempotency-Key replays the byte-identical body, capture_url included,
// and that link opens the capture page; another key answers another link
// to the same survey, no key a fresh link each time; and no capture token
// is stored anywhere in the table (the spec's replay rule).
func TestIdempotentLinkReplaysTheSameLink(t *testing.T) {
	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	path := "/v1/leads/" + leadID + "/video-survey"
	first := e.Do(t, "POST", path, e.key, "", "Idempotency-Key: k1")
	a := want(t, first, 200, "")
	r := e.Do(t, "POST", path, e.key, "", "Idempotency-Key: k1")
	want(t, r, 200, "")
	if r.Header.Get("Idempotent-Replayed") != "true" || string(r.Body) != string(first.Body) {
		t.Errorf("replay %s (replayed %q); want the original %s", r.Body, r.Header.Get("Idempotent-Replayed"), first.Body)
	}
	if p := e.Do(t, "GET", capturePath(t, a["capture_url"].(string)), "", ""); p.Status != 200 {
		t.Errorf("replayed link's page: %d", p.Status)
	}
	other := want(t, e.Do(t, "POST", path, e.key, "", "Idempotency-Key: k2"), 200, "")
	if other["survey_id"] != a["survey_id"] || other["capture_url"] == a["capture_url"] {
		t.Errorf("another key: %v; want survey %v with another link", other, a["survey_id"])
	}
	fresh1 := want(t, e.Do(t, "POST", path, e.key, ""), 200, "")
	fresh2 := want(t, e.Do(t, "POST", path, e.key, ""), 200, "")
	if fresh1["capture_url"] == fresh2["capture_url"] || fresh1["capture_url"] == a["capture_url"] {
		t.Errorf("calls without a key answered %v and %v; want a fresh link each", fresh1["capture_url"], fresh2["capture_url"])
	}
	// The replayed link still opens once later calls added theirs.
	if p := e.Do(t, "GET", capturePath(t, a["capture_url"].(string)), "", ""); p.Status != 200 {
		t.Errorf("replayed link's page after later links: %d", p.Status)
	}
	// The same key for another lead is another request.
	want(t, e.Do(t, "POST", "/v1/leads/"+e.newLead(t, e.key)+"/video-survey", e.key, "", "Idempotency-Key: k1"), 422, "idempotency_key_reused")

	dump := dynamotest.ScanStrings(t, e.DB, e.Store.Table()) + dynamotest.ScanStrings(t, e.DB, e.Store.EventsTable())
	for _, l := range []map[string]any{a, other, fresh1, fresh2} {
		tok := strings.TrimPrefix(capturePath(t, l["capture_url"].(string)), "/v1-capture/")
		if strings.Contains(dump, tok) {
			t.Errorf("a capture token is stored in plain text")
		}
	}
}

// TestEventsOutOfOrder: S3 events delivered twice, late, or before the
// finish never move a survey backwards or reopen a closed one.
func TestEventsOutOfOrder(t *testing.T) {
	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	link := e.link(t, leadID)
	surveyID, capture := link["survey_id"].(string), capturePath(t, link["capture_url"].(string))
	tenant := auth.Tenant{PartnerID: e.partner, Mode: auth.Test}
	clipID := e.upload(t, capture, "Kitchen", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm")
	e.waitClip(t, surveyID, clipID)

	key := survey.ObjectKey(e.partner, "test", surveyID, clipID)
	event := events.S3Event{Records: []events.S3EventRecord{{
		EventSource: "aws:s3", EventName: "ObjectCreated:Put",
		S3: events.S3Entity{Bucket: events.S3Bucket{Name: e.Bucket}, Object: events.S3Object{Key: key, URLDecodedKey: key, Size: int64(len(fixture(t, "mediarecorder-vp8-opus.webm")))}},
	}}}
	replay := func() {
		t.Helper()
		if err := e.Stack.Clips()(context.Background(), event); err != nil {
			t.Fatalf("replayed event: %v", err)
		}
	}
	// Before the finish: a replay changes nothing (the clip is decided, the
	// survey keeps recording).
	replay()
	if st := surveyStatus(e.getLead(t, leadID)); st != "recording" {
		t.Fatalf("survey %s after a replay before the finish; want recording", st)
	}
	want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	e.waitSurvey(t, leadID, "inventory_ready")
	before, err := e.Store.GetSurvey(context.Background(), tenant, surveyID)
	if err != nil {
		t.Fatal(err)
	}
	leadBefore, err := e.Store.GetLead(context.Background(), tenant, leadID)
	if err != nil {
		t.Fatal(err)
	}
	// After the survey closed: replays (in any number) change nothing,
	// not even updated_at.
	for range 3 {
		replay()
	}
	after, err := e.Store.GetSurvey(context.Background(), tenant, surveyID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != before.Status || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("replays after close moved the survey: %s %v → %s %v", before.Status, before.UpdatedAt, after.Status, after.UpdatedAt)
	}
	lead2, err := e.Store.GetLead(context.Background(), tenant, leadID)
	if err != nil {
		t.Fatal(err)
	}
	if !lead2.UpdatedAt.Equal(leadBefore.UpdatedAt) {
		t.Errorf("replays moved the lead's updated_at: %v → %v", leadBefore.UpdatedAt, lead2.UpdatedAt)
	}
	// An event for a key that names no clip (a stray object) is ignored.
	stray := "clips/" + e.partner + "/test/" + surveyID + "/" + uuid.NewString()
	event.Records[0].S3.Object.Key, event.Records[0].S3.Object.URLDecodedKey = stray, stray
	replay()
}
