package dynamo

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
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

// cancelled returns the cancellation reasons of a cancelled transaction,
// or nil for any other error.
func cancelled(err error) []types.CancellationReason {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return tce.CancellationReasons
	}
	return nil
}

// failedAt reports whether the transaction item i failed its condition,
// and returns the old item (nil when there was none).
func failedAt(reasons []types.CancellationReason, i int) (bool, map[string]types.AttributeValue) {
	if i >= len(reasons) || aws.ToString(reasons[i].Code) != "ConditionalCheckFailed" {
		return false, nil
	}
	return true, reasons[i].Item
}
