package leads

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestDetailSurvey: the lead detail's survey shows the inventory in full
// once the survey is inventory_ready, and null (never omitted) before.
func TestDetailSurvey(t *testing.T) {
	l := lead.Lead{ID: "6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11", Status: lead.Surveying, CreatedAt: time.Unix(0, 0), UpdatedAt: time.Unix(0, 0)}
	inv := &inventory.Inventory{Rooms: []inventory.Room{{Name: "Living room", Items: []inventory.Item{
		{Key: "sofa_3_seat", Name: "Sofa, 3 seats", Count: 2, CubicFeet: 35, Source: inventory.FromChecklist, Detected: 1}}}}}
	est := &estimate.Estimate{Min: 900, Max: 1400, Currency: "usd"}
	tests := []struct {
		name string
		ls   record.LeadSurvey
		want string // the survey object's JSON
	}{
		{"no survey", record.LeadSurvey{Status: survey.None},
			`{"survey_id":null,"status":"none","inventory":null}`},
		{"processing", record.LeadSurvey{SurveyID: "s1", Status: survey.Processing},
			`{"survey_id":"s1","status":"processing","inventory":null}`},
		{"failed", record.LeadSurvey{SurveyID: "s1", Status: survey.Failed},
			`{"survey_id":"s1","status":"failed","inventory":null}`},
		{"inventory_ready", record.LeadSurvey{SurveyID: "s1", Status: survey.InventoryReady, Inventory: inv, Recommended: est},
			`{"survey_id":"s1","status":"inventory_ready","inventory":{"item_count":2,"total_cubic_feet":70,` +
				`"items_by_source":{"checklist":2,"detected":0},"rooms":[{"name":"Living room","item_count":2,"total_cubic_feet":70,` +
				`"items":[{"key":"sofa_3_seat","name":"Sofa, 3 seats","count":2,"cubic_feet":35,"source":"checklist","detected":1}]}],"detector":null}}`},
		{"inventory_ready without a stored inventory", record.LeadSurvey{SurveyID: "s1", Status: survey.InventoryReady},
			`{"survey_id":"s1","status":"inventory_ready","inventory":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(detail(l, tt.ls, time.Unix(0, 0)))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"survey":`+tt.want+`,`) {
				t.Errorf("detail = %s; want survey %s", b, tt.want)
			}
		})
	}
}

// TestDetailQuoteAndDeposit: the lead detail shows the lead's current
// quote with its share link (null when none; an open quote past its expiry
// as expired) and its latest deposit's id and public status (null and
// "none" when none).
func TestDetailQuoteAndDeposit(t *testing.T) {
	l := lead.Lead{ID: "6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11", Status: lead.Quoted}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	accepted := time.Date(2026, 2, 20, 9, 30, 15, 123456000, time.UTC)
	open := &record.QuoteRef{QuoteID: "q1", ShareLinkID: "l1", Stage: quote.StageOpen, ExpiresAt: now.Add(time.Hour)}
	tests := []struct {
		name    string
		ls      record.LeadSurvey
		quote   string
		deposit string
	}{
		{"neither", record.LeadSurvey{Status: survey.None}, `null`, `{"deposit_id":null,"status":"none"}`},
		{"open quote", record.LeadSurvey{Status: survey.None, Quote: open},
			`{"quote_id":"q1","quote_share_link_id":"l1","stage":"open","accepted_at":null,"signed_at":null}`, `{"deposit_id":null,"status":"none"}`},
		{"expired quote", record.LeadSurvey{Status: survey.None, Quote: &record.QuoteRef{QuoteID: "q1", ShareLinkID: "l1", Stage: quote.StageOpen, ExpiresAt: now}},
			`{"quote_id":"q1","quote_share_link_id":"l1","stage":"expired","accepted_at":null,"signed_at":null}`, `{"deposit_id":null,"status":"none"}`},
		{"accepted quote, checkout open", record.LeadSurvey{Status: survey.None,
			Quote:   &record.QuoteRef{QuoteID: "q1", ShareLinkID: "l1", Stage: quote.StageAccepted, ExpiresAt: now.Add(-time.Hour), AcceptedAt: &accepted},
			Deposit: &record.DepositRef{DepositID: "d1", Status: deposit.CheckoutOpen}},
			`{"quote_id":"q1","quote_share_link_id":"l1","stage":"accepted","accepted_at":"2026-02-20T09:30:15.123456Z","signed_at":null}`, `{"deposit_id":"d1","status":"pending"}`},
		{"signed quote, paid", record.LeadSurvey{Status: survey.None,
			Quote:   &record.QuoteRef{QuoteID: "q1", ShareLinkID: "l1", Stage: quote.StageSigned, ExpiresAt: now, AcceptedAt: &accepted, SignedAt: &accepted},
			Deposit: &record.DepositRef{DepositID: "d1", Status: deposit.Paid}},
			`{"quote_id":"q1","quote_share_link_id":"l1","stage":"signed","accepted_at":"2026-02-20T09:30:15.123456Z","signed_at":"2026-02-20T09:30:15.123456Z"}`, `{"deposit_id":"d1","status":"paid"}`},
		{"disputed", record.LeadSurvey{Status: survey.None, Quote: open, Deposit: &record.DepositRef{DepositID: "d1", Status: deposit.Disputed}},
			`{"quote_id":"q1","quote_share_link_id":"l1","stage":"open","accepted_at":null,"signed_at":null}`, `{"deposit_id":"d1","status":"disputed"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(detail(l, tt.ls, now))
			if err != nil {
				t.Fatal(err)
			}
			if want := `"quote":` + tt.quote + `,"deposit":` + tt.deposit + `,`; !strings.Contains(string(b), want) {
				t.Errorf("detail = %s; want it to contain %s", b, want)
			}
		})
	}
}
