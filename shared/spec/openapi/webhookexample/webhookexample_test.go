package webhookexample

import (
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

func TestDeliveriesFollowTheCatalogue(t *testing.T) {
	ds, err := Deliveries()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != len(webhook.Catalogue) {
		t.Fatalf("%d deliveries; want one per catalogue type (%d)", len(ds), len(webhook.Catalogue))
	}
	for i, d := range ds {
		if d.Event.Type != webhook.Catalogue[i].Type {
			t.Errorf("delivery %d is %s; want %s (the catalogue's order)", i, d.Event.Type, webhook.Catalogue[i].Type)
		}
		if got, want := d.Headers[webhook.HeaderID], webhook.MessageID(d.Event.ID, EndpointID); got != want {
			t.Errorf("%s: webhook-id %q; want %q", d.Event.Type, got, want)
		}
		if !strings.HasPrefix(string(d.Body), `{"type":"`+string(d.Event.Type)+`","timestamp":"2026-11-23T16:42:07.123456Z","data":`) {
			t.Errorf("%s: body %s; want the Standard Webhooks envelope of its type at At", d.Event.Type, d.Body)
		}
	}
}

// TestSignaturesVerify: each example verifies with the Standard Webhooks
// library under Secret and no other secret; during a rotation, under both.
func TestSignaturesVerify(t *testing.T) {
	ds, err := Deliveries()
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := standardwebhooks.NewWebhook(Secret)
	next, _ := standardwebhooks.NewWebhook(NextSecret)
	for _, d := range ds {
		h := http.Header{}
		for k, v := range d.Headers {
			h.Set(k, v)
		}
		// The examples are signed at a fixed time, so the library's 5-minute
		// tolerance would refuse them now.
		if err := secret.VerifyIgnoringTimestamp(d.Body, h); err != nil {
			t.Errorf("%s: %v", d.Event.Type, err)
		}
		if err := next.VerifyIgnoringTimestamp(d.Body, h); err == nil {
			t.Errorf("%s verifies under NextSecret before the rotation", d.Event.Type)
		}
		sig, err := Rotation(d)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(strings.Fields(sig)); n != 2 {
			t.Errorf("rotation signature %q: %d signatures; want 2", sig, n)
		}
		h.Set(webhook.HeaderSignature, sig)
		for name, wh := range map[string]*standardwebhooks.Webhook{"Secret": secret, "NextSecret": next} {
			if err := wh.VerifyIgnoringTimestamp(d.Body, h); err != nil {
				t.Errorf("%s during the rotation, under %s: %v", d.Event.Type, name, err)
			}
		}
	}
}

// TestAtSurvivesStorage: events are stored with microseconds
// (lead.TimeLayout) and sent from storage, so At must keep no more.
func TestAtSurvivesStorage(t *testing.T) {
	back, err := time.Parse(lead.TimeLayout, lead.FormatTime(At))
	if err != nil || !back.Equal(At) {
		t.Errorf("At %v stored and read back is %v (%v); want it unchanged", At, back, err)
	}
	if !SentAt.After(At) {
		t.Error("SentAt is not after At")
	}
}
