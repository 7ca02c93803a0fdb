package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/estimate"
	"github.com/moveleads/partnerapi/shared/lead"
	"github.com/moveleads/partnerapi/shared/table"
)

type leadItem struct {
	PK           string             `dynamodbav:"pk"`
	SK           string             `dynamodbav:"sk"`
	GSI1PK       string             `dynamodbav:"gsi1pk"`
	GSI1SK       string             `dynamodbav:"gsi1sk"`
	Type         string             `dynamodbav:"type"`
	LeadID       string             `dynamodbav:"lead_id"`
	Status       string             `dynamodbav:"status"`
	CustomerName string             `dynamodbav:"customer_name,omitempty"`
	Email        string             `dynamodbav:"email,omitempty"`
	Phone        string             `dynamodbav:"phone,omitempty"`
	FromAddress  string             `dynamodbav:"from_address,omitempty"`
	ToAddress    string             `dynamodbav:"to_address,omitempty"`
	HomeSize     string             `dynamodbav:"home_size,omitempty"`
	MoveDate     string             `dynamodbav:"move_date,omitempty"`
	SpecialItems []string           `dynamodbav:"special_items,omitempty"`
	Source       string             `dynamodbav:"source,omitempty"`
	Estimate     *estimate.Estimate `dynamodbav:"estimate,omitempty"`
	CreatedAt    string             `dynamodbav:"created_at"`
	UpdatedAt    string             `dynamodbav:"updated_at"`
}

func newLeadItem(t auth.Tenant, l lead.Lead) leadItem {
	pk, sk := leadKey(t, l.ID)
	updated := lead.FormatTime(l.UpdatedAt)
	g1pk, g1sk := leadListIndex(t, updated, l.ID)
	return leadItem{
		PK: pk, SK: sk, GSI1PK: g1pk, GSI1SK: g1sk, Type: "lead",
		LeadID: l.ID, Status: string(l.Status), CustomerName: l.CustomerName,
		Email: l.Email, Phone: l.Phone, FromAddress: l.FromAddress, ToAddress: l.ToAddress,
		HomeSize: l.HomeSize, MoveDate: l.MoveDate, SpecialItems: l.SpecialItems,
		Source: l.Source, Estimate: l.Estimate,
		CreatedAt: lead.FormatTime(l.CreatedAt), UpdatedAt: updated,
	}
}

func (it leadItem) lead() lead.Lead {
	created, _ := time.Parse(lead.TimeLayout, it.CreatedAt)
	updated, _ := time.Parse(lead.TimeLayout, it.UpdatedAt)
	return lead.Lead{
		ID: it.LeadID, Status: lead.Status(it.Status), CustomerName: it.CustomerName,
		Email: it.Email, Phone: it.Phone, FromAddress: it.FromAddress, ToAddress: it.ToAddress,
		HomeSize: it.HomeSize, MoveDate: it.MoveDate, SpecialItems: it.SpecialItems,
		Source: it.Source, Estimate: it.Estimate, CreatedAt: created, UpdatedAt: updated,
	}
}

// PutLead stores a new lead for tenant t, in one PutItem.
//
// Unless pinned, the write is conditional on the id being new. A pinned id
// was fixed by an Idempotency-Key claim: only retries of that key write it,
// and a retry after a failure must be able to write it again.
func (s *Store) PutLead(ctx context.Context, t auth.Tenant, l lead.Lead, pinned bool) error {
	item, err := attributevalue.MarshalMap(newLeadItem(t, l))
	if err != nil {
		return fmt.Errorf("marshal lead: %w", err)
	}
	in := &dynamodb.PutItemInput{TableName: &s.table, Item: item, ReturnConsumedCapacity: capacity}
	if !pinned {
		cond, _ := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(table.PK))).Build()
		in.ConditionExpression, in.ExpressionAttributeNames = cond.Condition(), cond.Names()
	}
	if _, err := s.db.PutItem(ctx, in); err != nil {
		return upstream("put lead", err)
	}
	return nil
}

// LeadExists reports whether tenant t's lead id has been written (a
// strongly consistent read of its key only).
func (s *Store) LeadExists(ctx context.Context, t auth.Tenant, id string) (bool, error) {
	pk, sk := leadKey(t, id)
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String(table.PK), ReturnConsumedCapacity: capacity,
	})
	if err != nil {
		return false, upstream("check lead", err)
	}
	return out.Item != nil, nil
}

// GetLead returns tenant t's lead with id, or not_found (which is also the
// answer for another tenant's lead).
func (s *Store) GetLead(ctx context.Context, t auth.Tenant, id string) (lead.Lead, error) {
	pk, sk := leadKey(t, id)
	var it leadItem
	if err := s.getItem(ctx, pk, sk, "lead", &it); err != nil {
		return lead.Lead{}, err
	}
	return it.lead(), nil
}

// ListQuery selects a page of a tenant's leads in (updated_at, lead_id)
// order: those strictly after After (when set) and updated at or after
// Since (when set).
type ListQuery struct {
	After *lead.Position
	Since *time.Time
	Limit int
}

// ListLeads returns up to q.Limit leads and whether more follow. It is one
// Query on gsi1 reading q.Limit+1 items at most, whatever the tenant's size.
func (s *Store) ListLeads(ctx context.Context, t auth.Tenant, q ListQuery) ([]lead.Lead, bool, error) {
	g1pk, _ := leadListIndex(t, "", "")
	skName := expression.Key(table.GSI1.SK)
	kc := expression.Key(table.GSI1.PK).Equal(expression.Value(g1pk))
	var after, since string
	if q.After != nil {
		_, after = leadListIndex(t, q.After.UpdatedAt, q.After.LeadID)
	}
	if q.Since != nil {
		since = lead.FormatTime(*q.Since)
	}
	switch {
	case since != "" && since > after:
		kc = kc.And(skName.GreaterThanEqual(expression.Value(since)))
	case after != "":
		kc = kc.And(skName.GreaterThan(expression.Value(after)))
	}
	expr, _ := expression.NewBuilder().WithKeyCondition(kc).Build()
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(table.GSI1.Name),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		Limit:                     aws.Int32(int32(q.Limit + 1)),
		ReturnConsumedCapacity:    capacity,
	})
	if err != nil {
		return nil, false, upstream("query leads", err)
	}
	var items []leadItem
	if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
		return nil, false, fmt.Errorf("unmarshal leads: %w", err)
	}
	more := len(items) > q.Limit
	if more {
		items = items[:q.Limit]
	}
	leads := make([]lead.Lead, len(items))
	for i, it := range items {
		leads[i] = it.lead()
	}
	return leads, more, nil
}

// SetLeadStatus moves tenant t's lead id to status at now, which also moves
// it to the end of the listing order. Unknown lead → not_found.
func (s *Store) SetLeadStatus(ctx context.Context, t auth.Tenant, id string, status lead.Status, now time.Time) (lead.Lead, error) {
	pk, sk := leadKey(t, id)
	updated := lead.FormatTime(now)
	_, g1sk := leadListIndex(t, updated, id)
	upd := expression.Set(expression.Name("status"), expression.Value(string(status))).
		Set(expression.Name("updated_at"), expression.Value(updated)).
		Set(expression.Name(table.GSI1.SK), expression.Value(g1sk))
	expr, _ := expression.NewBuilder().WithUpdate(upd).
		WithCondition(expression.AttributeExists(expression.Name(table.PK))).Build()
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValues: types.ReturnValueAllNew, ReturnConsumedCapacity: capacity,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return lead.Lead{}, notFound("lead")
	}
	if err != nil {
		return lead.Lead{}, upstream("update lead status", err)
	}
	var it leadItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return lead.Lead{}, fmt.Errorf("unmarshal lead: %w", err)
	}
	return it.lead(), nil
}
