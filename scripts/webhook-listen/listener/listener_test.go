package listener

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// TestHandlerVerifies: a delivery the service signs verifies (204, printed
// as verified); a replay of it is flagged as a duplicate; a tampered body
// or another secret's signature does not (400, printed as not verifying).
func TestHandlerVerifies(t *testing.T) {
	secret, _ := webhook.NewSecret()
	other, _ := webhook.NewSecret()
	var out bytes.Buffer
	var seen []Received
	h, err := Handler(secret, &out, func(r Received) { seen = append(seen, r) })
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(`{"type":"survey.completed","timestamp":"2026-11-23T10:00:00Z","data":{"lead_id":"l1"}}`)
	post := func(secrets []string, body []byte) int {
		headers, err := webhookhttp.Sign(secrets, "msg_evt_1_we_1", time.Now(), payload)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", "/webhooks", bytes.NewReader(body))
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := post([]string{secret}, payload); code != http.StatusNoContent {
		t.Errorf("signed delivery: %d; want 204", code)
	}
	if code := post([]string{secret}, payload); code != http.StatusNoContent {
		t.Errorf("the same delivery again: %d; want 204", code)
	}
	if code := post([]string{secret}, bytes.Replace(payload, []byte("l1"), []byte("l2"), 1)); code != http.StatusBadRequest {
		t.Errorf("tampered body: %d; want 400", code)
	}
	if code := post([]string{other}, payload); code != http.StatusBadRequest {
		t.Errorf("another secret's signature: %d; want 400", code)
	}
	if code := post([]string{other, secret}, payload); code != http.StatusNoContent {
		t.Errorf("signed by both secrets of a rotation: %d; want 204", code)
	}
	if len(seen) != 5 || !seen[0].Verified || seen[0].Duplicate || !seen[1].Duplicate || seen[2].Verified || seen[3].Verified || seen[0].Type != "survey.completed" {
		t.Errorf("seen = %+v", seen)
	}
	text := out.String()
	for _, want := range []string{"survey.completed", "msg_evt_1_we_1  signature verified", "duplicate webhook-id", "SIGNATURE DOES NOT VERIFY", `"lead_id": "l1"`} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, secret) {
		t.Error("output shows the signing secret")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/webhooks", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d; want 405", rec.Code)
	}
}
