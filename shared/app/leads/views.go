package leads

import (
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// The JSON shapes of the spec ("Resources and their fields"). Nullable
// fields are pointers so that they render as null, never omitted.

// CreateLeadView is createLead's answer (the spec's Lead creation
// response).
type CreateLeadView struct {
	LeadID   string             `json:"lead_id"`
	Status   lead.Status        `json:"status"`
	Estimate *estimate.Estimate `json:"estimate"`
}

func createView(l lead.Lead) CreateLeadView {
	return CreateLeadView{LeadID: l.ID, Status: l.Status, Estimate: l.Estimate}
}

type summaryView struct {
	LeadID       string             `json:"lead_id"`
	Status       lead.Status        `json:"status"`
	CustomerName *string            `json:"customer_name"`
	LeadSource   *string            `json:"lead_source"`
	Estimate     *estimate.Estimate `json:"estimate"`
	CreatedAt    string             `json:"created_at"`
	UpdatedAt    string             `json:"updated_at"`
}

func summary(l lead.Lead) summaryView {
	return summaryView{
		LeadID: l.ID, Status: l.Status,
		CustomerName: nullable(l.CustomerName), LeadSource: nullable(l.Source),
		Estimate:  l.Estimate,
		CreatedAt: lead.FormatTime(l.CreatedAt), UpdatedAt: lead.FormatTime(l.UpdatedAt),
	}
}

func listOf(p Page) ListView {
	v := ListView{Data: make([]summaryView, len(p.Leads)), NextCursor: p.NextCursor, HasMore: p.NextCursor != nil}
	for i, l := range p.Leads {
		v.Data[i] = summary(l)
	}
	return v
}

// ListView is listLeads' answer (the spec's Lead list response).
type ListView struct {
	Data       []summaryView `json:"data"`
	NextCursor *string       `json:"next_cursor"`
	HasMore    bool          `json:"has_more"`
}

// surveyView is the lead detail's survey. Inventory is null until the
// survey is inventory_ready, then the inventory in full.
type surveyView struct {
	SurveyID  *string           `json:"survey_id"`
	Status    string            `json:"status"`
	Inventory *inventory.Detail `json:"inventory"`
}

type quoteView struct {
	QuoteID string `json:"quote_id"`
	// QuoteShareLinkID is what createDeposit takes with the lead.
	QuoteShareLinkID string  `json:"quote_share_link_id"`
	Stage            *string `json:"stage"`
	AcceptedAt       *string `json:"accepted_at"`
	SignedAt         *string `json:"signed_at"`
}

// depositView names the latest deposit (null when none), however it was
// started (createDeposit or the quote page), for getDeposit.
type depositView struct {
	DepositID *string `json:"deposit_id"`
	Status    string  `json:"status"`
}

// DetailView is getLead's answer (the spec's Lead detail).
type DetailView struct {
	LeadID              string             `json:"lead_id"`
	Status              lead.Status        `json:"status"`
	Survey              surveyView         `json:"survey"`
	Quote               *quoteView         `json:"quote"`
	Deposit             depositView        `json:"deposit"`
	RecommendedEstimate *estimate.Estimate `json:"recommended_estimate"`
}

// detail renders a lead at now with its latest survey (its inventory once
// it is inventory_ready), the recommended estimate that survey produced,
// its current quote (null when none; its stage as of now, so an open quote
// past its expiry is expired; with its share link) and its latest
// deposit's id and public status (null and "none" when none).
func detail(l lead.Lead, ls record.LeadSurvey, now time.Time) DetailView {
	sv := surveyView{Status: string(survey.None)}
	if ls.SurveyID != "" {
		sv = surveyView{SurveyID: &ls.SurveyID, Status: string(ls.Status)}
	}
	if ls.Status == survey.InventoryReady && ls.Inventory != nil {
		d := ls.Inventory.Detail()
		sv.Inventory = &d
	}
	dv := depositView{Status: string(deposit.PublicNone)}
	if ls.Deposit != nil {
		dv.DepositID, dv.Status = &ls.Deposit.DepositID, string(ls.Deposit.Status.PublicStatus())
	}
	return DetailView{
		LeadID: l.ID, Status: l.Status,
		Survey:              sv,
		Quote:               quoteOf(ls.Quote, now),
		Deposit:             dv,
		RecommendedEstimate: ls.Recommended,
	}
}

// quoteOf renders the lead's current quote ref at now; nil (null) when
// the lead has none.
func quoteOf(ref *record.QuoteRef, now time.Time) *quoteView {
	if ref == nil {
		return nil
	}
	sum := ref.Summary(now)
	stage := string(sum.Stage)
	return &quoteView{QuoteID: sum.QuoteID, QuoteShareLinkID: ref.ShareLinkID, Stage: &stage, AcceptedAt: nullableTime(sum.AcceptedAt), SignedAt: nullableTime(sum.SignedAt)}
}

func nullableTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := lead.FormatTime(*t)
	return &s
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
