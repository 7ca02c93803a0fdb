// Package webhookexample builds the example deliveries that the partner
// docs show (the OpenAPI document's webhooks, docs/WEBHOOKS.md, the
// README) from the code that builds real ones: webhook.SurveyEvents and
// webhook.DepositEvents for the data, Event.Payload for the body,
// webhookhttp.Sign for the headers.
// Fixed inputs make them reproducible, so tests can check that each
// published example is exactly what the service would send, and docgen can
// print them byte for byte.
package webhookexample

import (
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// The fixed inputs of the examples. The ids are those of the OpenAPI
// document's other examples.
const (
	LeadID = "6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11"
	// SurveyID is the survey that completes (survey.completed,
	// estimate.ready).
	SurveyID = "3b0e6d2a-5f7c-4c1e-9a8b-2d4f6e8a0c1b"
	// FailedSurveyID is the survey that fails (survey.failed).
	FailedSurveyID = "c2d4e6f8-1a3b-4c5d-8e9f-0a1b2c3d4e5f"
	// DepositID is the deposit that is paid at At (deposit.paid,
	// lead.booked).
	DepositID = "8d3b5f1a-2c4e-4f6a-9b8c-0d1e2f3a4b5c"
	// FailedDepositID is the deposit whose checkout expires unpaid
	// (deposit.failed).
	FailedDepositID = "e5f7a9b1-3c5d-4e7f-8a9b-1c3d5e7f9a0b"
	// SettledDepositID is a deposit paid at PaidBefore, then refunded
	// (deposit.refunded) or disputed (deposit.disputed) at At.
	SettledDepositID = "a1c3e5f7-9b2d-4f6a-8c0e-2b4d6f8a0c1e"
	// QuoteShareLinkID is the quote share link the examples' deposits are
	// for.
	QuoteShareLinkID = "7e2a9c4d-1b3f-4a5e-8c6d-9f0a1b2c3d4e"
	// DepositCents is the examples' deposit amount, in cents of
	// DepositCurrency.
	DepositCents = 25000
	// DepositCurrency is the examples' deposits' currency.
	DepositCurrency = "usd"
	// EndpointID is the partner's endpoint the examples are sent to.
	EndpointID = webhook.EndpointPrefix + "4f9a1c2b3d4e5f6a7b8c9d0e"
	// Secret is the endpoint's signing secret: the Standard Webhooks Go
	// library's own example secret, never one of a real endpoint.
	Secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	// NextSecret is the secret a rotation example moves to.
	NextSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
	// Mode is the examples' mode.
	Mode = auth.Test
)

// At is when the examples' events happen (the payload's timestamp). It
// has whole microseconds, the precision events are stored with
// (lead.TimeLayout), so the stored event's payload is this one.
var At = time.Date(2026, 11, 23, 16, 42, 7, 123456000, time.UTC)

// SentAt is when the examples are sent (the webhook-timestamp header):
// the first attempt, a moment after the event.
var SentAt = At.Add(2 * time.Second)

// PaidBefore is when SettledDepositID was paid: three days before At.
var PaidBefore = At.Add(-72 * time.Hour)

// Recommended is the completed survey's recommended estimate.
var Recommended = estimate.Estimate{Min: 1450, Max: 2210, Currency: "usd"}

// Inventory is the completed survey's inventory: the customer's checklist
// with one item only the detector found, each item as the cube sheet
// names it.
var Inventory = inventory.Inventory{
	Rooms: []inventory.Room{
		{Name: "Living room", Items: []inventory.Item{
			item("sofa_3_seat", 1, inventory.FromChecklist, 1),
			item("armchair", 1, inventory.FromChecklist, 0),
			item("tv_medium", 1, inventory.FromDetector, 1),
		}},
		{Name: "Bedroom", Items: []inventory.Item{
			item("bed_queen", 1, inventory.FromChecklist, 1),
			item("dresser", 1, inventory.FromChecklist, 0),
			item("box_medium", 3, inventory.FromChecklist, 0),
		}},
	},
	Detector: &inventory.DetectorReport{Name: "rekognition", Status: inventory.DetectorOK, FramesAnalyzed: 12},
}

// item is count of the cube sheet's key from source, detected seen by the
// detector. An unknown key panics: the examples are fixed.
func item(key string, count int, source inventory.Source, detected int) inventory.Item {
	e, ok := inventory.Lookup(key)
	if !ok {
		panic("webhookexample: no cube sheet entry " + key)
	}
	return inventory.Item{Key: key, Name: e.Name, Count: count, CubicFeet: e.Volume.CubicFeet(), Source: source, Detected: detected}
}

// Delivery is one example delivery, as the endpoint receives it.
type Delivery struct {
	Event webhook.Event
	// Body is the request body, byte for byte.
	Body []byte
	// Headers are the request's Standard Webhooks headers (and its
	// Content-Type), signed with Secret.
	Headers map[string]string
}

// Deliveries returns one example delivery per type of webhook.Catalogue,
// in its order. A catalogue type without an example is an error, so a new
// type cannot reach the docs undocumented.
func Deliveries() ([]Delivery, error) {
	events, err := Events()
	if err != nil {
		return nil, err
	}
	byType := map[webhook.Type]webhook.Event{}
	for _, e := range events {
		byType[e.Type] = e
	}
	out := make([]Delivery, 0, len(webhook.Catalogue))
	for _, k := range webhook.Catalogue {
		e, ok := byType[k.Type]
		if !ok {
			return nil, fmt.Errorf("webhookexample: no example event of type %s", k.Type)
		}
		body, err := e.Payload()
		if err != nil {
			return nil, err
		}
		h, err := webhookhttp.Sign([]string{Secret}, webhook.MessageID(e.ID, EndpointID), SentAt, body)
		if err != nil {
			return nil, err
		}
		out = append(out, Delivery{Event: e, Body: body, Headers: h})
	}
	return out, nil
}

// Events returns the examples' events: those a survey that reaches
// inventory_ready with Inventory and a recommended estimate owes, those a
// survey that fails owes, those the deposits' changes owe, and a
// webhook.test.
func Events() ([]webhook.Event, error) {
	done, err := webhook.SurveyEvents(string(Mode), LeadID, SurveyID, survey.InventoryReady, &Inventory, &Recommended, At)
	if err != nil {
		return nil, err
	}
	failed, err := webhook.SurveyEvents(string(Mode), LeadID, FailedSurveyID, survey.Failed, nil, nil, At)
	if err != nil {
		return nil, err
	}
	deposits, err := depositEvents()
	if err != nil {
		return nil, err
	}
	return append(append(append(done, failed...), deposits...), testEvent()), nil
}

// depositEvents returns the events the examples' deposits owe at At: one
// paid (deposit.paid, lead.booked), one whose checkout expires
// (deposit.failed), and one paid at PaidBefore that is refunded
// (deposit.refunded) or, instead, disputed (deposit.disputed).
func depositEvents() ([]webhook.Event, error) {
	open := func(id string) deposit.Deposit {
		created := At.Add(-15 * time.Minute)
		return deposit.Deposit{
			ID: id, PartnerID: "ptn_example", LeadID: LeadID, QuoteShareLinkID: QuoteShareLinkID, Status: deposit.CheckoutOpen,
			AmountCents: DepositCents, Currency: DepositCurrency,
			CheckoutURL: "https://checkout.stripe.com/c/pay/cs_test_example", CheckoutExpiresAt: created.Add(24 * time.Hour),
			CreatedAt: created,
		}
	}
	settled := open(SettledDepositID)
	settled.CreatedAt = PaidBefore.Add(-15 * time.Minute)
	settled.Status, settled.CheckoutURL, settled.PaidAt = deposit.Paid, "", PaidBefore
	steps := []struct {
		d deposit.Deposit
		e deposit.Event
	}{
		{open(DepositID), deposit.EventPaid},
		{open(FailedDepositID), deposit.EventExpired},
		{settled, deposit.EventRefunded},
		{settled, deposit.EventDisputed},
	}
	var out []webhook.Event
	for _, s := range steps {
		// As shared/app/deposits applies an event: the lead is booked when
		// the change collects the money.
		d := s.d
		tr, err := d.Apply(s.e, At)
		if err != nil {
			return nil, err
		}
		leadStatus := ""
		if tr.Books() {
			leadStatus = string(lead.Booked)
		}
		events, err := webhook.DepositEvents(string(Mode), d, tr, leadStatus, At)
		if err != nil {
			return nil, err
		}
		out = append(out, events...)
	}
	return out, nil
}

// testEvent is the webhook.test an operator sends to EndpointID with
// opctl webhook test, built by the same function.
func testEvent() webhook.Event {
	return webhook.TestEvent("evt_test_5c1d9e0a7b3f2468", webhook.Endpoint{ID: EndpointID, Tenant: auth.Tenant{PartnerID: "ptn_example", Mode: Mode}}, At)
}

// Rotation returns the signature header of d during a rotation from
// Secret to NextSecret: both sign, the new one first.
func Rotation(d Delivery) (string, error) {
	h, err := webhookhttp.Sign(webhook.Secrets{Current: Secret}.Rotate(NextSecret, SentAt).Signing(SentAt),
		d.Headers[webhook.HeaderID], SentAt, d.Body)
	if err != nil {
		return "", err
	}
	return h[webhook.HeaderSignature], nil
}
