package webhook

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// SurveyData is the data of the survey events: the ids, the mode, what
// getLead shows of the survey (its id and status) and of the recommended
// estimate (the Estimate shape), and the survey's inventory in brief
// (getLead's survey.inventory has it in full).
type SurveyData struct {
	LeadID              string             `json:"lead_id"`
	SurveyID            string             `json:"survey_id"`
	Mode                string             `json:"mode"`
	Survey              SurveyRef          `json:"survey"`
	RecommendedEstimate *estimate.Estimate `json:"recommended_estimate"`
	// Inventory is the inventory's summary when the survey is
	// inventory_ready; null for survey.failed.
	Inventory *inventory.Summary `json:"inventory"`
}

// SurveyRef is getLead's survey object.
type SurveyRef struct {
	SurveyID string `json:"survey_id"`
	Status   string `json:"status"`
}

// SurveyEvents returns the events a survey's move to status at at owes
// (none for a status that owes none): inventory_ready owes
// survey.completed, and estimate.ready too when recommended is set; failed
// owes survey.failed. Their data carry inv's summary when status is
// inventory_ready and inv is set (null otherwise). Their ids are derived
// from the survey and the type, so the events of one transition are the
// same however often they are computed (a survey reaches a final status
// once).
func SurveyEvents(mode, leadID, surveyID string, status survey.Status, inv *inventory.Inventory, recommended *estimate.Estimate, at time.Time) ([]Event, error) {
	var types []Type
	switch status {
	case survey.InventoryReady:
		types = []Type{SurveyCompleted}
		if recommended != nil {
			types = append(types, EstimateReady)
		}
	case survey.Failed:
		types = []Type{SurveyFailed}
	default:
		return nil, nil
	}
	d := SurveyData{
		LeadID: leadID, SurveyID: surveyID, Mode: mode,
		Survey: SurveyRef{SurveyID: surveyID, Status: string(status)}, RecommendedEstimate: recommended,
	}
	if status == survey.InventoryReady && inv != nil {
		sum := inv.Summary()
		d.Inventory = &sum
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("webhook: survey event data: %w", err)
	}
	out := make([]Event, 0, len(types))
	for _, t := range types {
		out = append(out, Event{ID: "evt_" + surveyID + "_" + string(t), Type: t, Mode: mode, At: at, Data: data, LeadID: leadID})
	}
	return out, nil
}
