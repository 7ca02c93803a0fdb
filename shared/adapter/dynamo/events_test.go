package dynamo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// TestTransitionWritesItsEvents: the events a survey's move owes are
// written in the move's own transaction: with it, or not at all.
func TestTransitionWritesItsEvents(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
	for _, to := range []survey.Status{survey.Recording, survey.Processing} {
		from := map[survey.Status]survey.Status{survey.Recording: survey.Invited, survey.Processing: survey.Recording}[to]
		if err := s.AdvanceSurvey(ctx, surveyTenant, record.SurveyTransition{LeadID: "lead_1", SurveyID: sv.ID, From: from, To: to, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	est := &estimate.Estimate{Min: 700, Max: 1100, Currency: "usd"}
	at := t0.Add(time.Minute)
	evs, err := webhook.SurveyEvents(string(surveyTenant.Mode), "lead_1", sv.ID, survey.InventoryReady, nil, est, at)
	if err != nil {
		t.Fatal(err)
	}
	tr := record.SurveyTransition{LeadID: "lead_1", SurveyID: sv.ID, From: survey.Processing, To: survey.InventoryReady, At: at, Recommended: est, Events: evs}

	t.Run("a failed move writes no event", func(t *testing.T) {
		stale := tr
		stale.From = survey.Recording
		if err := s.AdvanceSurvey(ctx, surveyTenant, stale); err == nil {
			t.Fatal("a move from a status the survey is not in succeeded")
		}
		for _, e := range evs {
			_, err := s.GetEvent(ctx, surveyTenant, e.ID)
			wantCode(t, err, errcode.NotFound)
		}
	})
	t.Run("an event of the other mode is refused before any write", func(t *testing.T) {
		wrong := tr
		wrong.Events = []webhook.Event{{ID: "evt_x", Type: webhook.SurveyCompleted, Mode: "live", At: at, Data: evs[0].Data}}
		if err := s.AdvanceSurvey(ctx, surveyTenant, wrong); !errors.Is(err, ErrBadTransition) {
			t.Fatalf("AdvanceSurvey = %v; want ErrBadTransition", err)
		}
	})
	if err := s.AdvanceSurvey(ctx, surveyTenant, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range evs {
		got, err := s.GetEvent(ctx, surveyTenant, want.ID)
		if err != nil || got.Type != want.Type || got.Mode != "test" || !got.At.Equal(at) || string(got.Data) != string(want.Data) {
			t.Errorf("event %s = %+v, %v; want %+v", want.ID, got, err, want)
		}
	}
	other := auth.Tenant{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}
	_, err = s.GetEvent(ctx, other, evs[0].ID)
	wantCode(t, err, errcode.NotFound)
}
