package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// Helpers of the conditional writes and transactions of surveys, capture
// tokens and clips.

// ErrChanged is the cause of the conflict error of a conditional write
// whose item changed since the caller read it: re-read, decide again. It
// is record.ErrChanged, so feature services test for it without
// importing the store.
var ErrChanged = record.ErrChanged

// changed is the conflict error, wrapping ErrChanged, for what.
func changed(what string) error {
	e := errcode.New(errcode.Conflict, "The %s changed concurrently; nothing was written. Try again.", what)
	e.Cause = fmt.Errorf("%s: %w", what, ErrChanged)
	return e
}

// putNew is a transaction item that puts item in the main table unless
// its key exists.
func (s *Store) putNew(item any) (types.TransactWriteItem, error) {
	return putNewIn(s.table, item)
}

// putNewIn is putNew into the table named name.
func putNewIn(name string, item any) (types.TransactWriteItem, error) {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("marshal %T: %w", item, err)
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(table.PK))).Build()
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("build put condition: %w", err)
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: &name, Item: av,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names()}}, nil
}

// update is a transaction item that updates (pk, sk) under expr's
// condition, returning the old item when the condition fails.
func (s *Store) update(pk, sk string, expr expression.Expression) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// updateIf runs expr on the item (pk, sk) in one UpdateItem. failed
// reports that expr's condition failed, with old the item as it was then
// (empty when there was none); any other failure is err, for the caller
// to translate.
func (s *Store) updateIf(ctx context.Context, pk, sk string, expr expression.Expression) (failed bool, old map[string]types.AttributeValue, err error) {
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		ReturnConsumedCapacity:              capacity,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return true, ccf.Item, nil
	}
	return false, nil, err
}

// txFailure is the error of a TransactWriteItems, read item by item: its
// cancellation reasons are empty when err is no cancelled transaction.
type txFailure struct {
	err     error
	reasons []types.CancellationReason
}

// cancelled reads err, the error of a TransactWriteItems.
func cancelled(err error) txFailure {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return txFailure{err: err, reasons: tce.CancellationReasons}
	}
	return txFailure{err: err}
}

// failedAt reports whether the transaction item i failed its condition,
// and returns the old item (nil when there was none). A negative i (an
// item the transaction did not hold) never failed.
func (f txFailure) failedAt(i int) (bool, map[string]types.AttributeValue) {
	if i < 0 || i >= len(f.reasons) || aws.ToString(f.reasons[i].Code) != "ConditionalCheckFailed" {
		return false, nil
	}
	return true, f.reasons[i].Item
}

// anyFailed reports whether an item in [from, to) failed its condition.
func (f txFailure) anyFailed(from, to int) bool {
	for i := from; i < to; i++ {
		if failed, _ := f.failedAt(i); failed {
			return true
		}
	}
	return false
}

// otherwise is the error of a cancellation no item's condition explains:
// a concurrent transaction on the same items (TransactionConflict) is the
// conflict of what changing; anything else is upstream_failed doing op.
func (f txFailure) otherwise(what, op string) error {
	if hasReason(f.err, "TransactionConflict") {
		return changed(what)
	}
	return upstream(op, f.err)
}
