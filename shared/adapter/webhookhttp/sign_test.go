package webhookhttp

import (
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

func TestHeaderNamesAreTheLibrarys(t *testing.T) {
	if webhook.HeaderID != standardwebhooks.HeaderWebhookID || webhook.HeaderTimestamp != standardwebhooks.HeaderWebhookTimestamp ||
		webhook.HeaderSignature != standardwebhooks.HeaderWebhookSignature {
		t.Error("the domain's header names differ from the library's")
	}
}

// TestSignVerifiesWithTheLibrary: every signature verifies with the
// Standard Webhooks library's own verifier; during a rotation, with either
// secret; a wrong secret or a changed body does not.
func TestSignVerifiesWithTheLibrary(t *testing.T) {
	oldSecret, _ := webhook.NewSecret()
	newSecret, _ := webhook.NewSecret()
	if !strings.HasPrefix(newSecret, "whsec_") || len(newSecret) < len("whsec_")+32 {
		t.Fatalf("secret %q; want whsec_ and the base64 of at least 24 bytes", newSecret[:8])
	}
	now := time.Now()
	s := webhook.Secrets{Current: oldSecret}.Rotate(newSecret, now)
	payload := []byte(`{"type":"webhook.test","timestamp":"x","data":{}}`)
	h, err := Sign(s.Signing(now), webhook.MessageID("evt_1", "we_1"), now, payload)
	if err != nil {
		t.Fatal(err)
	}
	headers := http.Header{}
	for k, v := range h {
		headers.Set(k, v)
	}
	if got := len(strings.Fields(h[webhook.HeaderSignature])); got != 2 {
		t.Fatalf("signature header %q: %d signatures; want 2 during the rotation", h[webhook.HeaderSignature], got)
	}
	for _, secret := range []string{oldSecret, newSecret} {
		wh, _ := standardwebhooks.NewWebhook(secret)
		if err := wh.Verify(payload, headers); err != nil {
			t.Errorf("verify with one of the secrets: %v", err)
		}
	}
	stranger, _ := webhook.NewSecret()
	wh, _ := standardwebhooks.NewWebhook(stranger)
	if err := wh.Verify(payload, headers); err == nil {
		t.Error("a stranger's secret verifies")
	}
	wh, _ = standardwebhooks.NewWebhook(newSecret)
	if err := wh.Verify(append(payload, ' '), headers); err == nil {
		t.Error("a changed body verifies")
	}
	// After the overlap only the new secret signs.
	later := now.Add(webhook.RotationOverlap)
	if got := s.Signing(later); len(got) != 1 || got[0] != newSecret {
		t.Errorf("Signing after the overlap = %d secrets; want the new one only", len(got))
	}
	if _, err := Sign(nil, "id", now, payload); err != ErrNoSecret {
		t.Errorf("Sign without a secret = %v", err)
	}
}
