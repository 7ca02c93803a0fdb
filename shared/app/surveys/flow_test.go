package surveys_test

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

// TestSurveyToInventoryReady walks one survey through every state over
// the real stack (DynamoDB Local, MinIO and its notifications): link,
// two uploads, checklist, finish, processing, inventory_ready with the
// recommended estimate; listLeads with updated_since returns the lead after
// each state change, and getLead shows the survey, with its inventory
// (null until inventory_ready).
func TestSurveyToInventoryReady(t *testing.T) {
	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	if l := e.getLead(t, leadID); surveyStatus(l) != "none" || l["status"] != "new" {
		t.Fatalf("new lead: %v", l)
	}

	since := rfc3339(time.Now())
	time.Sleep(2 * time.Millisecond)
	link := e.link(t, leadID)
	if link["status"] != "awaiting_recording" || link["delivery"] != "link" {
		t.Errorf("link %v; want status awaiting_recording, delivery link", link)
	}
	u, err := url.Parse(link["capture_url"].(string))
	if err != nil || u.Scheme != "http" || u.Host != e.Server.Listener.Addr().String() {
		t.Fatalf("capture_url %v: want an absolute URL on the API's origin", link["capture_url"])
	}
	surveyID := link["survey_id"].(string)
	l := e.getLead(t, leadID)
	if l["status"] != "surveying" || surveyStatus(l) != "invited" || l["survey"].(map[string]any)["survey_id"] != surveyID {
		t.Fatalf("after getSurveyLink: %v; want lead surveying, survey %s invited", l, surveyID)
	}
	if inv, ok := l["survey"].(map[string]any)["inventory"]; !ok || inv != nil {
		t.Errorf("survey.inventory of an invited survey: %v (present: %v); want null", inv, ok)
	}
	if !contains(e.listSince(t, since), leadID) {
		t.Errorf("listLeads updated_since=%s misses the lead after the survey started", since)
	}

	capture := capturePath(t, link["capture_url"].(string))
	page := e.Do(t, "GET", capture, "", "")
	if page.Status != 200 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("capture page: %d %s", page.Status, page.Header.Get("Content-Type"))
	}
	for h, v := range map[string]string{"Referrer-Policy": "no-referrer", "Cache-Control": "no-store", "X-Robots-Tag": "noindex"} {
		if got := page.Header.Get(h); got != v {
			t.Errorf("capture page %s = %q; want %q", h, got, v)
		}
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("capture page CSP %q", csp)
	}

	since = rfc3339(time.Now())
	time.Sleep(2 * time.Millisecond)
	c1 := e.upload(t, capture, "Living room", fixture(t, "mediarecorder-vp8-opus.webm"), "video/webm;codecs=vp8,opus")
	if surveyStatus(e.getLead(t, leadID)) != "recording" {
		t.Fatalf("after the first upload request: survey %s; want recording", surveyStatus(e.getLead(t, leadID)))
	}
	if !contains(e.listSince(t, since), leadID) {
		t.Errorf("listLeads misses the lead after recording began")
	}
	c2 := e.upload(t, capture, "Bedroom", fixture(t, "mediarecorder-vp9-opus.mp4"), "video/mp4")
	for _, c := range []string{c1, c2} {
		if st := e.waitClip(t, surveyID, c); st != "playable" {
			t.Errorf("clip %s is %s; want playable", c, st)
		}
	}
	// Processing clips while the customer records does not close the survey.
	if st := surveyStatus(e.getLead(t, leadID)); st != "recording" {
		t.Errorf("survey %s before the finish; want recording", st)
	}

	checklist := `{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":1},{"key":"tv_large","count":1}]},{"name":"Bedroom","items":[{"key":"bed_queen","count":1}]}]}`
	r := want(t, e.Do(t, "PUT", capture+"/checklist", "", checklist), 200, "")
	if r["items"] != 3.0 {
		t.Errorf("checklist answer %v; want 3 items", r)
	}

	since = rfc3339(time.Now())
	time.Sleep(2 * time.Millisecond)
	fin := want(t, e.Do(t, "POST", capture+"/finish", "", ""), 200, "")
	if fin["status"] != "processing" && fin["status"] != "inventory_ready" {
		t.Errorf("finish answered %v", fin)
	}
	l = e.waitSurvey(t, leadID, "inventory_ready")
	if !contains(e.listSince(t, since), leadID) {
		t.Errorf("listLeads misses the lead after the survey settled")
	}

	// The recommended estimate is the checklist's volume priced under the
	// partner's rate card.
	cl, err := inventory.ParseChecklist([]byte(checklist))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.ChecklistBuilder{}.Build(context.Background(), inventory.Input{Checklist: cl})
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := inventory.Recommend(estimate.DefaultRateCard("usd"), inv, "1 Main St, New York, NY 10001", "9 Oak Ave, Boston, MA 02108")
	if !ok {
		t.Fatal("the checklist cannot be priced")
	}
	got, _ := l["recommended_estimate"].(map[string]any)
	if got == nil || got["min"] != float64(rec.Estimate.Min) || got["max"] != float64(rec.Estimate.Max) || got["currency"] != rec.Estimate.Currency {
		t.Errorf("recommended_estimate %v; want %+v", l["recommended_estimate"], rec.Estimate)
	}
	// getLead shows the inventory in full: the checklist's rooms and items
	// (source checklist), and the volume the estimate was priced on.
	shown, _ := l["survey"].(map[string]any)["inventory"].(map[string]any)
	if shown == nil {
		t.Fatalf("survey.inventory %v; want the inventory", l["survey"])
	}
	if shown["item_count"] != 3.0 || shown["total_cubic_feet"] != rec.Volume.CubicFeet() ||
		!reflect.DeepEqual(shown["items_by_source"], map[string]any{"checklist": 3.0, "detected": 0.0}) {
		t.Errorf("survey.inventory %v; want 3 items from the checklist, %v cu ft", shown, rec.Volume.CubicFeet())
	}
	var wantRooms any
	b, _ := json.Marshal(inv.Detail().Rooms)
	if err := json.Unmarshal(b, &wantRooms); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shown["rooms"], wantRooms) {
		t.Errorf("survey.inventory.rooms %v; want the checklist's %s", shown["rooms"], b)
	}
	stored, err := e.Store.GetSurvey(context.Background(), auth.Tenant{PartnerID: e.partner, Mode: auth.Test}, surveyID)
	if err != nil || stored.Inventory == nil || len(stored.Inventory.Rooms) != 2 {
		t.Errorf("stored inventory %+v (%v); want the checklist's two rooms", stored.Inventory, err)
	}
	// The move to inventory_ready owes survey.completed and estimate.ready,
	// whose data is what getLead shows.
	for _, ty := range []string{"survey.completed", "estimate.ready"} {
		ev, err := e.Store.GetEvent(context.Background(), auth.Tenant{PartnerID: e.partner, Mode: auth.Test}, "evt_"+surveyID+"_"+ty)
		if err != nil || string(ev.Type) != ty || ev.Mode != "test" {
			t.Errorf("%s event: %+v, %v", ty, ev, err)
			continue
		}
		var data struct {
			LeadID    string         `json:"lead_id"`
			Survey    map[string]any `json:"survey"`
			Estimate  map[string]any `json:"recommended_estimate"`
			Inventory map[string]any `json:"inventory"`
		}
		if err := json.Unmarshal(ev.Data, &data); err != nil || data.LeadID != leadID || data.Survey["status"] != "inventory_ready" ||
			data.Estimate["min"] != got["min"] || data.Estimate["max"] != got["max"] ||
			data.Inventory["item_count"] != shown["item_count"] || data.Inventory["total_cubic_feet"] != shown["total_cubic_feet"] {
			t.Errorf("%s data %s; want the lead, the survey's status, getLead's recommended_estimate and the inventory's summary", ty, ev.Data)
		}
	}

	// A finished survey's link shows the friendly "already finished" page
	// and refuses changes; finishing again answers the current state.
	if p := e.Do(t, "GET", capture, "", ""); p.Status != 409 || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
		t.Errorf("finished survey's page: %d %s; want 409 HTML", p.Status, p.Header.Get("Content-Type"))
	}
	want(t, e.announce(t, capture, "5f0c6a44-9a8e-4c1e-b8a4-2f7a3c1d9e01", "Kitchen", 100, "video/mp4"), 409, "survey_closed")
	if again := want(t, e.Do(t, "POST", capture+"/finish", "", "{}"), 200, ""); again["status"] != "inventory_ready" {
		t.Errorf("second finish answered %v; want inventory_ready", again)
	}

	// A new link for a closed survey starts a new one, which getLead shows.
	next := e.link(t, leadID)
	if next["survey_id"] == surveyID {
		t.Fatalf("getSurveyLink after inventory_ready returned the closed survey %s", surveyID)
	}
	if l := e.getLead(t, leadID); l["survey"].(map[string]any)["survey_id"] != next["survey_id"] || surveyStatus(l) != "invited" ||
		l["survey"].(map[string]any)["inventory"] != nil {
		t.Errorf("getLead after a new survey: %v; want survey %v invited, no inventory", l["survey"], next["survey_id"])
	}
}

// TestLaterLinksReturnTheSameSurvey: a second getSurveyLink call answers
// the same survey with a fresh URL; both URLs work.
func TestLaterLinksReturnTheSameSurvey(t *testing.T) {
	e := newEnv(t)
	leadID := e.newLead(t, e.key)
	a, b := e.link(t, leadID), e.link(t, leadID)
	if a["survey_id"] != b["survey_id"] {
		t.Fatalf("second link started survey %v; want %v", b["survey_id"], a["survey_id"])
	}
	if a["capture_url"] == b["capture_url"] {
		t.Errorf("second link repeated the URL; want a fresh token")
	}
	for _, l := range []map[string]any{a, b} {
		if r := e.Do(t, "GET", capturePath(t, l["capture_url"].(string)), "", ""); r.Status != 200 {
			t.Errorf("capture page of %v: %d", l["capture_url"], r.Status)
		}
	}
}
