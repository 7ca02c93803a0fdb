package dynamo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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

// The lead item carries its latest survey's id and status and the
// recommended estimate, so that getLead is one GetItem until the survey is
// inventory_ready (then a second reads the survey's inventory, which stays
// on the survey item: see GetLeadWithSurvey). Every write that changes a
// survey's state writes them in the same transaction, and moves the lead's
// updated_at and listing position as SetLeadStatus does, so that delta
// sync sees every survey transition.
const (
	attrSurveyID     = "survey_id"
	attrSurveyStatus = "survey_status"
	attrRecommended  = "recommended_estimate"
	attrInventory    = "inventory" // on the survey item
)

// surveyItem is a video survey. Its clips share its partition (clips.go).
type surveyItem struct {
	PK             string               `dynamodbav:"pk"`
	SK             string               `dynamodbav:"sk"`
	Type           string               `dynamodbav:"type"`
	SurveyID       string               `dynamodbav:"survey_id"`
	LeadID         string               `dynamodbav:"lead_id"`
	Status         string               `dynamodbav:"status"`
	FailureReason  string               `dynamodbav:"failure_reason,omitempty"`
	CreatedAt      string               `dynamodbav:"created_at"`
	UpdatedAt      string               `dynamodbav:"updated_at"`
	TokenExpiresAt string               `dynamodbav:"token_expires_at"`
	Tokens         []tokenEntry         `dynamodbav:"tokens"`
	ClipCount      int                  `dynamodbav:"clip_count"`
	FrameCount     int                  `dynamodbav:"frame_count"` // absent on surveys stored before frames: 0
	Checklist      *inventory.Checklist `dynamodbav:"checklist,omitempty"`
	Inventory      *inventory.Inventory `dynamodbav:"inventory,omitempty"`
	Recommended    *estimate.Estimate   `dynamodbav:"recommended_estimate,omitempty"`
}

// tokenEntry is one capture token of a survey: its hash, never the token.
type tokenEntry struct {
	Hash      string `dynamodbav:"hash"`
	IssuedAt  string `dynamodbav:"issued_at"`
	ExpiresAt string `dynamodbav:"expires_at"`
}

// surveyClosed is the survey_closed error for a write that a finished
// survey refuses.
func surveyClosed(id string) error {
	e := errcode.New(errcode.SurveyClosed, "The survey is finished; nothing was written.")
	e.Cause = fmt.Errorf("survey %s: %w", id, survey.ErrClosed)
	return e
}

func newSurveyItem(t auth.Tenant, sv survey.Survey) surveyItem {
	pk, sk := surveyKey(t, sv.ID)
	return surveyItem{
		PK: pk, SK: sk, Type: "survey", SurveyID: sv.ID, LeadID: sv.LeadID, Status: string(sv.Status),
		FailureReason: sv.FailureReason, CreatedAt: lead.FormatTime(sv.CreatedAt), UpdatedAt: lead.FormatTime(sv.UpdatedAt),
		TokenExpiresAt: lead.FormatTime(sv.TokenExpiresAt), Tokens: tokenEntries(sv.Tokens), ClipCount: sv.ClipCount,
		FrameCount: sv.FrameCount,
	}
}

func tokenEntries(ts []survey.StoredToken) []tokenEntry {
	out := make([]tokenEntry, 0, len(ts))
	for _, t := range ts {
		out = append(out, tokenEntry{Hash: t.Hash, IssuedAt: lead.FormatTime(t.IssuedAt), ExpiresAt: lead.FormatTime(t.ExpiresAt)})
	}
	return out
}

// record returns the stored survey; a stored time that does not parse is
// an error naming the item.
func (it surveyItem) record() (record.Survey, error) {
	var err error
	parse := func(attr, v string) time.Time {
		if err != nil {
			return time.Time{}
		}
		var tm time.Time
		tm, err = parseTime(it.PK, attr, v)
		return tm
	}
	sv := survey.Survey{ID: it.SurveyID, LeadID: it.LeadID, Status: survey.Status(it.Status),
		FailureReason: it.FailureReason, ClipCount: it.ClipCount, FrameCount: it.FrameCount, Tokens: []survey.StoredToken{},
		CreatedAt: parse("created_at", it.CreatedAt), UpdatedAt: parse("updated_at", it.UpdatedAt),
		TokenExpiresAt: parse("token_expires_at", it.TokenExpiresAt)}
	for _, tok := range it.Tokens {
		sv.Tokens = append(sv.Tokens, survey.StoredToken{Hash: tok.Hash,
			IssuedAt: parse("tokens.issued_at", tok.IssuedAt), ExpiresAt: parse("tokens.expires_at", tok.ExpiresAt)})
	}
	if err != nil {
		return record.Survey{}, err
	}
	rec := record.Survey{Survey: sv, Inventory: it.Inventory, Recommended: it.Recommended}
	if it.Checklist != nil {
		rec.Checklist = *it.Checklist
	}
	return rec, nil
}

// leadAfterSurveyChange sets on a lead item what a survey transition
// changes: its survey's id and status, updated_at and the listing position.
func leadAfterSurveyChange(t auth.Tenant, leadID, surveyID string, status survey.Status, at time.Time) expression.UpdateBuilder {
	updated := lead.FormatTime(at)
	_, g1sk := leadListIndex(t, updated, leadID)
	return expression.Set(expression.Name(attrSurveyID), expression.Value(surveyID)).
		Set(expression.Name(attrSurveyStatus), expression.Value(string(status))).
		Set(expression.Name("updated_at"), expression.Value(updated)).
		Set(expression.Name(table.GSI1.SK), expression.Value(g1sk))
}

// GetSurvey returns tenant t's survey id (strongly consistent), or
// not_found (also for another tenant's survey). A failed read is
// upstream_failed.
func (s *Store) GetSurvey(ctx context.Context, t auth.Tenant, id string) (record.Survey, error) {
	pk, sk := surveyKey(t, id)
	var it surveyItem
	if err := s.getItem(ctx, pk, sk, "survey", &it); err != nil {
		return record.Survey{}, err
	}
	return it.record()
}

// leadWithSurvey is a lead item read with the survey attributes it
// carries, and its quote and deposit refs.
type leadWithSurvey struct {
	leadItem
	SurveyID     string             `dynamodbav:"survey_id"`
	SurveyStatus string             `dynamodbav:"survey_status"`
	Recommended  *estimate.Estimate `dynamodbav:"recommended_estimate"`
	leadRefs
}

// GetLeadWithSurvey returns tenant t's lead id with its latest survey's
// id and status and the recommended estimate, and its current quote's and
// latest deposit's refs, from one strongly consistent GetItem of the
// lead, which carries them all (getSurveyLink decides from them). A lead
// that never had a survey has survey.None; one without a quote or deposit
// has nil refs. The survey's inventory is not read: see GetLeadDetail.
//
// Errors: unknown lead (or another tenant's) → not_found; a failed read
// is upstream_failed.
func (s *Store) GetLeadWithSurvey(ctx context.Context, t auth.Tenant, id string) (lead.Lead, record.LeadSurvey, error) {
	pk, sk := leadKey(t, id)
	var it leadWithSurvey
	if err := s.getItem(ctx, pk, sk, "lead", &it); err != nil {
		return lead.Lead{}, record.LeadSurvey{}, err
	}
	l, err := it.lead()
	if err != nil {
		return lead.Lead{}, record.LeadSurvey{}, err
	}
	ls := record.LeadSurvey{SurveyID: it.SurveyID, Status: survey.Status(it.SurveyStatus), Recommended: it.Recommended}
	if ls.Quote, ls.Deposit, err = it.refs(it.PK); err != nil {
		return lead.Lead{}, record.LeadSurvey{}, err
	}
	if ls.SurveyID == "" {
		ls.Status = survey.None
	}
	return l, ls, nil
}

// GetLeadDetail is GetLeadWithSurvey plus, once the survey is
// inventory_ready, its inventory: getLead is one read, two when the
// survey is inventory_ready (the second of the survey item's inventory
// attribute alone: surveyInventory). The inventory is not copied onto the
// lead because the lead item is projected whole into gsi1, so a copy
// would weigh on every listLeads page.
//
// Errors: those of GetLeadWithSurvey; a failed inventory read is
// upstream_failed. A ready survey with no stored inventory (the survey's
// settlement stores it in the transaction that makes the survey ready, so
// only a damaged item lacks it) leaves Inventory nil rather than making
// the lead unreadable.
func (s *Store) GetLeadDetail(ctx context.Context, t auth.Tenant, id string) (lead.Lead, record.LeadSurvey, error) {
	l, ls, err := s.GetLeadWithSurvey(ctx, t, id)
	if err != nil || ls.Status != survey.InventoryReady {
		return l, ls, err
	}
	if ls.Inventory, err = s.surveyInventory(ctx, t, ls.SurveyID); err != nil {
		return lead.Lead{}, record.LeadSurvey{}, err
	}
	return l, ls, nil
}

// surveyInventory reads the inventory of tenant t's survey id (strongly
// consistent; the inventory attribute alone). It is nil when the survey or
// its inventory is missing; a failed read is upstream_failed.
func (s *Store) surveyInventory(ctx context.Context, t auth.Tenant, id string) (*inventory.Inventory, error) {
	expr, err := expression.NewBuilder().WithProjection(expression.NamesList(expression.Name(attrInventory))).Build()
	if err != nil {
		return nil, fmt.Errorf("build survey inventory projection: %w", err)
	}
	pk, sk := surveyKey(t, id)
	res, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true),
		ProjectionExpression: expr.Projection(), ExpressionAttributeNames: expr.Names(),
		ReturnConsumedCapacity: capacity,
	})
	if err != nil {
		return nil, upstream("get survey inventory", err)
	}
	if res.Item == nil {
		return nil, nil
	}
	var it surveyItem
	if err := attributevalue.UnmarshalMap(res.Item, &it); err != nil {
		return nil, fmt.Errorf("unmarshal inventory of survey %s: %w", id, err)
	}
	return it.Inventory, nil
}

// StartSurvey stores sv, a new survey of tenant t's lead sv.LeadID made by
// survey.New, in one TransactWriteItems: the survey (never overwriting), its
// id record (SurveyTenant, for operators), a lookup record per capture token in sv.Tokens (keyed by the token's hash;
// see SurveyByToken), and the lead, which gets sv's id and status, loses the
// previous survey's recommended estimate, moves from new to surveying (any
// other status stays) and gets updated_at = sv.UpdatedAt and the matching
// listing position. The lead's update is conditional on the lead existing
// and on its current survey, if any, being closed (inventory_ready or
// failed).
//
// It is one transaction when the lead is new or surveying. DynamoDB cannot
// set an attribute depending on its own value, so for a lead in another
// status the first transaction fails, returning the lead, and a second one
// runs conditioned on that status.
//
// Errors: unknown lead (or another tenant's) → not_found; a lead whose
// survey is still live → conflict whose cause is a *record.LiveSurveyError naming
// that survey; a taken survey id or token hash → conflict; a lead that keeps
// changing concurrently → conflict wrapping ErrChanged; any other failure →
// upstream_failed. On every error nothing was written.
func (s *Store) StartSurvey(ctx context.Context, t auth.Tenant, sv survey.Survey) error {
	if sv.ID == "" || sv.LeadID == "" || sv.Status != survey.Invited || len(sv.Tokens) == 0 {
		return fmt.Errorf("start survey %q of lead %q: want a survey from survey.New (invited, with a token); got status %q, %d tokens",
			sv.ID, sv.LeadID, sv.Status, len(sv.Tokens))
	}
	items := make([]types.TransactWriteItem, 0, len(sv.Tokens)+3)
	head := []any{newSurveyItem(t, sv), newSurveyRefItem(t, sv.ID, sv.LeadID)}
	for _, it := range append(head, tokenItems(t, sv)...) {
		put, err := s.putNew(it)
		if err != nil {
			return fmt.Errorf("start survey %s: %w", sv.ID, err)
		}
		items = append(items, put)
	}
	leadAt := len(items)
	seen := lead.Status("") // "" = first attempt: new or surveying
	for attempt := 1; ; attempt++ {
		upd, err := s.startSurveyLeadUpdate(t, sv, seen)
		if err != nil {
			return err
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: append(items[:leadAt:leadAt], upd), ReturnConsumedCapacity: capacity,
		})
		if err == nil {
			return nil
		}
		tx := cancelled(err)
		if failed, old := tx.failedAt(leadAt); failed {
			var cur leadWithSurvey
			if len(old) == 0 {
				return notFound("lead")
			}
			if err := attributevalue.UnmarshalMap(old, &cur); err != nil {
				return fmt.Errorf("unmarshal lead %s: %w", cur.PK, err)
			}
			if st := survey.Status(cur.SurveyStatus); st != "" && !st.Final() {
				e := errcode.New(errcode.Conflict, "The lead already has a survey in progress; nothing was written.")
				e.Cause = &record.LiveSurveyError{LeadID: sv.LeadID, SurveyID: cur.SurveyID, Status: st}
				return e
			}
			if attempt == 2 {
				return changed("lead")
			}
			seen = lead.Status(cur.Status)
			continue
		}
		if tx.anyFailed(0, leadAt) {
			return errcode.New(errcode.Conflict, "A survey with id %s or the same capture token already exists; nothing was written.", sv.ID)
		}
		return tx.otherwise("lead", "start survey")
	}
}

// startSurveyLeadUpdate is StartSurvey's update of the lead: with seen ""
// it moves a new (or surveying) lead to surveying; otherwise it keeps the
// status, conditioned on it still being seen.
func (s *Store) startSurveyLeadUpdate(t auth.Tenant, sv survey.Survey, seen lead.Status) (types.TransactWriteItem, error) {
	status := expression.Name("status")
	upd := leadAfterSurveyChange(t, sv.LeadID, sv.ID, sv.Status, sv.UpdatedAt).Remove(expression.Name(attrRecommended))
	cond := expression.AttributeExists(expression.Name(table.PK)).And(
		expression.Or(expression.AttributeNotExists(expression.Name(attrSurveyStatus)),
			expression.Name(attrSurveyStatus).In(expression.Value(string(survey.InventoryReady)), expression.Value(string(survey.Failed)))))
	if seen == "" {
		upd = upd.Set(status, expression.Value(string(lead.Surveying)))
		cond = cond.And(status.In(expression.Value(string(lead.New)), expression.Value(string(lead.Surveying))))
	} else {
		cond = cond.And(status.Equal(expression.Value(string(seen))))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("build start survey lead update: %w", err)
	}
	pk, sk := leadKey(t, sv.LeadID)
	return s.update(pk, sk, expr), nil
}

// surveyCondFailed explains a failed condition on survey id from the item
// as it was (old): none → not_found; a state that accepts refuses (nil:
// none) → conflict wrapping survey.ErrClosed; otherwise it changed since
// the caller read it → conflict wrapping ErrChanged.
func surveyCondFailed(id string, old map[string]types.AttributeValue, accepts func(survey.Status) bool) error {
	if len(old) == 0 {
		return notFound("survey")
	}
	var cur struct {
		Status string `dynamodbav:"status"`
	}
	if err := attributevalue.UnmarshalMap(old, &cur); err != nil {
		return fmt.Errorf("unmarshal survey %s: %w", id, err)
	}
	if accepts != nil && !accepts(survey.Status(cur.Status)) {
		return surveyClosed(id)
	}
	return changed("survey")
}

// queryPartition returns the items of tenant t's survey's partition whose
// sort key begins with prefix (CLIP#, FRAME#, VGRANT#, VOPEN#), strongly
// consistent and read to the last page, each converted by conv (what
// names them in errors), sorted stably by order unless it is nil. A
// failed query is upstream_failed; the answer is never nil.
func queryPartition[I, T any](ctx context.Context, s *Store, t auth.Tenant, surveyID, prefix, what string, conv func(I) (T, error), order func(a, b T) int) ([]T, error) {
	pk, _ := surveyKey(t, surveyID)
	kc := expression.Key(table.PK).Equal(expression.Value(pk)).And(expression.Key(table.SK).BeginsWith(prefix))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return nil, fmt.Errorf("build %s query: %w", prefix, err)
	}
	out, err := queryAll(ctx, s, &dynamodb.QueryInput{
		TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity,
	}, what, conv)
	if err != nil {
		return nil, err
	}
	if order != nil {
		slices.SortStableFunc(out, order)
	}
	return out, nil
}
