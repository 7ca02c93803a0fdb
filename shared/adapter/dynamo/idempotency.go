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

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

type idemItem struct {
	PK          string `dynamodbav:"pk"`
	SK          string `dynamodbav:"sk"`
	Type        string `dynamodbav:"type"`
	PartnerID   string `dynamodbav:"partner_id"`
	Mode        string `dynamodbav:"mode"`
	Operation   string `dynamodbav:"operation"`
	State       string `dynamodbav:"state"`
	RequestHash string `dynamodbav:"request_hash"`
	ResourceID  string `dynamodbav:"resource_id"`
	LockExpires int64  `dynamodbav:"lock_expires"` // unix milliseconds
	Status      int    `dynamodbav:"response_status,omitempty"`
	Body        []byte `dynamodbav:"response_body,omitempty"`
	CreatedAt   string `dynamodbav:"created_at"`
	ExpiresAt   int64  `dynamodbav:"expires_at"` // TTL, epoch seconds
}

func newIdemItem(r idempotency.Record) idemItem {
	pk, sk := idempotencyKey(r.Scope)
	return idemItem{
		PK: pk, SK: sk, Type: "idempotency_key",
		PartnerID: r.Scope.PartnerID, Mode: r.Scope.Mode, Operation: r.Scope.Operation,
		State: string(r.State), RequestHash: r.RequestHash, ResourceID: r.ResourceID,
		LockExpires: r.LockExpires.UnixMilli(), Status: r.Status, Body: r.Body,
		CreatedAt: lead.FormatTime(r.CreatedAt), ExpiresAt: r.Expires.Unix(),
	}
}

// record returns the stored record of scope; a created_at that does not
// parse is an error naming the item.
func (it idemItem) record(scope idempotency.Scope) (*idempotency.Record, error) {
	created, err := parseTime(it.PK, "created_at", it.CreatedAt)
	if err != nil {
		return nil, err
	}
	return &idempotency.Record{
		Scope: scope, State: idempotency.State(it.State), RequestHash: it.RequestHash,
		ResourceID: it.ResourceID, LockExpires: time.UnixMilli(it.LockExpires),
		Status: it.Status, Body: it.Body, CreatedAt: created, Expires: time.Unix(it.ExpiresAt, 0),
	}, nil
}

// Idempotency returns the store of idempotency keys, for idempotency.Keeper.
func (s *Store) Idempotency() idempotency.Store { return idemStore{s} }

type idemStore struct{ s *Store }

// Create implements idempotency.Store: one conditional PutItem that also
// returns the holding record when the condition fails.
func (d idemStore) Create(ctx context.Context, rec idempotency.Record, now time.Time) (*idempotency.Record, error) {
	item, err := attributevalue.MarshalMap(newIdemItem(rec))
	if err != nil {
		return nil, fmt.Errorf("marshal idempotency record: %w", err)
	}
	cond := expression.AttributeNotExists(expression.Name(table.PK)).
		Or(expression.Name(table.TTLAttribute).LessThan(expression.Value(now.Unix())))
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return nil, fmt.Errorf("build idempotency claim condition: %w", err)
	}
	_, err = d.s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &d.s.table, Item: item,
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues:           expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		ReturnConsumedCapacity:              capacity,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && len(ccf.Item) > 0 {
		var old idemItem
		if err := attributevalue.UnmarshalMap(ccf.Item, &old); err != nil {
			return nil, fmt.Errorf("unmarshal idempotency record: %w", err)
		}
		return old.record(rec.Scope)
	}
	if err != nil {
		return nil, upstream("put idempotency record", err)
	}
	return nil, nil
}

// TakeOver implements idempotency.Store.
func (d idemStore) TakeOver(ctx context.Context, old, rec idempotency.Record) (bool, error) {
	pk, sk := idempotencyKey(rec.Scope)
	it := newIdemItem(rec)
	upd := expression.Set(expression.Name("state"), expression.Value(it.State)).
		Set(expression.Name("request_hash"), expression.Value(it.RequestHash)).
		Set(expression.Name("lock_expires"), expression.Value(it.LockExpires)).
		Set(expression.Name("created_at"), expression.Value(it.CreatedAt)).
		Set(expression.Name(table.TTLAttribute), expression.Value(it.ExpiresAt))
	if len(rec.Body) > 0 {
		upd = upd.Set(expression.Name("response_status"), expression.Value(it.Status)).
			Set(expression.Name("response_body"), expression.Value(it.Body))
	}
	cond := expression.Name("state").Equal(expression.Value(string(old.State))).
		And(expression.Name("lock_expires").Equal(expression.Value(old.LockExpires.UnixMilli()))).
		And(expression.Name("request_hash").Equal(expression.Value(old.RequestHash)))
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return false, fmt.Errorf("build idempotency take-over: %w", err)
	}
	_, err = d.s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &d.s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnConsumedCapacity: capacity,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return false, nil
	}
	if err != nil {
		return false, upstream("take over idempotency record", err)
	}
	return true, nil
}

// Get implements idempotency.Store with a strongly consistent read.
func (d idemStore) Get(ctx context.Context, scope idempotency.Scope) (*idempotency.Record, error) {
	pk, sk := idempotencyKey(scope)
	out, err := d.s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &d.s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: capacity,
	})
	if err != nil {
		return nil, upstream("get idempotency record", err)
	}
	if out.Item == nil {
		return nil, nil
	}
	var it idemItem
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return nil, fmt.Errorf("unmarshal idempotency record: %w", err)
	}
	return it.record(scope)
}

// Complete implements idempotency.Store.
func (d idemStore) Complete(ctx context.Context, rec idempotency.Record) error {
	item, err := attributevalue.MarshalMap(newIdemItem(rec))
	if err != nil {
		return fmt.Errorf("marshal idempotency record: %w", err)
	}
	_, err = d.s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &d.s.table, Item: item, ReturnConsumedCapacity: capacity,
	})
	if err != nil {
		return upstream("complete idempotency record", err)
	}
	return nil
}

// Release implements idempotency.Store. A claim that is no longer ours (a
// later request took it over) is left alone.
func (d idemStore) Release(ctx context.Context, rec idempotency.Record) error {
	pk, sk := idempotencyKey(rec.Scope)
	upd := expression.Set(expression.Name("state"), expression.Value(string(idempotency.Failed)))
	cond := expression.Name("state").Equal(expression.Value(string(idempotency.InFlight))).
		And(expression.Name("lock_expires").Equal(expression.Value(rec.LockExpires.UnixMilli())))
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("build idempotency release: %w", err)
	}
	_, err = d.s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &d.s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return upstream("release idempotency record", err)
	}
	return nil
}
