package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// eventTo is the event that moves a survey to each state.
var eventTo = map[survey.Status]survey.Event{
	survey.Recording: survey.UploadStarted, survey.Processing: survey.FinishRequested,
	survey.InventoryReady: survey.InventoryBuilt, survey.Failed: survey.NoPlayableClip,
}

// ErrBadTransition is wrapped by AdvanceSurvey's and AdvanceClip's error
// for a transition that is not a forward move (see survey.Next and
// survey.AdvanceClip) or carries fields that do not belong to it: a
// programming error, refused before any write.
var ErrBadTransition = errors.New("dynamo: not a forward transition")

// AdvanceSurvey moves tenant t's survey along tr in one TransactWriteItems:
// the survey gets tr.To, updated_at = tr.At and tr's fields, conditioned
// on its status still being tr.From (optimistic: a duplicate or late event
// finds it moved and changes nothing); the lead gets the survey's new
// status (and tr.Recommended), updated_at = tr.At and the matching listing
// position, so delta sync sees the transition, conditioned on the lead's
// current survey being this one.
//
// Errors: a transition survey.Next would not make (backwards, sideways,
// unknown), or fields that do not belong to tr.To → an error wrapping
// ErrBadTransition, before any write; unknown survey or lead (or another
// tenant's) → not_found; a survey no longer in tr.From (or a lead whose
// current survey is another) → conflict wrapping ErrChanged (re-read and
// decide again); any other failure → upstream_failed. On every error
// nothing was written.
func (s *Store) AdvanceSurvey(ctx context.Context, t auth.Tenant, tr record.SurveyTransition) error {
	next, moved, err := survey.Next(tr.From, eventTo[tr.To])
	switch {
	case err != nil || !moved || next != tr.To:
		return fmt.Errorf("advance survey %s from %q to %q: %w (%v)", tr.SurveyID, tr.From, tr.To, ErrBadTransition, err)
	case tr.FailureReason != "" && tr.To != survey.Failed,
		(tr.Inventory != nil || tr.Recommended != nil) && tr.To != survey.InventoryReady:
		return fmt.Errorf("advance survey %s to %q: failure reason or inventory does not belong: %w", tr.SurveyID, tr.To, ErrBadTransition)
	}
	in, err := s.advanceSurveyInput(t, tr)
	if err != nil {
		return err
	}
	_, err = s.db.TransactWriteItems(ctx, in)
	if err == nil {
		return nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(0); failed {
		return surveyCondFailed(tr.SurveyID, old, nil)
	}
	if failed, old := tx.failedAt(1); failed {
		if len(old) == 0 {
			return notFound("lead")
		}
		return changed("lead")
	}
	return tx.otherwise("survey", "advance survey")
}

// advanceSurveyInput is AdvanceSurvey's transaction: the survey, then the
// lead, then the events the move owes (each written only if new).
func (s *Store) advanceSurveyInput(t auth.Tenant, tr record.SurveyTransition) (*dynamodb.TransactWriteItemsInput, error) {
	status := expression.Name("status")
	upd := expression.Set(status, expression.Value(string(tr.To))).
		Set(expression.Name("updated_at"), expression.Value(lead.FormatTime(tr.At)))
	if tr.FailureReason != "" {
		upd = upd.Set(expression.Name("failure_reason"), expression.Value(tr.FailureReason))
	}
	if tr.Inventory != nil {
		upd = upd.Set(expression.Name(attrInventory), expression.Value(tr.Inventory))
	}
	leadUpd := leadAfterSurveyChange(t, tr.LeadID, tr.SurveyID, tr.To, tr.At)
	if tr.Recommended != nil {
		upd = upd.Set(expression.Name(attrRecommended), expression.Value(tr.Recommended))
		leadUpd = leadUpd.Set(expression.Name(attrRecommended), expression.Value(tr.Recommended))
	}
	sExpr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(
		expression.AttributeExists(expression.Name(table.PK)).And(status.Equal(expression.Value(string(tr.From))))).Build()
	if err != nil {
		return nil, fmt.Errorf("build survey transition: %w", err)
	}
	lExpr, err := expression.NewBuilder().WithUpdate(leadUpd).WithCondition(
		expression.AttributeExists(expression.Name(table.PK)).And(expression.Name(attrSurveyID).Equal(expression.Value(tr.SurveyID)))).Build()
	if err != nil {
		return nil, fmt.Errorf("build lead survey transition: %w", err)
	}
	spk, ssk := surveyKey(t, tr.SurveyID)
	lpk, lsk := leadKey(t, tr.LeadID)
	items := []types.TransactWriteItem{s.update(spk, ssk, sExpr), s.update(lpk, lsk, lExpr)}
	for _, e := range tr.Events {
		if e.Mode != string(t.Mode) {
			return nil, fmt.Errorf("advance survey %s: event %s of mode %q in tenant mode %q: %w", tr.SurveyID, e.ID, e.Mode, t.Mode, ErrBadTransition)
		}
		put, err := s.putNewEvent(t, e)
		if err != nil {
			return nil, fmt.Errorf("advance survey %s: %w", tr.SurveyID, err)
		}
		items = append(items, put)
	}
	return &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: capacity}, nil
}

// SetChecklist replaces the checklist of tenant t's survey id with c (as
// inventory.ParseChecklist returned it), in one UpdateItem conditioned on
// the survey being open (invited or recording). It is not a transition:
// neither the survey's nor the lead's updated_at moves.
//
// Errors: unknown survey (or another tenant's) → not_found; a finished
// survey → conflict wrapping survey.ErrClosed; any other failure →
// upstream_failed.
func (s *Store) SetChecklist(ctx context.Context, t auth.Tenant, id string, c inventory.Checklist) error {
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("checklist"), expression.Value(c))).
		WithCondition(surveyOpen()).Build()
	if err != nil {
		return fmt.Errorf("build checklist update: %w", err)
	}
	pk, sk := surveyKey(t, id)
	failed, old, err := s.updateIf(ctx, pk, sk, expr)
	if failed {
		return surveyCondFailed(id, old, survey.Status.Open)
	}
	if err != nil {
		return upstream("set checklist", err)
	}
	return nil
}

// surveyOpen is the condition that a survey exists and the customer can
// still record into it: its status is one of those survey.Status.Open
// accepts.
func surveyOpen() expression.ConditionBuilder {
	var open []expression.OperandBuilder
	for _, st := range survey.Statuses {
		if st.Open() {
			open = append(open, expression.Value(string(st)))
		}
	}
	return expression.AttributeExists(expression.Name(table.PK)).And(expression.Name("status").In(open[0], open[1:]...))
}
