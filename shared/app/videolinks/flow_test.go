package videolinks_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/dynamotest"
)

func TestMain(m *testing.M) { apitest.MainS3(m) }

// env is one test's stack with a partner, its test key and its live key.
type env struct {
	*apitest.Env
	partner, key, liveKey string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := apitest.New(t, apitest.Options{S3: true})
	e.Clock.Set(time.Now().UTC().Truncate(time.Second))
	p := e.NewPartner(t, "Demo Movers")
	key, _ := e.NewKey(t, p, auth.Test)
	live, _ := e.NewKey(t, p, auth.Live)
	return &env{Env: e, partner: p, key: key, liveKey: live}
}

func (e *env) tenant() auth.Tenant { return auth.Tenant{PartnerID: e.partner, Mode: auth.Test} }

var (
	decode = apitest.JSON
	want   = apitest.Want
)

// mint calls createSurveyVideoAccess on the pilot path.
func (e *env) mint(t *testing.T, key, surveyID, body string) apitest.Result {
	t.Helper()
	return e.Do(t, "POST", "/v1-survey-video-access/"+surveyID, key, body)
}

// revoke calls revokeSurveyVideoAccess on the logical path.
func (e *env) revoke(t *testing.T, key, surveyID, body string) apitest.Result {
	t.Helper()
	return e.Do(t, "DELETE", "/v1/surveys/"+surveyID+"/video-access", key, body)
}

// viewPath is the path of a view_url.
func viewPath(t *testing.T, viewURL string) string {
	t.Helper()
	i := strings.Index(viewURL, "/v1-video/")
	if i < 0 {
		t.Fatalf("view_url %q has no /v1-video/ path", viewURL)
	}
	return viewURL[i:]
}

// open GETs a viewer page as a browser would.
func (e *env) open(t *testing.T, path string) apitest.Result {
	t.Helper()
	return e.DoRaw(t, "GET", path, "", "", "User-Agent: CarrierBrowser/2.0 (test)", "Accept: text/html")
}

var videoSrc = regexp.MustCompile(`<source src="([^"]+)"`)

func TestMintAndOpen(t *testing.T) {
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.MP4Clip, apitest.WebMClip)
	now := e.Clock.Now()
	m := want(t, e.mint(t, e.key, sv.SurveyID, `{"label":"Carrier: Boston move"}`), 200, "")
	if m["survey_id"] != sv.SurveyID || m["forwardable"] != true || m["clip_count"] != float64(2) {
		t.Errorf("response %v; want the survey, forwardable, 2 clips", m)
	}
	if _, err := uuid.Parse(m["grant_id"].(string)); err != nil {
		t.Errorf("grant_id %v is not a UUID", m["grant_id"])
	}
	exp, err := time.Parse(time.RFC3339, m["expires_at"].(string))
	if err != nil || !exp.Equal(now.Add(72*time.Hour)) {
		t.Errorf("expires_at %v; want 72 h from now (%s)", m["expires_at"], now.Add(72*time.Hour))
	}
	if note := m["note"].(string); !strings.Contains(note, "2 playable clips") || strings.Count(note, ".") != 1 {
		t.Errorf("note %q; want one sentence naming the 2 clips", note)
	}
	path := viewPath(t, m["view_url"].(string))
	token := strings.TrimPrefix(path, "/v1-video/")
	if _, err := linktoken.Parse(token); err != nil {
		t.Errorf("view token %q: %v; want 256 bits in base64url", token, err)
	}

	r := e.open(t, path)
	if r.Status != 200 {
		t.Fatalf("open -> %d %s", r.Status, r.Body)
	}
	for name, want := range map[string]string{
		"Content-Type": "text/html; charset=utf-8", "Referrer-Policy": "no-referrer",
		"Cache-Control": "no-store", "X-Robots-Tag": "noindex",
	} {
		if got := r.Header.Get(name); got != want {
			t.Errorf("%s = %q; want %q", name, got, want)
		}
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "media-src http://127.0.0.1:") {
		t.Errorf("CSP %q; want default-src 'none' and media from the bucket's origin", csp)
	}
	srcs := videoSrc.FindAllStringSubmatch(string(r.Body), -1)
	if len(srcs) != 2 {
		t.Fatalf("page has %d video sources; want 2:\n%s", len(srcs), r.Body)
	}
	body := string(r.Body)
	if strings.Index(body, "Living room") > strings.Index(body, "Kitchen") || !strings.Contains(body, "Demo Movers") {
		t.Error("page: want the rooms in recording order (Living room, then Kitchen) and the partner's name")
	}
	for _, s := range srcs {
		u := strings.ReplaceAll(s[1], "&amp;", "&")
		if !strings.Contains(u, "X-Amz-Expires=600") {
			t.Errorf("clip address %s; want a presigned GET living 600 s", u)
		}
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET clip address -> %d; want 200", resp.StatusCode)
		}
	}
	opens, err := e.Store.VideoOpens(context.Background(), e.tenant(), sv.SurveyID)
	if err != nil || len(opens) != 1 {
		t.Fatalf("open log %+v, %v; want 1 open", opens, err)
	}
	if o := opens[0]; o.GrantID != m["grant_id"] || !o.At.Equal(now) || o.UserAgent != "CarrierBrowser/2.0 (test)" || o.Client != "127.0.0.0" {
		t.Errorf("open %+v; want the grant, the time, the user agent and the truncated address", o)
	}
	grants, err := e.Store.VideoGrants(context.Background(), e.tenant(), sv.SurveyID)
	if err != nil || len(grants) != 1 || grants[0].Label != "Carrier: Boston move" {
		t.Errorf("grants %+v, %v; want one with its label", grants, err)
	}
	if strings.Contains(e.Logs.String(), token) {
		t.Error("a log line holds the view token")
	}
}

func TestRequestLimits(t *testing.T) {
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.WebMClip)
	now := e.Clock.Now()
	m := want(t, e.mint(t, e.key, sv.SurveyID, `{"ttl_hours": 500}`), 200, "")
	if got := m["expires_at"]; got != now.Add(168*time.Hour).Format("2006-01-02T15:04:05.000000Z") {
		t.Errorf("ttl_hours 500: expires_at %v; want 168 h from now", got)
	}
	m = want(t, e.mint(t, e.key, sv.SurveyID, `{"ttl_hours": 1.5, "label": "`+strings.Repeat("é", 120)+`"}`), 200, "")
	if got := m["expires_at"]; got != now.Add(90*time.Minute).Format("2006-01-02T15:04:05.000000Z") {
		t.Errorf("ttl_hours 1.5: expires_at %v; want 90 min from now", got)
	}
	for _, body := range []string{
		`{"label": "` + strings.Repeat("a", 121) + `"}`,
		`{"ttl_hours": 0}`, `{"ttl_hours": -3}`, `{"ttl_hours": "72"}`, `{"ttl_hours": null}`,
		`{"grant": "x"}`,
	} {
		want(t, e.mint(t, e.key, sv.SurveyID, body), 422, "validation_failed")
	}
	want(t, e.mint(t, e.key, sv.SurveyID, `[1]`), 422, "invalid_json")
	grants, _ := e.Store.VideoGrants(context.Background(), e.tenant(), sv.SurveyID)
	if len(grants) != 2 {
		t.Errorf("%d grants stored; want 2 (no refused request writes one)", len(grants))
	}
	// Revoke takes no body.
	want(t, e.revoke(t, e.key, sv.SurveyID, `{"grant_id": "`+m["grant_id"].(string)+`"}`), 422, "validation_failed")
	want(t, e.revoke(t, e.key, sv.SurveyID, `"all"`), 422, "invalid_json")
	if r := want(t, e.revoke(t, e.key, sv.SurveyID, `{}`), 200, ""); r["grants_revoked"] != float64(2) {
		t.Errorf("revoke with {} -> %v; want 2 revoked", r)
	}
}

func TestNoPlayableClips(t *testing.T) {
	e := newEnv(t)
	none := e.PlayableSurvey(t, e.key)
	want(t, e.mint(t, e.key, none.SurveyID, ""), 422, "no_playable_clips")
	rejected := e.PlayableSurvey(t, e.key, apitest.Clip{Room: "Garage", File: "not-video.mp4", ContentType: "video/mp4"})
	if st := rejected.Status[rejected.Clips[0]]; st != survey.ClipRejected {
		t.Fatalf("clip %s; want rejected", st)
	}
	want(t, e.mint(t, e.key, rejected.SurveyID, ""), 422, "no_playable_clips")
	for _, id := range []string{none.SurveyID, rejected.SurveyID} {
		if grants, _ := e.Store.VideoGrants(context.Background(), e.tenant(), id); len(grants) != 0 {
			t.Errorf("survey %s: %d grants stored; want none", id, len(grants))
		}
	}
}

func TestIsolationAndScope(t *testing.T) {
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.WebMClip)
	other := e.NewPartner(t, "Other Movers")
	otherKey, _ := e.NewKey(t, other, auth.Test)
	for name, key := range map[string]string{"partner B's key": otherKey, "a live key on a test survey": e.liveKey} {
		t.Run(name, func(t *testing.T) {
			want(t, e.mint(t, key, sv.SurveyID, ""), 404, "not_found")
			want(t, e.revoke(t, key, sv.SurveyID, ""), 404, "not_found")
		})
	}
	for _, id := range []string{"not-a-uuid", uuid.NewString(), sv.SurveyID + "0", sv.LeadID} {
		want(t, e.mint(t, e.key, id, ""), 404, "not_found")
		want(t, e.revoke(t, e.key, id, ""), 404, "not_found")
	}
	readOnly, _ := e.NewKey(t, e.partner, auth.Test, auth.LeadsRead)
	want(t, e.mint(t, readOnly, sv.SurveyID, ""), 403, "insufficient_scope")
	want(t, e.revoke(t, readOnly, sv.SurveyID, ""), 403, "insufficient_scope")
	if grants, _ := e.Store.VideoGrants(context.Background(), e.tenant(), sv.SurveyID); len(grants) != 0 {
		t.Errorf("%d grants stored; want none", len(grants))
	}
}

func TestRevokeAndDeadLinks(t *testing.T) {
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.WebMClip)
	a := viewPath(t, want(t, e.mint(t, e.key, sv.SurveyID, ""), 200, "")["view_url"].(string))
	b := viewPath(t, want(t, e.mint(t, e.key, sv.SurveyID, `{"ttl_hours": 1}`), 200, "")["view_url"].(string))
	for _, p := range []string{a, b} {
		if r := e.open(t, p); r.Status != 200 {
			t.Fatalf("open before revoke -> %d", r.Status)
		}
	}
	if r := want(t, e.revoke(t, e.key, sv.SurveyID, ""), 200, ""); r["grants_revoked"] != float64(2) || r["revoked"] != true || r["survey_id"] != sv.SurveyID {
		t.Errorf("revoke -> %v; want 2 revoked", r)
	}
	if r := want(t, e.revoke(t, e.key, sv.SurveyID, ""), 200, ""); r["grants_revoked"] != float64(0) {
		t.Errorf("second revoke -> %v; want 0", r)
	}
	for _, p := range []string{a, b} {
		r := e.open(t, p)
		if r.Status != 410 || !strings.Contains(string(r.Body), "no longer available") || strings.Contains(string(r.Body), "X-Amz-Signature") {
			t.Errorf("open after revoke -> %d; want 410's friendly page without any clip address:\n%s", r.Status, r.Body)
		}
		if r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("410 page headers %v", r.Header)
		}
	}
	// A link minted after the revoke is live; it expires after its ttl.
	c := viewPath(t, want(t, e.mint(t, e.key, sv.SurveyID, `{"ttl_hours": 2}`), 200, "")["view_url"].(string))
	if r := e.open(t, c); r.Status != 200 {
		t.Errorf("open of a link minted after the revoke -> %d", r.Status)
	}
	e.Clock.Advance(2 * time.Hour)
	if r := e.open(t, c); r.Status != 410 {
		t.Errorf("open of an expired link -> %d; want 410", r.Status)
	}
	// Unknown and malformed tokens: 404, a page that says nothing of a survey.
	unknown, _ := linktoken.New()
	for _, p := range []string{"/v1-video/" + unknown, "/v1-video/short", "/v1-video/" + strings.Repeat("!", 43)} {
		r := e.open(t, p)
		if r.Status != 404 || !strings.Contains(string(r.Body), "find this video link") || strings.Contains(strings.ToLower(string(r.Body)), "survey") {
			t.Errorf("open %s -> %d; want 404's page that does not mention a survey:\n%s", p, r.Status, r.Body)
		}
	}
}

// TestConcurrentMintsAndRevokes: mints and revokes racing on one survey
// neither lose a link nor leave open one a revoke counted: every link a
// revoke counted answers 410, every other minted link still opens, and the
// counts add up.
func TestConcurrentMintsAndRevokes(t *testing.T) {
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.WebMClip)
	const mints, revokes = 12, 4
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		links   []string
		revoked int
	)
	for i := range mints + revokes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 3 {
				r := e.revoke(t, e.key, sv.SurveyID, "")
				if r.Status != 200 {
					t.Errorf("revoke -> %d %s", r.Status, r.Body)
					return
				}
				mu.Lock()
				revoked += int(decode(t, r)["grants_revoked"].(float64))
				mu.Unlock()
				return
			}
			r := e.mint(t, e.key, sv.SurveyID, "")
			if r.Status != 200 {
				t.Errorf("mint -> %d %s", r.Status, r.Body)
				return
			}
			mu.Lock()
			links = append(links, viewPath(t, decode(t, r)["view_url"].(string)))
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(links) != mints {
		t.Fatalf("%d links minted; want %d", len(links), mints)
	}
	closed, live := 0, 0
	for _, p := range links {
		switch r := e.open(t, p); r.Status {
		case 410:
			closed++
		case 200:
			live++
		default:
			t.Errorf("open -> %d", r.Status)
		}
	}
	if closed != revoked {
		t.Errorf("%d links answer 410 but the revokes said they closed %d", closed, revoked)
	}
	set, err := e.Store.VideoLinkSet(context.Background(), e.tenant(), sv.SurveyID)
	if err != nil || len(set.Live(e.Clock.Now())) != live {
		t.Errorf("live set %+v, %v; want the %d links that still open", set, err, live)
	}
	t.Logf("%d mints and %d revokes: %d closed, %d live", mints, revokes, closed, live)
	// A final revoke closes exactly the rest.
	if r := want(t, e.revoke(t, e.key, sv.SurveyID, ""), 200, ""); r["grants_revoked"] != float64(live) {
		t.Errorf("final revoke -> %v; want %d", r, live)
	}
}

// TestOpensPerHour: 21 opens of one link at once, 30 s before a clock
// hour ends: exactly 20 are served and logged; the other gets 429 with
// Retry-After and a friendly page. The new clock hour changes nothing: the
// link opens again only an hour after those 20 opens.
func TestOpensPerHour(t *testing.T) {
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.WebMClip)
	e.Clock.Set(e.Clock.Now().Truncate(time.Hour).Add(59*time.Minute + 30*time.Second))
	p := viewPath(t, want(t, e.mint(t, e.key, sv.SurveyID, ""), 200, "")["view_url"].(string))
	const tries = videolink.OpensPerHour + 1
	results := make([]apitest.Result, tries)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = e.open(t, p) }()
	}
	wg.Wait()
	served, limited := 0, 0
	for _, r := range results {
		switch r.Status {
		case 200:
			served++
		case 429:
			limited++
			if r.Header.Get("Retry-After") != "3600" || !strings.Contains(string(r.Body), "opened many times") {
				t.Errorf("429: Retry-After %q (want 3600: the opens were all just now), body:\n%s", r.Header.Get("Retry-After"), r.Body)
			}
		default:
			t.Errorf("open -> %d %s", r.Status, r.Body)
		}
	}
	if served != videolink.OpensPerHour || limited != 1 {
		t.Fatalf("served %d, limited %d; want %d and 1", served, limited, videolink.OpensPerHour)
	}
	opens, err := e.Store.VideoOpens(context.Background(), e.tenant(), sv.SurveyID)
	if err != nil || len(opens) != videolink.OpensPerHour {
		t.Errorf("open log holds %d, %v; want %d", len(opens), err, videolink.OpensPerHour)
	}
	e.Clock.Advance(40 * time.Second) // 10 s into the next clock hour
	if r := e.open(t, p); r.Status != 429 || r.Header.Get("Retry-After") != "3560" {
		t.Errorf("open in the next clock hour -> %d, Retry-After %q; want 429, 3560", r.Status, r.Header.Get("Retry-After"))
	}
	e.Clock.Advance(3560 * time.Second)
	if r := e.open(t, p); r.Status != 200 {
		t.Errorf("open an hour after the 20 -> %d; want 200", r.Status)
	}
	if opens, _ := e.Store.VideoOpens(context.Background(), e.tenant(), sv.SurveyID); len(opens) != videolink.OpensPerHour+1 {
		t.Errorf("open log holds %d; want %d (no refused open logged)", len(opens), videolink.OpensPerHour+1)
	}
}

// TestNoViewTokenStored: nothing in the table holds a view token.
func TestNoViewTokenStored(t *testing.T) {
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.WebMClip)
	var tokens []string
	for range 3 {
		p := viewPath(t, want(t, e.mint(t, e.key, sv.SurveyID, ""), 200, "")["view_url"].(string))
		e.open(t, p)
		tokens = append(tokens, strings.TrimPrefix(p, "/v1-video/"))
	}
	dump := dynamotest.ScanStrings(t, e.DB, e.Store.Table()) + dynamotest.ScanStrings(t, e.DB, e.Store.EventsTable())
	for _, tok := range tokens {
		if strings.Contains(dump, tok) {
			t.Errorf("token %s… stored in plain text", tok[:6])
		}
		if !strings.Contains(dump, linktoken.Hash(tok)) {
			t.Errorf("hash of token %s… not found: the scan saw too little", tok[:6])
		}
	}
	if logs := e.Logs.String(); func() bool {
		for _, tok := range tokens {
			if strings.Contains(logs, tok) {
				return true
			}
		}
		return false
	}() {
		t.Error("a log line holds a view token")
	}
}

// TestClipCountCountsPlayableOnly: a rejected clip is neither counted nor
// shown.
func TestClipCountCountsPlayableOnly(t *testing.T) {
	e := newEnv(t)
	sv := e.PlayableSurvey(t, e.key, apitest.WebMClip, apitest.Clip{Room: "Garage", File: "not-video.mp4", ContentType: "video/mp4"})
	m := want(t, e.mint(t, e.key, sv.SurveyID, ""), 200, "")
	if m["clip_count"] != float64(1) || !strings.Contains(m["note"].(string), "1 playable clip,") {
		t.Errorf("response %v; want clip_count 1 (the rejected clip is not served)", m)
	}
	r := e.open(t, viewPath(t, m["view_url"].(string)))
	if n := len(videoSrc.FindAll(r.Body, -1)); r.Status != 200 || n != 1 || strings.Contains(string(r.Body), "Garage") {
		t.Errorf("page -> %d with %d clips; want 200 with the Kitchen clip only", r.Status, n)
	}
}
