package dynamo

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestSurveyWritesUnderInjectedFailures answers the survey store's calls
// with failures DynamoDB Local never produces (a transaction conflict,
// throttling inside a cancelled transaction, a missing table) and checks
// what each becomes, and that nothing was written.
func TestSurveyWritesUnderInjectedFailures(t *testing.T) {
	ctx := context.Background()
	at := t0.Add(time.Hour)
	methods := []struct {
		name string
		op   string // the call that fails
		run  func(s *Store, sv survey.Survey) error
	}{
		{"StartSurvey", "TransactWriteItems", func(s *Store, _ survey.Survey) error {
			putLeadIn(t, s, surveyTenant, "lead_2", lead.New)
			sv, _ := newSurvey(t, "lead_2", at)
			return s.StartSurvey(ctx, surveyTenant, sv)
		}},
		{"AddSurveyToken", "TransactWriteItems", func(s *Store, sv survey.Survey) error {
			_, _, err := s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, at)
			return err
		}},
		{"AdvanceSurvey", "TransactWriteItems", func(s *Store, sv survey.Survey) error {
			return s.AdvanceSurvey(ctx, surveyTenant, record.SurveyTransition{LeadID: sv.LeadID, SurveyID: sv.ID, From: survey.Invited, To: survey.Recording, At: at})
		}},
		{"PutClip", "TransactWriteItems", func(s *Store, sv survey.Survey) error {
			return s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_1", at))
		}},
		{"AdvanceClip", "UpdateItem", func(s *Store, sv survey.Survey) error {
			return s.AdvanceClip(ctx, surveyTenant, record.ClipTransition{SurveyID: sv.ID, ClipID: "clip_0", From: survey.ClipAnnounced, To: survey.ClipUploading, At: at})
		}},
		{"SetChecklist", "UpdateItem", func(s *Store, sv survey.Survey) error {
			return s.SetChecklist(ctx, surveyTenant, sv.ID, inventory.Checklist{Rooms: []inventory.ChecklistRoom{}})
		}},
		{"ListClips", "Query", func(s *Store, sv survey.Survey) error {
			_, err := s.ListClips(ctx, surveyTenant, sv.ID)
			return err
		}},
		{"SurveyByToken", "GetItem", func(s *Store, sv survey.Survey) error {
			_, _, err := s.SurveyByToken(ctx, sv.Tokens[0].Hash, at)
			return err
		}},
	}
	faults := []struct {
		name  string
		err   error
		code  errcode.Code
		cause error
		ops   []string // the calls it applies to
	}{
		{"transaction conflict", canceledAt("TransactionConflict"), errcode.Conflict, ErrChanged, []string{"TransactWriteItems"}},
		{"throttled transaction", canceledAt("ThrottlingError"), errcode.UpstreamFailed, nil, []string{"TransactWriteItems"}},
		{"missing table", &types.ResourceNotFoundException{Message: aws.String("no table")}, errcode.UpstreamFailed, nil, []string{"TransactWriteItems", "UpdateItem", "Query", "GetItem"}},
	}
	for _, f := range faults {
		for _, m := range methods {
			if !slices.Contains(f.ops, m.op) {
				continue
			}
			t.Run(f.name+"/"+m.name, func(t *testing.T) {
				rec := &calls{}
				s := newStore(t, rec.install)
				putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
				sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
				if err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, "clip_0", t0)); err != nil {
					t.Fatal(err)
				}
				beforeLead, beforeSurvey := leadSnapshot(t, s), surveySnapshot(t, s, sv.ID)
				rec.before = func(op string, _ int) error {
					if op == m.op {
						return f.err
					}
					return nil
				}
				err := m.run(s, sv)
				rec.before = nil
				if f.cause != nil {
					wantCause(t, err, f.code, f.cause)
				} else {
					wantCode(t, err, f.code)
				}
				if got := leadSnapshot(t, s); !reflect.DeepEqual(got, beforeLead) {
					t.Errorf("lead changed to %v", got)
				}
				if got := surveySnapshot(t, s, sv.ID); !reflect.DeepEqual(got, beforeSurvey) {
					t.Errorf("survey changed to %v", got)
				}
			})
		}
	}
}

// canceledAt is a cancelled transaction of up to four items whose first
// item failed for code.
func canceledAt(code string) error {
	none := types.CancellationReason{Code: aws.String("None")}
	return &types.TransactionCanceledException{
		Message: aws.String("Transaction cancelled [" + code + ", None, None, None]"),
		CancellationReasons: []types.CancellationReason{
			{Code: aws.String(code), Message: aws.String(code)}, none, none, none,
		},
	}
}

// TestFaultClientsRetryWithoutPause: the tests' clients keep the SDK's
// attempts and retry rules for injected faults but never pause between
// attempts.
func TestFaultClientsRetryWithoutPause(t *testing.T) {
	r := newClient(t).Options().Retryer
	if got := r.MaxAttempts(); got != retry.DefaultMaxAttempts {
		t.Errorf("MaxAttempts = %d; want the SDK's %d", got, retry.DefaultMaxAttempts)
	}
	throttled := canceledAt("ThrottlingError")
	if !r.IsErrorRetryable(&types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}) {
		t.Error("throttling is not retryable; want the SDK's rules")
	}
	for attempt := 1; attempt <= 3; attempt++ {
		if d, err := r.RetryDelay(attempt, throttled); err != nil || d != 0 {
			t.Errorf("RetryDelay(%d) = %v, %v; want 0, nil", attempt, d, err)
		}
	}
}
