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

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// leadItem is a lead. The customer's details are embedded: attributevalue
// flattens them into top-level attributes named by lead.Details' tags.
type leadItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	GSI1PK string `dynamodbav:"gsi1pk"`
	GSI1SK string `dynamodbav:"gsi1sk"`
	Type   string `dynamodbav:"type"`
	LeadID string `dynamodbav:"lead_id"`
	Status string `dynamodbav:"status"`
	lead.Details
	Estimate  *estimate.Estimate `dynamodbav:"estimate,omitempty"`
	CreatedAt string             `dynamodbav:"created_at"`
	UpdatedAt string             `dynamodbav:"updated_at"`
}

func newLeadItem(t auth.Tenant, l lead.Lead) leadItem {
	pk, sk := leadKey(t, l.ID)
	updated := lead.FormatTime(l.UpdatedAt)
	g1pk, g1sk := leadListIndex(t, updated, l.ID)
	return leadItem{
		PK: pk, SK: sk, GSI1PK: g1pk, GSI1SK: g1sk, Type: "lead",
		LeadID: l.ID, Status: string(l.Status), Details: l.Details, Estimate: l.Estimate,
		CreatedAt: lead.FormatTime(l.CreatedAt), UpdatedAt: updated,
	}
}

// lead returns the stored lead. A stored time that does not parse is an
// error naming the item: it is never read as the zero time.
func (it leadItem) lead() (lead.Lead, error) {
	created, err := parseTime(it.PK, "created_at", it.CreatedAt)
	if err != nil {
		return lead.Lead{}, err
	}
	updated, err := parseTime(it.PK, "updated_at", it.UpdatedAt)
	if err != nil {
		return lead.Lead{}, err
	}
	return lead.Lead{
		ID: it.LeadID, Status: lead.Status(it.Status), Details: it.Details,
		Estimate: it.Estimate, CreatedAt: created, UpdatedAt: updated,
	}, nil
}

// PutLead stores a new lead for tenant t, in one PutItem conditional on the
// lead not existing: a stored lead is never overwritten, so its created_at
// and status are never reset.
//
// A pinned id was fixed by an Idempotency-Key claim, and only retries of
// that key write it: when the lead already exists, an earlier attempt wrote
// it and its answer was lost, so PutLead returns nil and writes nothing.
// An id that is not pinned and already exists is an id collision: conflict.
// Any other failure is upstream_failed.
func (s *Store) PutLead(ctx context.Context, t auth.Tenant, l lead.Lead, pinned bool) error {
	item, err := attributevalue.MarshalMap(newLeadItem(t, l))
	if err != nil {
		return fmt.Errorf("marshal lead %s: %w", l.ID, err)
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(table.PK))).Build()
	if err != nil {
		return fmt.Errorf("build put lead condition: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: item, ReturnConsumedCapacity: capacity,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf) && pinned:
		return nil
	case errors.As(err, &ccf):
		return errcode.New(errcode.Conflict, "A lead with id %s already exists; nothing was written.", l.ID)
	case err != nil:
		return upstream("put lead", err)
	}
	return nil
}

// LeadExists reports whether tenant t's lead id has been written (a
// strongly consistent read of its key only). A failed read is
// upstream_failed.
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
	return it.lead()
}

// ListLeads returns up to q.Limit leads and whether more follow. It reads
// q.Limit+1 items at most from gsi1, whatever the tenant's size: usually in
// one Query, in more when DynamoDB stops a page at its 1 MB cap before
// that many, so that the answer about more is exact. A failed query is
// upstream_failed.
func (s *Store) ListLeads(ctx context.Context, t auth.Tenant, q lead.ListQuery) ([]lead.Lead, bool, error) {
	in, err := s.listLeadsInput(t, q)
	if err != nil {
		return nil, false, err
	}
	want := q.Limit + 1
	var items []leadItem
	for {
		in.Limit = aws.Int32(int32(want - len(items)))
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, false, upstream("query leads", err)
		}
		var page []leadItem
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &page); err != nil {
			return nil, false, fmt.Errorf("unmarshal leads: %w", err)
		}
		items = append(items, page...)
		if len(items) >= want || len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return pageOf(items, q.Limit, leadItem.lead)
}

// pageOf is a listing's page: items, read up to one past limit, cut to
// limit and converted; more reports whether one was past it.
func pageOf[I, T any](items []I, limit int, conv func(I) (T, error)) (page []T, more bool, err error) {
	more = len(items) > limit
	if more {
		items = items[:limit]
	}
	page = make([]T, len(items))
	for i, it := range items {
		if page[i], err = conv(it); err != nil {
			return nil, false, err
		}
	}
	return page, more, nil
}

// listLeadsInput is the first Query of a listing (no Limit set), with
// filter when one is given.
func (s *Store) listLeadsInput(t auth.Tenant, q lead.ListQuery, filter ...expression.ConditionBuilder) (*dynamodb.QueryInput, error) {
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
	b := expression.NewBuilder().WithKeyCondition(kc)
	for _, f := range filter {
		b = b.WithFilter(f)
	}
	expr, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build leads query: %w", err)
	}
	return &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(table.GSI1.Name),
		KeyConditionExpression:    expr.KeyCondition(),
		FilterExpression:          expr.Filter(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ReturnConsumedCapacity:    capacity,
	}, nil
}

// SetLeadStatus moves tenant t's lead id to status at now, which also moves
// it to the end of the listing order, and returns the updated lead.
// Unknown lead → not_found; a failed write is upstream_failed.
func (s *Store) SetLeadStatus(ctx context.Context, t auth.Tenant, id string, status lead.Status, now time.Time) (lead.Lead, error) {
	pk, sk := leadKey(t, id)
	updated := lead.FormatTime(now)
	_, g1sk := leadListIndex(t, updated, id)
	upd := expression.Set(expression.Name("status"), expression.Value(string(status))).
		Set(expression.Name("updated_at"), expression.Value(updated)).
		Set(expression.Name(table.GSI1.SK), expression.Value(g1sk))
	expr, err := expression.NewBuilder().WithUpdate(upd).
		WithCondition(expression.AttributeExists(expression.Name(table.PK))).Build()
	if err != nil {
		return lead.Lead{}, fmt.Errorf("build lead status update: %w", err)
	}
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
		return lead.Lead{}, fmt.Errorf("unmarshal lead %s: %w", pk, err)
	}
	return it.lead()
}
