package openapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/spec/openapi/webhookexample"
	"github.com/moveleads/partnerapi/shared/testkit/openapitest"
)

// recordingTB is a testing.TB whose Errorf is recorded instead of failing the
// test, so that a test can assert that Check reports a bad response. Every
// other method goes to the real test, so a Fatal inside Check still fails it.
type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

const (
	leadID    = "6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11"
	surveyID  = "3b0e6d2a-5f7c-4c1e-9a8b-2d4f6e8a0c1b"
	validLead = `{"lead_id":"` + leadID + `","status":"new","estimate":{"min":1800,"max":2400.5,"currency":"usd"}}`
	// captureURL is a capture link as getSurveyLink makes it: the public
	// base URL, /v1-capture/ and a 43-character base64url token.
	captureURL = "https://api.example.com/v1-capture/Zk3v9QeB1xYw7LmN2pRt5sUa8cDf0gHj4kMo6qSu_Xz"
)

// Bodies of the beta operations' answers (createQuote, createDeposit,
// getDeposit), as the service renders them.
const (
	depositID = "8d3b5f1a-2c4e-4f6a-9b8c-0d1e2f3a4b5c"
	quoteView = `{"quote_id":"4b0c3a52-9d7e-4d6f-8a1b-2c3d4e5f6a7b","quote_share_link_id":"7e2a9c4d-1b3f-4a5e-8c6d-9f0a1b2c3d4e",` +
		`"quote_url":"https://api.example.com/v1-quote/Pq4w8ZrT2yXb6NcV0mLk3JhG7fDs1aQe9uIo5tRy_Wn","lead_id":"` + leadID + `",` +
		`"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"currency":"usd",` +
		`"expires_at":"2026-12-07T16:42:07.123456Z","stage":"open","lead_status":"quoted"}`
	depositCreated = `{"deposit_id":"` + depositID + `","checkout_url":"https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8i9J0#fidkdWxOYHwnPyd1blpxYHZxWjA0","amount_cents":25000,"status":"checkout_open"}`
	depositStatus  = `{"deposit_id":"` + depositID + `","status":"paid","amount_cents":25000,"currency":"usd","checkout_url":null,` +
		`"paid_at":"2026-11-23T16:42:07.123456Z","lead_id":"` + leadID + `","created_at":"2026-11-23T16:30:01.000000Z"}`
)

// headers returns the headers of a response to an authenticated request,
// plus extra as name, value pairs.
func headers(extra ...string) http.Header {
	h := http.Header{
		"Content-Type":          {"application/json"},
		"X-Request-Id":          {"req-1"},
		"X-Ratelimit-Limit":     {"120"},
		"X-Ratelimit-Remaining": {"119"},
		"X-Ratelimit-Reset":     {"1767225660"},
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

func errorBody(code string) string {
	return `{"error":{"code":"` + code + `","message":"m","details":{}}}`
}

// leadDetail is a getLead body whose survey is in surveyStatus: with no
// survey id for "none", else surveyID, and a null inventory.
func leadDetail(surveyStatus, quote string) string {
	id := `"` + surveyID + `"`
	if surveyStatus == "none" {
		id = "null"
	}
	return `{"lead_id":"` + leadID + `","status":"quoted",` +
		`"survey":{"survey_id":` + id + `,"status":"` + surveyStatus + `","inventory":null},` +
		`"quote":` + quote + `,"deposit":{"deposit_id":null,"status":"none"},"recommended_estimate":null}`
}

// readyLead is a getLead body whose survey is inventory_ready with
// inventory (JSON), after replacing each old with new in it.
func readyLead(t *testing.T, inventory string, oldNew ...string) string {
	t.Helper()
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(inventory, oldNew[i]) {
			t.Fatalf("inventory %s lacks %q", inventory, oldNew[i])
		}
		inventory = strings.Replace(inventory, oldNew[i], oldNew[i+1], 1)
	}
	return strings.Replace(leadDetail("inventory_ready", "null"), `"inventory":null`, `"inventory":`+inventory, 1)
}

// realInventory is the example inventory as getLead renders it (in full)
// and as the webhooks render it (in brief).
func realInventory(t *testing.T) (detail, summary string) {
	t.Helper()
	d, err := json.Marshal(webhookexample.Inventory.Detail())
	if err != nil {
		t.Fatal(err)
	}
	s, err := json.Marshal(webhookexample.Inventory.Summary())
	if err != nil {
		t.Fatal(err)
	}
	return string(d), string(s)
}

// surveyLink is a getSurveyLink body with the given status and capture URL.
func surveyLink(status, url string) string {
	return `{"survey_id":"` + surveyID + `","capture_url":"` + url + `","status":"` + status + `","delivery":"link"}`
}

func TestCheck(t *testing.T) {
	v := openapitest.New(t)
	inv, invSummary := realInventory(t)
	partial := `"detector":{"name":"rekognition","status":"partial","frames_analyzed":3,"frames_failed":1,"error":"detector unavailable","clips_without_frames":["5f0c6a44-9a8e-4c1e-b8a4-2f7a3c1d9e01"]}`
	tests := []struct {
		name    string
		method  string
		path    string
		status  int
		header  http.Header
		body    string
		wantErr string // "" when the response conforms; else a substring of the reported error
	}{
		// createLead
		{name: "createLead valid", method: "POST", path: "/v1-leads", status: 200, header: headers(), body: validLead},
		{name: "createLead logical path valid", method: "POST", path: "/v1/leads", status: 200, header: headers(), body: validLead},
		{name: "createLead null estimate valid", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"` + leadID + `","status":"new","estimate":null}`},
		{name: "createLead null bounds valid", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"` + leadID + `","status":"new","estimate":{"min":null,"max":null,"currency":"usd"}}`},
		{name: "createLead replayed valid", method: "POST", path: "/v1-leads", status: 200,
			header: headers("Idempotent-Replayed", "true"), body: validLead},
		{name: "createLead replayed header not true", method: "POST", path: "/v1-leads", status: 200,
			header: headers("Idempotent-Replayed", "yes"), body: validLead, wantErr: "Idempotent-Replayed"},
		{name: "createLead missing lead_id", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"status":"new","estimate":null}`, wantErr: "lead_id"},
		{name: "createLead extra property", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"` + leadID + `","status":"new","estimate":null,"extra":1}`, wantErr: "extra"},
		{name: "createLead lead_id not uuid", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"lead-1","status":"new","estimate":null}`, wantErr: "uuid"},
		{name: "createLead status null", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"` + leadID + `","status":null,"estimate":null}`, wantErr: "status"},
		{name: "createLead status not in enum", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"` + leadID + `","status":"open","estimate":null}`, wantErr: "status"},
		{name: "createLead estimate min wrong type", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"` + leadID + `","status":"new","estimate":{"min":"1800","max":null,"currency":"usd"}}`, wantErr: "min"},
		{name: "createLead estimate uppercase currency", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"` + leadID + `","status":"new","estimate":{"min":1,"max":2,"currency":"USD"}}`, wantErr: "currency"},
		{name: "createLead estimate missing currency", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":"` + leadID + `","status":"new","estimate":{"min":1,"max":2}}`, wantErr: "currency"},
		{name: "createLead undocumented status 418", method: "POST", path: "/v1-leads", status: 418, header: headers(),
			body: validLead, wantErr: "status is not supported"},
		{name: "createLead undocumented status 404", method: "POST", path: "/v1-leads", status: 404, header: headers(),
			body: errorBody("not_found"), wantErr: "status is not supported"},
		{name: "createLead missing X-Request-Id", method: "POST", path: "/v1-leads", status: 200,
			header: headers("X-Request-Id", ""), body: validLead, wantErr: "X-Request-Id"},
		{name: "createLead rate-limit header not integer", method: "POST", path: "/v1-leads", status: 200,
			header: headers("X-RateLimit-Remaining", "many"), body: validLead, wantErr: "X-RateLimit-Remaining"},
		{name: "createLead not JSON content type", method: "POST", path: "/v1-leads", status: 200,
			header: headers("Content-Type", "text/plain"), body: validLead, wantErr: "Content-Type"},
		{name: "createLead body not JSON", method: "POST", path: "/v1-leads", status: 200, header: headers(),
			body: `{"lead_id":`, wantErr: "decode"},

		// error bodies
		{name: "error valid 422", method: "POST", path: "/v1-leads", status: 422, header: headers(),
			body: `{"error":{"code":"validation_failed","message":"m","details":{"fields":{"email":"invalid"}}}}`},
		{name: "error valid 409", method: "POST", path: "/v1/leads", status: 409, header: headers(), body: errorBody("idempotency_key_in_use")},
		{name: "error valid 401 without rate-limit headers", method: "POST", path: "/v1-leads", status: 401,
			header: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"r"}}, body: errorBody("invalid_api_key")},
		{name: "error valid 429", method: "GET", path: "/v1-leads-list", status: 429,
			header: headers("Retry-After", "17"), body: errorBody("rate_limited")},
		{name: "error 429 without Retry-After", method: "GET", path: "/v1-leads-list", status: 429,
			header: headers(), body: errorBody("rate_limited"), wantErr: "Retry-After"},
		{name: "error 403 without rate-limit headers", method: "GET", path: "/v1-leads-list", status: 403,
			header: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"r"}}, body: errorBody("insufficient_scope"), wantErr: "X-RateLimit"},
		{name: "error unknown code", method: "POST", path: "/v1-leads", status: 422, header: headers(),
			body: errorBody("bad_request"), wantErr: "code"},
		{name: "error code of another status", method: "POST", path: "/v1-leads", status: 422, header: headers(),
			body: errorBody("rate_limited"), wantErr: "code"},
		{name: "error missing details", method: "POST", path: "/v1-leads", status: 500, header: headers(),
			body: `{"error":{"code":"internal_error","message":"m"}}`, wantErr: "details"},
		{name: "error extra property in error", method: "POST", path: "/v1-leads", status: 502, header: headers(),
			body: `{"error":{"code":"upstream_failed","message":"m","details":{},"trace":"x"}}`, wantErr: "trace"},
		{name: "error extra top-level property", method: "POST", path: "/v1-leads", status: 502, header: headers(),
			body: `{"error":{"code":"upstream_failed","message":"m","details":{}},"status":502}`, wantErr: "status"},

		// listLeads
		{name: "listLeads valid", method: "GET", path: "/v1-leads-list?limit=2", status: 200, header: headers(),
			body: `{"data":[{"lead_id":"` + leadID + `","status":"booked","customer_name":"Ada","lead_source":null,` +
				`"estimate":null,"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05.123+01:00"}],` +
				`"next_cursor":"abc","has_more":true}`},
		{name: "listLeads logical path empty page valid", method: "GET", path: "/v1/leads", status: 200, header: headers(),
			body: `{"data":[],"next_cursor":null,"has_more":false}`},
		{name: "listLeads bad updated_at", method: "GET", path: "/v1-leads-list", status: 200, header: headers(),
			body: `{"data":[{"lead_id":"` + leadID + `","status":"booked","customer_name":null,"lead_source":null,` +
				`"estimate":null,"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02 03:04:05"}],` +
				`"next_cursor":null,"has_more":false}`, wantErr: "updated_at"},
		{name: "listLeads has_more null", method: "GET", path: "/v1-leads-list", status: 200, header: headers(),
			body: `{"data":[],"next_cursor":null,"has_more":null}`, wantErr: "has_more"},
		{name: "listLeads missing next_cursor", method: "GET", path: "/v1-leads-list", status: 200, header: headers(),
			body: `{"data":[],"has_more":false}`, wantErr: "next_cursor"},
		{name: "listLeads undocumented 409", method: "GET", path: "/v1/leads", status: 409, header: headers(),
			body: errorBody("idempotency_key_in_use"), wantErr: "status is not supported"},

		// getLead
		{name: "getLead valid", method: "GET", path: "/v1-lead-get/" + leadID, status: 200, header: headers(),
			body: leadDetail("inventory_ready", `{"quote_id":"q1","quote_share_link_id":"`+depositID+`","stage":null,"accepted_at":"2026-01-02T03:04:05Z","signed_at":null}`)},
		{name: "getLead logical path null quote valid", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: leadDetail("none", "null")},
		{name: "getLead 404 for non-uuid id valid", method: "GET", path: "/v1-lead-get/not-a-uuid", status: 404, header: headers(),
			body: errorBody("not_found")},
		{name: "getLead survey status bogus", method: "GET", path: "/v1-lead-get/" + leadID, status: 200, header: headers(),
			body: leadDetail("bogus", "null"), wantErr: "survey"},
		{name: "getLead quote missing quote_id", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: leadDetail("none", `{"stage":null,"accepted_at":null,"signed_at":null}`), wantErr: "quote"},
		{name: "getLead deposit status bogus", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: strings.Replace(leadDetail("none", "null"), `"deposit":{"deposit_id":null,"status":"none"}`, `"deposit":{"deposit_id":null,"status":"open"}`, 1), wantErr: "deposit"},
		{name: "getLead deposit with its id valid", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: strings.Replace(leadDetail("none", "null"), `"deposit":{"deposit_id":null,"status":"none"}`, `"deposit":{"deposit_id":"`+depositID+`","status":"pending"}`, 1)},
		{name: "getLead deposit missing deposit_id", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: strings.Replace(leadDetail("none", "null"), `"deposit_id":null,`, "", 1), wantErr: "deposit_id"},
		{name: "getLead quote missing quote_share_link_id", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: leadDetail("none", `{"quote_id":"q1","stage":null,"accepted_at":null,"signed_at":null}`), wantErr: "quote"},
		{name: "getLead recommended estimate valid", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: strings.Replace(leadDetail("inventory_ready", "null"), `"recommended_estimate":null`,
				`"recommended_estimate":{"min":1450,"max":2210,"currency":"usd"}`, 1)},
		{name: "getLead recommended estimate extra property", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: strings.Replace(leadDetail("inventory_ready", "null"), `"recommended_estimate":null`,
				`"recommended_estimate":{"min":1450,"max":2210,"currency":"usd","volume":540}`, 1), wantErr: "recommended_estimate"},
		{name: "getLead survey_id not uuid", method: "GET", path: "/v1-lead-get/" + leadID, status: 200, header: headers(),
			body: strings.Replace(leadDetail("invited", "null"), surveyID, "s1", 1), wantErr: "survey_id"},
		{name: "getLead survey missing survey_id", method: "GET", path: "/v1-lead-get/" + leadID, status: 200, header: headers(),
			body: strings.Replace(leadDetail("none", "null"), `"survey_id":null,`, "", 1), wantErr: "survey_id"},
		{name: "getLead survey missing inventory", method: "GET", path: "/v1-lead-get/" + leadID, status: 200, header: headers(),
			body: strings.Replace(leadDetail("invited", "null"), `,"inventory":null`, "", 1), wantErr: "inventory"},
		{name: "getLead inventory valid", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, inv)},
		{name: "getLead inventory with a partial detector valid", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, inv, `"detector":{"name":"rekognition","status":"ok","frames_analyzed":12,"frames_failed":0}`, partial)},
		{name: "getLead inventory without a detector valid", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, inv, `"detector":{"name":"rekognition","status":"ok","frames_analyzed":12,"frames_failed":0}`, `"detector":null`)},
		{name: "getLead empty inventory valid", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, `{"item_count":0,"total_cubic_feet":0,"items_by_source":{"checklist":0,"detected":0},"rooms":[],"detector":null}`)},
		{name: "getLead inventory in brief", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, invSummary), wantErr: "items"},
		{name: "getLead inventory item source bogus", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, inv, `"source":"checklist"`, `"source":"guessed"`), wantErr: "inventory"},
		{name: "getLead inventory item detected 0", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, inv, `"source":"checklist","detected":1}`, `"source":"checklist","detected":0}`), wantErr: "inventory"},
		{name: "getLead inventory item extra property", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, inv, `"source":"checklist"`, `"source":"checklist","confidence":0.9`), wantErr: "inventory"},
		{name: "getLead inventory missing items_by_source", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, inv, `"items_by_source":{"checklist":7,"detected":1},`, ""), wantErr: "inventory"},
		{name: "getLead inventory detector status bogus", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: readyLead(t, inv, `"status":"ok"`, `"status":"fine"`), wantErr: "inventory"},

		// getSurveyLink
		{name: "getSurveyLink valid", method: "POST", path: "/v1-lead-survey/" + leadID, status: 200, header: headers(),
			body: surveyLink("awaiting_recording", captureURL)},
		{name: "getSurveyLink logical path valid", method: "POST", path: "/v1/leads/" + leadID + "/video-survey", status: 200, header: headers(),
			body: surveyLink("recording", "http://127.0.0.1:3000/v1-capture/Zk3v9QeB1xYw7LmN2pRt5sUa8cDf0gHj4kMo6qSu_Xz")},
		{name: "getSurveyLink replayed valid", method: "POST", path: "/v1-lead-survey/" + leadID, status: 200,
			header: headers("Idempotent-Replayed", "true"), body: surveyLink("processing", captureURL)},
		{name: "getSurveyLink capture_url relative", method: "POST", path: "/v1-lead-survey/" + leadID, status: 200, header: headers(),
			body: surveyLink("awaiting_recording", "/v1-capture/abc"), wantErr: "capture_url"},
		{name: "getSurveyLink survey_id null", method: "POST", path: "/v1-lead-survey/" + leadID, status: 200, header: headers(),
			body: strings.Replace(surveyLink("awaiting_recording", captureURL), `"`+surveyID+`"`, "null", 1), wantErr: "survey_id"},
		{name: "getSurveyLink other delivery", method: "POST", path: "/v1-lead-survey/" + leadID, status: 200, header: headers(),
			body: strings.Replace(surveyLink("awaiting_recording", captureURL), `"delivery":"link"`, `"delivery":"sms"`, 1), wantErr: "delivery"},
		{name: "getSurveyLink missing status", method: "POST", path: "/v1-lead-survey/" + leadID, status: 200, header: headers(),
			body: `{"survey_id":"` + surveyID + `","capture_url":"` + captureURL + `","delivery":"link"}`, wantErr: "status"},
		{name: "getSurveyLink extra property", method: "POST", path: "/v1-lead-survey/" + leadID, status: 200, header: headers(),
			body: strings.Replace(surveyLink("awaiting_recording", captureURL), `{`, `{"token":"x",`, 1), wantErr: "token"},
		{name: "getSurveyLink 409 survey_closed valid", method: "POST", path: "/v1/leads/" + leadID + "/video-survey", status: 409, header: headers(),
			body: `{"error":{"code":"survey_closed","message":"m","details":{"survey_id":"` + surveyID + `"}}}`},
		{name: "getSurveyLink 409 idempotency_key_in_use valid", method: "POST", path: "/v1-lead-survey/" + leadID, status: 409, header: headers(),
			body: errorBody("idempotency_key_in_use")},
		{name: "getSurveyLink 404 valid", method: "POST", path: "/v1-lead-survey/not-a-uuid", status: 404, header: headers(),
			body: errorBody("not_found")},
		{name: "getSurveyLink 403 valid", method: "POST", path: "/v1-lead-survey/" + leadID, status: 403, header: headers(),
			body: errorBody("insufficient_scope")},
		{name: "getSurveyLink 422 valid", method: "POST", path: "/v1-lead-survey/" + leadID, status: 422, header: headers(),
			body: `{"error":{"code":"validation_failed","message":"m","details":{"fields":{"channel":"is not a field of this request"}}}}`},
		{name: "getSurveyLink link_expired is not a partner answer", method: "POST", path: "/v1-lead-survey/" + leadID, status: 410, header: headers(),
			body: errorBody("link_expired"), wantErr: "status is not supported"},
		{name: "createLead survey_closed is not its answer", method: "POST", path: "/v1-leads", status: 409, header: headers(),
			body: errorBody("survey_closed"), wantErr: "code"},
		{name: "getSurveyLink undocumented method", method: "GET", path: "/v1-lead-survey/" + leadID, status: 200, header: headers(),
			body: surveyLink("awaiting_recording", captureURL), wantErr: "no documented operation"},
		{name: "capture page is not partner API", method: "GET", path: "/v1-capture/Zk3v9QeB1xYw7LmN2pRt5sUa8cDf0gHj4kMo6qSu_Xz", status: 200, header: headers(),
			body: `{}`, wantErr: "no documented operation"},

		// createQuote, acceptQuote, createDeposit, getDeposit (beta)
		{name: "createQuote valid", method: "POST", path: "/v1-lead-quote/" + leadID, status: 200, header: headers(), body: quoteView},
		{name: "createQuote logical path replayed valid", method: "POST", path: "/v1/leads/" + leadID + "/quote", status: 200,
			header: headers("Idempotent-Replayed", "true"), body: quoteView},
		{name: "createQuote deposit_cents null", method: "POST", path: "/v1-lead-quote/" + leadID, status: 200, header: headers(),
			body: strings.Replace(quoteView, `"deposit_cents":25000`, `"deposit_cents":null`, 1), wantErr: "deposit_cents"},
		{name: "createQuote stage not open", method: "POST", path: "/v1-lead-quote/" + leadID, status: 200, header: headers(),
			body: strings.Replace(quoteView, `"stage":"open"`, `"stage":"accepted"`, 1), wantErr: "stage"},
		{name: "createQuote 403 beta_not_enabled valid", method: "POST", path: "/v1-lead-quote/" + leadID, status: 403, header: headers(),
			body: `{"error":{"code":"beta_not_enabled","message":"m","details":{"feature":"deposits"}}}`},
		{name: "createQuote 409 quote_already_accepted valid", method: "POST", path: "/v1/leads/" + leadID + "/quote", status: 409, header: headers(),
			body: errorBody("quote_already_accepted")},
		{name: "createQuote 409 no_quote is not its answer", method: "POST", path: "/v1-lead-quote/" + leadID, status: 409, header: headers(),
			body: errorBody("no_quote"), wantErr: "code"},
		{name: "acceptQuote valid", method: "POST", path: "/v1-accept/" + leadID, status: 200, header: headers(),
			body: `{"status":"signed","deposit_required":true}`},
		{name: "acceptQuote logical path valid", method: "POST", path: "/v1/leads/" + leadID + "/accept", status: 200, header: headers(),
			body: `{"status":"accepted","deposit_required":false}`},
		{name: "acceptQuote status open", method: "POST", path: "/v1-accept/" + leadID, status: 200, header: headers(),
			body: `{"status":"open","deposit_required":false}`, wantErr: "status"},
		{name: "acceptQuote 409 quote_expired valid", method: "POST", path: "/v1-accept/" + leadID, status: 409, header: headers(),
			body: `{"error":{"code":"quote_expired","message":"m","details":{"stage":"expired","expires_at":"2026-01-02T03:04:05Z"}}}`},
		{name: "acceptQuote 403 insufficient_scope valid", method: "POST", path: "/v1/leads/" + leadID + "/accept", status: 403, header: headers(),
			body: errorBody("insufficient_scope")},
		{name: "createDeposit valid", method: "POST", path: "/v1-deposits", status: 200, header: headers(), body: depositCreated},
		{name: "createDeposit logical path valid", method: "POST", path: "/v1/deposits", status: 200, header: headers(), body: depositCreated},
		{name: "createDeposit status pending", method: "POST", path: "/v1-deposits", status: 200, header: headers(),
			body: strings.Replace(depositCreated, `"checkout_open"`, `"pending"`, 1), wantErr: "status"},
		{name: "createDeposit 409 partner_not_eligible valid", method: "POST", path: "/v1-deposits", status: 409, header: headers(),
			body: `{"error":{"code":"partner_not_eligible","message":"m","details":{"missing":["stripe_account"]}}}`},
		{name: "createDeposit 409 no_deposit_required is the quote page's", method: "POST", path: "/v1/deposits", status: 409, header: headers(),
			body: errorBody("no_deposit_required"), wantErr: "code"},
		{name: "getDeposit valid", method: "GET", path: "/v1-deposit-status/" + depositID, status: 200, header: headers(), body: depositStatus},
		{name: "getDeposit logical path nulls valid", method: "GET", path: "/v1/deposits/" + depositID, status: 200, header: headers(),
			body: `{"deposit_id":"` + depositID + `","status":"unknown","amount_cents":null,"currency":"usd","checkout_url":null,"paid_at":null,"lead_id":null,"created_at":null}`},
		{name: "getDeposit 404 for non-uuid id valid", method: "GET", path: "/v1-deposit-status/not-a-uuid", status: 404, header: headers(),
			body: errorBody("not_found")},
		{name: "getDeposit status checkout_open", method: "GET", path: "/v1-deposit-status/" + depositID, status: 200, header: headers(),
			body: strings.Replace(depositStatus, `"status":"paid"`, `"status":"checkout_open"`, 1), wantErr: "status"},
		{name: "getDeposit missing checkout_url", method: "GET", path: "/v1/deposits/" + depositID, status: 200, header: headers(),
			body: strings.Replace(depositStatus, `"checkout_url":null,`, "", 1), wantErr: "checkout_url"},
		{name: "getLead quote stage expired valid", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: leadDetail("none", `{"quote_id":"`+depositID+`","quote_share_link_id":"`+depositID+`","stage":"expired","accepted_at":null,"signed_at":null}`)},
		{name: "getLead quote stage bogus", method: "GET", path: "/v1/leads/" + leadID, status: 200, header: headers(),
			body: leadDetail("none", `{"quote_id":"`+depositID+`","quote_share_link_id":"`+depositID+`","stage":"pending","accepted_at":null,"signed_at":null}`), wantErr: "quote"},
		{name: "quote page is not partner API", method: "GET", path: "/v1-quote/Zk3v9QeB1xYw7LmN2pRt5sUa8cDf0gHj4kMo6qSu_Xz", status: 200, header: headers(),
			body: `{}`, wantErr: "no documented operation"},
		{name: "Stripe webhook receiver is not partner API", method: "POST", path: "/stripe-webhook/test", status: 200, header: headers(),
			body: `{}`, wantErr: "no documented operation"},

		// routing
		{name: "unknown path", method: "GET", path: "/v1-unknown", status: 200, header: headers(), body: `{}`, wantErr: "no documented operation"},
		{name: "undocumented method", method: "DELETE", path: "/v1/leads", status: 200, header: headers(), body: `{}`, wantErr: "no documented operation"},
		{name: "pilot path with other method", method: "GET", path: "/v1-leads", status: 200, header: headers(), body: `{}`, wantErr: "no documented operation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // Check is documented as safe for concurrent use.
			rec := &recordingTB{TB: t}
			req := httptest.NewRequest(tt.method, tt.path, nil)
			v.Check(rec, req, tt.status, tt.header, []byte(tt.body))
			if tt.wantErr == "" {
				if len(rec.errs) != 0 {
					t.Errorf("Check reported %q; want no error", rec.errs)
				}
				return
			}
			if len(rec.errs) != 1 {
				t.Fatalf("Check reported %d errors %q; want 1 mentioning %q", len(rec.errs), rec.errs, tt.wantErr)
			}
			if !strings.Contains(rec.errs[0], tt.wantErr) {
				t.Errorf("Check reported %q; want it to mention %q", rec.errs[0], tt.wantErr)
			}
			// Every report names what was checked.
			for _, want := range []string{tt.method, req.URL.Path, fmt.Sprint(tt.status)} {
				if !strings.Contains(rec.errs[0], want) {
					t.Errorf("Check reported %q; want it to mention %q", rec.errs[0], want)
				}
			}
		})
	}
}

// TestCheckRealServer checks responses of a real HTTP server, reached by a
// real client at a local address that is not the document's server.
func TestCheckRealServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, vs := range headers() {
			w.Header()[k] = vs
		}
		if r.URL.Path != "/v1/leads/"+leadID {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, errorBody("not_found"))
			return
		}
		io.WriteString(w, leadDetail("invited", "null"))
	}))
	defer srv.Close()
	v := openapitest.New(t)

	for _, tt := range []struct {
		name    string
		path    string
		wantErr bool
	}{
		{name: "conforming 200", path: "/v1/leads/" + leadID},
		{name: "conforming 404", path: "/v1/leads/unknown"},
		{name: "404 on undocumented operation", path: "/v1/leads-missing", wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recordingTB{TB: t}
			v.Check(rec, req, resp.StatusCode, resp.Header, body)
			if got := len(rec.errs) != 0; got != tt.wantErr {
				t.Errorf("Check reported %q; want error: %v", rec.errs, tt.wantErr)
			}
		})
	}
}
