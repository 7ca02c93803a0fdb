package record

import "github.com/moveleads/partnerapi/shared/domain/lead"

// LeadRow is one row of the dashboard's leads list: the lead and what its
// item says about its latest survey, quote and deposit (no inventory).
type LeadRow struct {
	Lead   lead.Lead
	Survey LeadSurvey
}
