package dynamo

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestGetLeadDetailInventory: getLead reads the lead alone until its
// survey is inventory_ready; then a second GetItem reads the survey's
// inventory (that attribute only), which GetLeadDetail returns.
// GetLeadWithSurvey (getSurveyLink) stays one read in every state.
func TestGetLeadDetailInventory(t *testing.T) {
	ctx := context.Background()
	inv := &inventory.Inventory{Rooms: []inventory.Room{{Name: "Living room", Items: []inventory.Item{
		{Key: "sofa_3_seat", Name: "Sofa, 3 seats", Count: 1, CubicFeet: 35, Source: inventory.FromChecklist, Detected: 1},
		{Key: "tv_medium", Name: "TV, medium", Count: 1, CubicFeet: 10, Source: inventory.FromDetector, Detected: 1}}}},
		Detector: &inventory.DetectorReport{Name: "rekognition", Status: inventory.DetectorOK, FramesAnalyzed: 2}}
	// to moves lead_1's new survey to final (none: no survey), with ready's
	// inventory when final is inventory_ready.
	to := func(t *testing.T, s *Store, final survey.Status, ready *inventory.Inventory) {
		t.Helper()
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		if final == survey.None {
			return
		}
		sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
		from := survey.Invited
		for i, st := range []survey.Status{survey.Recording, survey.Processing, final} {
			if from == final {
				break
			}
			tr := record.SurveyTransition{LeadID: "lead_1", SurveyID: sv.ID, From: from, To: st, At: t0.Add(time.Duration(i+1) * time.Minute)}
			switch st {
			case survey.InventoryReady:
				tr.Inventory = ready
			case survey.Failed:
				tr.FailureReason = "no playable clip"
			}
			if err := s.AdvanceSurvey(ctx, surveyTenant, tr); err != nil {
				t.Fatalf("AdvanceSurvey %s → %s: %v", from, st, err)
			}
			from = st
		}
	}
	tests := []struct {
		name   string
		status survey.Status
		stored *inventory.Inventory // stored with inventory_ready
		want   *inventory.Inventory
		reads  int
	}{
		{"no survey", survey.None, nil, nil, 1},
		{"invited", survey.Invited, nil, nil, 1},
		{"recording", survey.Recording, nil, nil, 1},
		{"processing", survey.Processing, nil, nil, 1},
		{"failed", survey.Failed, nil, nil, 1},
		{"inventory_ready", survey.InventoryReady, inv, inv, 2},
		{"inventory_ready with an empty inventory", survey.InventoryReady, &inventory.Inventory{Rooms: []inventory.Room{}}, &inventory.Inventory{Rooms: []inventory.Room{}}, 2},
		{"inventory_ready without a stored inventory", survey.InventoryReady, nil, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &calls{}
			s := newStore(t, rec.install)
			to(t, s, tt.status, tt.stored)
			rec.reset()
			if _, _, err := s.GetLeadWithSurvey(ctx, surveyTenant, "lead_1"); err != nil {
				t.Fatalf("GetLeadWithSurvey: %v", err)
			}
			if ops, _ := rec.taken(); !slices.Equal(ops, []string{"GetItem"}) {
				t.Fatalf("GetLeadWithSurvey calls %v; want one GetItem", ops)
			}
			rec.reset()
			_, ls, err := s.GetLeadDetail(ctx, surveyTenant, "lead_1")
			if err != nil {
				t.Fatalf("GetLeadDetail: %v", err)
			}
			if ls.Status != tt.status || !reflect.DeepEqual(ls.Inventory, tt.want) {
				t.Errorf("survey %s, inventory %+v; want %s, %+v", ls.Status, ls.Inventory, tt.status, tt.want)
			}
			ops, ins := rec.taken()
			if want := slices.Repeat([]string{"GetItem"}, tt.reads); !slices.Equal(ops, want) {
				t.Fatalf("calls %v; want %v", ops, want)
			}
			if tt.reads < 2 {
				return
			}
			in := ins[1].(*dynamodb.GetItemInput)
			pk, _ := surveyKey(surveyTenant, ls.SurveyID)
			if got := in.Key["pk"].(*types.AttributeValueMemberS).Value; got != pk {
				t.Errorf("second read of %s; want the survey %s", got, pk)
			}
			names := slices.Collect(maps.Values(in.ExpressionAttributeNames))
			if in.ProjectionExpression == nil || strings.Contains(*in.ProjectionExpression, ",") || !slices.Equal(names, []string{attrInventory}) {
				t.Errorf("projection %v over %v; want the inventory attribute alone", aws.ToString(in.ProjectionExpression), in.ExpressionAttributeNames)
			}
			if !aws.ToBool(in.ConsistentRead) {
				t.Error("the inventory read is not strongly consistent")
			}
		})
	}
}

// TestGetLeadDetailInventoryFails: a failed read of the inventory
// fails getLead (upstream_failed), never answers without it.
func TestGetLeadDetailInventoryFails(t *testing.T) {
	ctx := context.Background()
	rec := &calls{}
	s := newStore(t, rec.install)
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
	advanceAll(t, s, surveyTenant, sv, survey.Processing, t0)
	if err := s.AdvanceSurvey(ctx, surveyTenant, record.SurveyTransition{LeadID: "lead_1", SurveyID: sv.ID, From: survey.Processing,
		To: survey.InventoryReady, At: t0.Add(time.Hour), Inventory: &inventory.Inventory{Rooms: []inventory.Room{}}}); err != nil {
		t.Fatal(err)
	}
	rec.reset()
	rec.before = func(op string, n int) error {
		if op == "GetItem" && n == 2 {
			return &types.ResourceNotFoundException{Message: aws.String("no table")}
		}
		return nil
	}
	_, _, err := s.GetLeadDetail(ctx, surveyTenant, "lead_1")
	wantCode(t, err, errcode.UpstreamFailed)
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("err = %v; want it to keep the cause", err)
	}
}
