package openapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/openapi/webhookexample"
	"github.com/moveleads/partnerapi/shared/testkit/openapitest"
)

// webhookHeaders are the parameters every webhook declares, in order.
var webhookHeaders = []string{webhook.HeaderID, webhook.HeaderTimestamp, webhook.HeaderSignature}

// TestWebhooksMatchCatalogue: the document's webhooks are exactly the
// types of webhook.Catalogue, so a type added to the catalogue without
// being documented (or documented without being in it) fails here.
func TestWebhooksMatchCatalogue(t *testing.T) {
	doc := loadDoc(t)
	var types []webhook.Type
	for _, k := range webhook.Catalogue {
		types = append(types, k.Type)
	}
	for _, problem := range webhookDrift(doc, types) {
		t.Error(problem)
	}
}

// TestWebhookDriftIsCaught: webhookDrift reports a catalogue type the
// document lacks and a webhook the catalogue lacks.
func TestWebhookDriftIsCaught(t *testing.T) {
	doc := loadDoc(t)
	// The catalogue without webhook.test, plus a type it lacks.
	var types []webhook.Type
	for _, k := range webhook.Catalogue {
		if k.Type != webhook.Test {
			types = append(types, k.Type)
		}
	}
	got := webhookDrift(doc, append(types, "lead.created"))
	want := []string{`catalogue type "lead.created" has no webhook in the document`, `document has webhook "webhook.test"; webhook.Catalogue has no such type`}
	if !slices.Equal(got, want) {
		t.Errorf("webhookDrift = %q; want %q", got, want)
	}
}

// webhookDrift lists where doc's webhooks and the event types differ.
func webhookDrift(doc *openapi3.T, types []webhook.Type) []string {
	var out []string
	for _, ty := range types {
		if doc.Webhooks[string(ty)] == nil {
			out = append(out, fmt.Sprintf("catalogue type %q has no webhook in the document", ty))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Webhooks)) {
		if !slices.Contains(types, webhook.Type(name)) {
			out = append(out, fmt.Sprintf("document has webhook %q; webhook.Catalogue has no such type", name))
		}
	}
	return out
}

// TestWebhookOperations checks each webhook's contract: a POST only, no
// API key, the catalogue's When text, the three signature headers, a
// required JSON body whose "type" is the webhook's name, and the answers
// (2xx delivered, anything else retried).
func TestWebhookOperations(t *testing.T) {
	doc := loadDoc(t)
	for _, k := range webhook.Catalogue {
		t.Run(string(k.Type), func(t *testing.T) {
			item := doc.Webhooks[string(k.Type)]
			if item == nil {
				t.Fatal("not documented")
			}
			if ops := item.Operations(); len(ops) != 1 || item.Post == nil {
				t.Fatalf("operations %v; want POST only", slices.Sorted(maps.Keys(ops)))
			}
			op := item.Post
			if !strings.Contains(op.Description, "When: "+k.When+"\n") {
				t.Errorf("description does not say %q (webhook.Catalogue's When)", "When: "+k.When)
			}
			if op.Security == nil || len(*op.Security) != 0 {
				t.Errorf("security = %v; want none ([]): the service calls the partner, without an API key", op.Security)
			}
			var params []string
			for _, p := range op.Parameters {
				if p.Value.In != "header" || !p.Value.Required {
					t.Errorf("parameter %s in %s, required %v; want a required header", p.Value.Name, p.Value.In, p.Value.Required)
				}
				params = append(params, p.Value.Name)
			}
			if !slices.Equal(params, webhookHeaders) {
				t.Errorf("parameters %v; want %v", params, webhookHeaders)
			}
			rb := op.RequestBody
			if rb == nil || !rb.Value.Required || rb.Value.Content.Get("application/json") == nil {
				t.Fatal("want a required application/json request body")
			}
			s := rb.Value.Content.Get("application/json").Schema.Value
			if ty := s.Properties["type"]; ty == nil || !reflect.DeepEqual(ty.Value.Enum, []any{string(k.Type)}) {
				t.Errorf("body schema's type property does not admit exactly %q", k.Type)
			}
			if !slices.Equal(s.Required, []string{"type", "timestamp", "data"}) {
				t.Errorf("body schema requires %v; want the Standard Webhooks envelope [type timestamp data]", s.Required)
			}
			if got := slices.Sorted(maps.Keys(op.Responses.Map())); !slices.Equal(got, []string{"2XX", "default"}) {
				t.Errorf("responses %v; want 2XX (delivered) and default (retried)", got)
			}
		})
	}
}

// TestWebhookExamplesAreRealDeliveries: each webhook's example is the
// body the service would send (webhookexample builds it with the real
// payload code), and both validate against the webhook's schema.
func TestWebhookExamplesAreRealDeliveries(t *testing.T) {
	doc := loadDoc(t)
	v := openapitest.New(t)
	deliveries, err := webhookexample.Deliveries()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deliveries {
		t.Run(string(d.Event.Type), func(t *testing.T) {
			mt := doc.Webhooks[string(d.Event.Type)].Post.RequestBody.Value.Content.Get("application/json")
			if mt.Example == nil {
				t.Fatal("no example")
			}
			example, err := json.Marshal(mt.Example)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := decode(t, example), decode(t, d.Body); !reflect.DeepEqual(got, want) {
				t.Errorf("example\n%s\nwant what the service sends\n%s", example, d.Body)
			}
			v.CheckWebhook(t, httpHeader(d.Headers), d.Body)
			v.CheckWebhook(t, exampleHeaders(t, doc, d.Event.Type), example)
		})
	}
}

// TestWebhookHeaderExamples: the headers' examples are those of the
// survey.completed example, as signed with the example secret the
// document names, so partners can test their verifier on them.
func TestWebhookHeaderExamples(t *testing.T) {
	doc := loadDoc(t)
	deliveries, err := webhookexample.Deliveries()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(deliveries, func(d webhookexample.Delivery) bool { return d.Event.Type == webhook.SurveyCompleted })
	d := deliveries[i]
	h := exampleHeaders(t, doc, webhook.SurveyCompleted)
	for _, name := range webhookHeaders {
		if got, want := h.Get(name), d.Headers[name]; got != want {
			t.Errorf("%s example = %q; want %q", name, got, want)
		}
	}
	wh, err := standardwebhooks.NewWebhook(webhookexample.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.VerifyIgnoringTimestamp(d.Body, h); err != nil {
		t.Errorf("the example signature does not verify with the example secret: %v", err)
	}
	sig := doc.Components.Parameters["WebhookSignature"].Value
	if !strings.Contains(sig.Description, webhookexample.Secret) {
		t.Errorf("webhook-signature's description does not name the example secret %s", webhookexample.Secret)
	}
}

// TestCheckWebhook: the validator refuses deliveries that break the
// documented contract.
func TestCheckWebhook(t *testing.T) {
	v := openapitest.New(t)
	deliveries, err := webhookexample.Deliveries()
	if err != nil {
		t.Fatal(err)
	}
	byType := map[webhook.Type]webhookexample.Delivery{}
	for _, d := range deliveries {
		byType[d.Event.Type] = d
	}
	completed, failed, ready, test := byType[webhook.SurveyCompleted], byType[webhook.SurveyFailed], byType[webhook.EstimateReady], byType[webhook.Test]
	paid, booked, depositFailed, refunded := byType[webhook.DepositPaid], byType[webhook.LeadBooked], byType[webhook.DepositFailed], byType[webhook.DepositRefunded]
	replace := func(d webhookexample.Delivery, old, new string) string {
		if !strings.Contains(string(d.Body), old) {
			t.Fatalf("body %s lacks %q", d.Body, old)
		}
		return strings.Replace(string(d.Body), old, new, 1)
	}
	tests := []struct {
		name    string
		d       webhookexample.Delivery
		header  [2]string // name, value to set ("" removes it)
		body    string    // "" keeps d.Body
		wantErr string    // "" when it conforms
	}{
		{name: "survey.completed without an estimate", d: completed,
			body: replace(completed, `"recommended_estimate":{"min":1450,"max":2210,"currency":"usd"}`, `"recommended_estimate":null`)},
		{name: "two signatures (rotation)", d: completed, header: [2]string{webhook.HeaderSignature, completed.Headers[webhook.HeaderSignature] + " v1,QUJD"}},
		{name: "no webhook-id", d: completed, header: [2]string{webhook.HeaderID, ""}, wantErr: webhook.HeaderID},
		{name: "webhook-id without msg_", d: completed, header: [2]string{webhook.HeaderID, "evt_1"}, wantErr: webhook.HeaderID},
		{name: "no webhook-timestamp", d: failed, header: [2]string{webhook.HeaderTimestamp, ""}, wantErr: webhook.HeaderTimestamp},
		{name: "webhook-timestamp not seconds", d: failed, header: [2]string{webhook.HeaderTimestamp, "2026-11-23T16:42:09Z"}, wantErr: webhook.HeaderTimestamp},
		{name: "no webhook-signature", d: ready, header: [2]string{webhook.HeaderSignature, ""}, wantErr: webhook.HeaderSignature},
		{name: "signature without version", d: ready, header: [2]string{webhook.HeaderSignature, "c7KEcGMT0MYlOqCYqQ0wo8VPk"}, wantErr: webhook.HeaderSignature},
		{name: "unknown type", d: completed, body: replace(completed, `"type":"survey.completed"`, `"type":"lead.created"`), wantErr: "no documented webhook"},
		{name: "not JSON", d: completed, body: `{"type":`, wantErr: "no documented webhook"},
		{name: "survey.completed with status failed", d: completed, body: replace(completed, `"status":"inventory_ready"`, `"status":"failed"`), wantErr: "status"},
		{name: "survey.failed with an estimate", d: failed,
			body: replace(failed, `"recommended_estimate":null`, `"recommended_estimate":{"min":1,"max":2,"currency":"usd"}`), wantErr: "recommended_estimate"},
		{name: "estimate.ready without an estimate", d: ready,
			body: replace(ready, `"recommended_estimate":{"min":1450,"max":2210,"currency":"usd"}`, `"recommended_estimate":null`), wantErr: "recommended_estimate"},
		{name: "survey.completed without an inventory", d: completed,
			body: string(completed.Body[:strings.Index(string(completed.Body), `"inventory":{`)]) + `"inventory":null}}`, wantErr: "inventory"},
		{name: "survey.completed with the inventory in full", d: completed,
			body: replace(completed, `"total_cubic_feet":64}`, `"total_cubic_feet":64,"items":[]}`), wantErr: "items"},
		{name: "survey.completed detector status unknown", d: completed,
			body: replace(completed, `"status":"ok"`, `"status":"fine"`), wantErr: "status"},
		{name: "survey.failed with an inventory", d: failed,
			body: replace(failed, `"inventory":null`, `"inventory":{"item_count":0,"total_cubic_feet":0,"items_by_source":{"checklist":0,"detected":0},"rooms":[],"detector":null}`), wantErr: "inventory"},
		{name: "lead_id not a UUID", d: completed, body: replace(completed, `"lead_id":"`+webhookexample.LeadID+`"`, `"lead_id":"lead_1"`), wantErr: "lead_id"},
		{name: "mode unknown", d: completed, body: replace(completed, `"mode":"test"`, `"mode":"sandbox"`), wantErr: "mode"},
		{name: "extra property in data", d: completed, body: replace(completed, `"mode":"test"`, `"mode":"test","partner_id":"p1"`), wantErr: "partner_id"},
		{name: "extra envelope property", d: completed, body: replace(completed, `"type":"survey.completed"`, `"type":"survey.completed","id":"evt_1"`), wantErr: "id"},
		{name: "webhook.test without endpoint_id", d: test, body: replace(test, `"endpoint_id":"`+webhookexample.EndpointID+`",`, ""), wantErr: "endpoint_id"},
		{name: "webhook.test with a lead", d: test, body: replace(test, `"mode":"test"`, `"mode":"test","lead_id":"`+webhookexample.LeadID+`"`), wantErr: "lead_id"},
		{name: "deposit.paid without lead_status", d: paid, body: replace(paid, `,"lead_status":"booked"`, ""), wantErr: "lead_status"},
		{name: "lead.booked without paid_at", d: booked, body: replace(booked, `"paid_at":"2026-11-23T16:42:07.123456Z"`, `"paid_at":null`), wantErr: "paid_at"},
		{name: "deposit.failed with paid_at", d: depositFailed, body: replace(depositFailed, `"paid_at":null`, `"paid_at":"2026-11-23T16:42:07.123456Z"`), wantErr: "paid_at"},
		{name: "deposit.refunded with status paid", d: refunded, body: replace(refunded, `"status":"refunded"`, `"status":"paid"`), wantErr: "status"},
		{name: "deposit status checkout_open", d: depositFailed, body: replace(depositFailed, `"status":"failed"`, `"status":"checkout_open"`), wantErr: "status"},
		{name: "timestamp not RFC 3339", d: completed, body: replace(completed, `"2026-11-23T16:42:07.123456Z"`, `"1795452127"`), wantErr: "timestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := httpHeader(tt.d.Headers)
			if name := tt.header[0]; name != "" {
				if tt.header[1] == "" {
					h.Del(name)
				} else {
					h.Set(name, tt.header[1])
				}
			}
			body := tt.d.Body
			if tt.body != "" {
				body = []byte(tt.body)
			}
			rec := &recordingTB{TB: t}
			v.CheckWebhook(rec, h, body)
			if tt.wantErr == "" {
				if len(rec.errs) != 0 {
					t.Errorf("CheckWebhook reported %q; want no error", rec.errs)
				}
				return
			}
			if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], tt.wantErr) {
				t.Errorf("CheckWebhook reported %q; want one error mentioning %q", rec.errs, tt.wantErr)
			}
		})
	}
}

// exampleHeaders returns the examples of webhook ty's header parameters,
// with the JSON Content-Type.
func exampleHeaders(t *testing.T, doc *openapi3.T, ty webhook.Type) http.Header {
	t.Helper()
	h := http.Header{"Content-Type": {"application/json"}}
	for _, p := range doc.Webhooks[string(ty)].Post.Parameters {
		if p.Value.Example == nil {
			t.Fatalf("parameter %s has no example", p.Value.Name)
		}
		switch x := p.Value.Example.(type) {
		case float64: // a YAML number, as JSON decodes it
			h.Set(p.Value.Name, strconv.FormatFloat(x, 'f', -1, 64))
		default:
			h.Set(p.Value.Name, fmt.Sprint(x))
		}
	}
	return h
}

func httpHeader(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}
