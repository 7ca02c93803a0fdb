package dynamo

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// gsi1SK returns the stored listing position of tn's lead id.
func gsi1SK(t testing.TB, s *Store, tn auth.Tenant, id string) string {
	t.Helper()
	pk, sk := leadKey(tn, id)
	v, _ := rawItem(t, s, pk, sk)[table.GSI1.SK].(*types.AttributeValueMemberS)
	if v == nil {
		t.Fatalf("lead %s has no %s", id, table.GSI1.SK)
	}
	return v.Value
}

func TestAdvanceSurveyMovesTheLead(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
	inv := &inventory.Inventory{Rooms: []inventory.Room{{Name: "Kitchen", Items: []inventory.Item{
		{Key: "refrigerator", Name: "Refrigerator", Count: 1, CubicFeet: 45, Source: inventory.FromChecklist}}}}}
	est := &estimate.Estimate{Min: 700, Max: 1100, Currency: "usd"}
	steps := []record.SurveyTransition{
		{From: survey.Invited, To: survey.Recording},
		{From: survey.Recording, To: survey.Processing},
		{From: survey.Processing, To: survey.InventoryReady, Inventory: inv, Recommended: est},
	}
	for i, tr := range steps {
		at := t0.Add(time.Duration(i+1) * time.Minute)
		tr.LeadID, tr.SurveyID, tr.At = "lead_1", sv.ID, at
		t.Run(string(tr.To), func(t *testing.T) {
			if ids := listedSince(t, s, surveyTenant, at); len(ids) != 0 {
				t.Fatalf("listed since %s before the transition: %v; want none", at, ids)
			}
			if err := s.AdvanceSurvey(ctx, surveyTenant, tr); err != nil {
				t.Fatalf("AdvanceSurvey: %v", err)
			}
			if ids := listedSince(t, s, surveyTenant, at); !reflect.DeepEqual(ids, []string{"lead_1"}) {
				t.Errorf("listed since %s = %v; want [lead_1]", at, ids)
			}
			if got, want := gsi1SK(t, s, surveyTenant, "lead_1"), lead.FormatTime(at)+"#lead_1"; got != want {
				t.Errorf("gsi1sk = %q; want %q", got, want)
			}
			l, ls := leadView(t, s, surveyTenant, "lead_1")
			if !l.UpdatedAt.Equal(at) || ls.SurveyID != sv.ID || ls.Status != tr.To || l.Status != lead.Surveying {
				t.Errorf("lead updated_at %s, survey %s %s, status %s; want %s, %s %s, surveying", l.UpdatedAt, ls.SurveyID, ls.Status, l.Status, at, sv.ID, tr.To)
			}
			rec, err := s.GetSurvey(ctx, surveyTenant, sv.ID)
			if err != nil || rec.Status != tr.To || !rec.UpdatedAt.Equal(at) {
				t.Errorf("survey status %s updated_at %s (%v); want %s, %s", rec.Status, rec.UpdatedAt, err, tr.To, at)
			}
			if tr.To == survey.InventoryReady {
				if !reflect.DeepEqual(rec.Inventory, inv) || !reflect.DeepEqual(rec.Recommended, est) || !reflect.DeepEqual(ls.Recommended, est) {
					t.Errorf("survey inventory %+v estimate %+v, lead estimate %+v; want %+v, %+v", rec.Inventory, rec.Recommended, ls.Recommended, inv, est)
				}
			}
		})
	}
}

func TestAdvanceSurveyChangesNothingOutOfOrder(t *testing.T) {
	ctx := context.Background()
	type setup struct {
		s  *Store
		sv survey.Survey
	}
	// processing: a survey moved invited → recording → processing.
	processing := func(t *testing.T) setup {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
		advanceAll(t, s, surveyTenant, sv, survey.Processing, t0.Add(time.Minute))
		return setup{s, sv}
	}
	failed := func(t *testing.T) setup {
		st := processing(t)
		tr := record.SurveyTransition{LeadID: "lead_1", SurveyID: st.sv.ID, From: survey.Processing, To: survey.Failed, At: t0.Add(time.Hour), FailureReason: "no playable clip: 1 never uploaded"}
		if err := st.s.AdvanceSurvey(ctx, surveyTenant, tr); err != nil {
			t.Fatal(err)
		}
		if rec, _ := st.s.GetSurvey(ctx, surveyTenant, st.sv.ID); rec.FailureReason != tr.FailureReason {
			t.Fatalf("failure reason %q; want %q", rec.FailureReason, tr.FailureReason)
		}
		return setup{st.s, st.sv}
	}
	later := t0.Add(2 * time.Hour)
	live := auth.Tenant{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}
	tests := []struct {
		name   string
		setup  func(*testing.T) setup
		tenant auth.Tenant
		from   survey.Status
		to     survey.Status
		code   errcode.Code // "" for a refusal before any write
		cause  error
	}{
		{"duplicate finish", processing, surveyTenant, survey.Recording, survey.Processing, errcode.Conflict, ErrChanged},
		{"late upload start", processing, surveyTenant, survey.Invited, survey.Recording, errcode.Conflict, ErrChanged},
		{"backwards", processing, surveyTenant, survey.Processing, survey.Recording, "", ErrBadTransition},
		{"sideways", processing, surveyTenant, survey.Processing, survey.Processing, "", ErrBadTransition},
		{"replayed ready after failed", failed, surveyTenant, survey.Processing, survey.InventoryReady, errcode.Conflict, ErrChanged},
		{"out of a final state", failed, surveyTenant, survey.Failed, survey.InventoryReady, "", ErrBadTransition},
		{"other mode", processing, live, survey.Processing, survey.Failed, errcode.NotFound, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.setup(t)
			beforeLead, beforeSurvey := leadSnapshot(t, st.s), surveySnapshot(t, st.s, st.sv.ID)
			tr := record.SurveyTransition{LeadID: "lead_1", SurveyID: st.sv.ID, From: tt.from, To: tt.to, At: later}
			err := st.s.AdvanceSurvey(ctx, tt.tenant, tr)
			switch {
			case tt.code == "" && !errors.Is(err, tt.cause):
				t.Fatalf("AdvanceSurvey = %v; want %v", err, tt.cause)
			case tt.code != "" && tt.cause != nil:
				wantCause(t, err, tt.code, tt.cause)
			case tt.code != "":
				wantCode(t, err, tt.code)
			}
			if got := leadSnapshot(t, st.s); !reflect.DeepEqual(got, beforeLead) {
				t.Errorf("lead item changed:\n%v\nwant\n%v", got, beforeLead)
			}
			if got := surveySnapshot(t, st.s, st.sv.ID); !reflect.DeepEqual(got, beforeSurvey) {
				t.Errorf("survey item changed:\n%v\nwant\n%v", got, beforeSurvey)
			}
		})
	}
	t.Run("another lead's survey", func(t *testing.T) {
		st := processing(t)
		putLeadIn(t, st.s, surveyTenant, "lead_2", lead.New)
		pk, sk := leadKey(surveyTenant, "lead_2")
		before := rawItem(t, st.s, pk, sk)
		tr := record.SurveyTransition{LeadID: "lead_2", SurveyID: st.sv.ID, From: survey.Processing, To: survey.Failed, At: later}
		wantCause(t, st.s.AdvanceSurvey(ctx, surveyTenant, tr), errcode.Conflict, ErrChanged)
		if got := rawItem(t, st.s, pk, sk); !reflect.DeepEqual(got, before) {
			t.Errorf("lead_2 changed:\n%v\nwant\n%v", got, before)
		}
		if rec, _ := st.s.GetSurvey(ctx, surveyTenant, st.sv.ID); rec.Status != survey.Processing {
			t.Errorf("survey status %s; want processing (nothing written)", rec.Status)
		}
	})
	t.Run("fields that do not belong", func(t *testing.T) {
		st := processing(t)
		tr := record.SurveyTransition{LeadID: "lead_1", SurveyID: st.sv.ID, From: survey.Processing, To: survey.Failed, At: later,
			Recommended: &estimate.Estimate{Min: 1, Max: 2, Currency: "usd"}}
		if err := st.s.AdvanceSurvey(ctx, surveyTenant, tr); !errors.Is(err, ErrBadTransition) {
			t.Errorf("failed with an estimate: %v; want ErrBadTransition", err)
		}
	})
}

// leadSnapshot returns lead_1's stored item of surveyTenant.
func leadSnapshot(t testing.TB, s *Store) map[string]types.AttributeValue {
	t.Helper()
	pk, sk := leadKey(surveyTenant, "lead_1")
	return rawItem(t, s, pk, sk)
}

// surveySnapshot returns surveyTenant's stored survey id.
func surveySnapshot(t testing.TB, s *Store, id string) map[string]types.AttributeValue {
	t.Helper()
	pk, sk := surveyKey(surveyTenant, id)
	return rawItem(t, s, pk, sk)
}

func TestSetChecklist(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
	c, err := inventory.ParseChecklist([]byte(`{"rooms":[{"name":"living room","items":[{"key":"sofa_3_seat","count":1},{"key":"box_medium","count":12}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	beforeLead := leadSnapshot(t, s)
	if err := s.SetChecklist(ctx, surveyTenant, sv.ID, c); err != nil {
		t.Fatalf("SetChecklist: %v", err)
	}
	rec, err := s.GetSurvey(ctx, surveyTenant, sv.ID)
	if err != nil || !reflect.DeepEqual(rec.Checklist, c) {
		t.Errorf("stored checklist = %+v, %v; want %+v", rec.Checklist, err, c)
	}
	if !rec.UpdatedAt.Equal(t0) || !reflect.DeepEqual(leadSnapshot(t, s), beforeLead) {
		t.Errorf("survey updated_at %s or the lead moved; want neither (a checklist is no transition)", rec.UpdatedAt)
	}
	wantCode(t, s.SetChecklist(ctx, auth.Tenant{PartnerID: "ptn_other", Mode: auth.Test}, sv.ID, c), errcode.NotFound)
	advanceAll(t, s, surveyTenant, sv, survey.Processing, t0.Add(time.Minute))
	wantCause(t, s.SetChecklist(ctx, surveyTenant, sv.ID, inventory.Checklist{}), errcode.SurveyClosed, survey.ErrClosed)
	if rec, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); !reflect.DeepEqual(rec.Checklist, c) {
		t.Errorf("checklist after the refusal = %+v; want %+v", rec.Checklist, c)
	}
}
