package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/table"
)

// Admit authenticates the key with digest and counts one request against
// its fixed minute window, in one conditional UpdateItem on the key record
// (two when this instance guessed the window state wrong). The condition
// refuses unknown and revoked keys and never lets the count pass limit, so
// the limit holds exactly across any number of concurrent instances.
//
// It returns invalid_api_key with auth.InvalidKeyMessage for an unknown or
// revoked key alike, so the answer does not tell that a string once was a
// key. When the limit is reached it returns the principal with
// Usage.Admitted false. A failed update is upstream_failed.
func (s *Store) Admit(ctx context.Context, digest string, now time.Time, limit int) (auth.Principal, auth.Usage, error) {
	w := auth.Window(now)
	last, _ := s.window.Load(digest)
	reset := last != w
	for attempt := 0; attempt < 4; attempt++ {
		in, err := admitInput(s.table, digest, w, limit, reset)
		if err != nil {
			return auth.Principal{}, auth.Usage{}, err
		}
		out, err := s.db.UpdateItem(ctx, in)
		if err == nil {
			var it keyItem
			if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
				return auth.Principal{}, auth.Usage{}, fmt.Errorf("unmarshal key record: %w", err)
			}
			s.window.Store(digest, w)
			return it.principal(), auth.Usage{
				Limit: limit, Remaining: max(limit-it.RLCount, 0), Reset: auth.WindowReset(w), Admitted: true,
			}, nil
		}
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			return auth.Principal{}, auth.Usage{}, upstream("admit request", err)
		}
		if len(ccf.Item) == 0 {
			return auth.Principal{}, auth.Usage{}, invalidKey()
		}
		var old keyItem
		if err := attributevalue.UnmarshalMap(ccf.Item, &old); err != nil {
			return auth.Principal{}, auth.Usage{}, fmt.Errorf("unmarshal key: %w", err)
		}
		switch {
		case old.RevokedAt != "":
			return auth.Principal{}, auth.Usage{}, invalidKey()
		case old.RLWindow > w:
			// Another instance's clock is ahead: count in its window.
			w, reset = old.RLWindow, false
		case old.RLWindow == w && old.RLCount >= limit:
			s.window.Store(digest, w)
			return old.principal(), auth.Usage{Limit: limit, Remaining: 0, Reset: auth.WindowReset(w)}, nil
		default:
			reset = old.RLWindow < w
		}
	}
	return auth.Principal{}, auth.Usage{}, upstream("admit request", errors.New("rate-limit counter contended"))
}

// admitInput is either the reset (first request of window w) or the
// increment (a later request of w). Both require the key to exist and not
// be revoked, and return the whole record (ALL_NEW) on success and the old
// one (ALL_OLD) on a failed condition.
func admitInput(tableName, digest string, w int64, limit int, reset bool) (*dynamodb.UpdateItemInput, error) {
	pk, sk := apiKeyKey(digest)
	win, count := expression.Name("rl_window"), expression.Name("rl_count")
	cond := expression.AttributeExists(expression.Name(table.PK)).
		And(expression.AttributeNotExists(expression.Name("revoked_at")))
	var upd expression.UpdateBuilder
	if reset {
		upd = expression.Set(win, expression.Value(w)).Set(count, expression.Value(1))
		cond = cond.And(expression.Or(expression.AttributeNotExists(win), win.LessThan(expression.Value(w))))
	} else {
		upd = expression.Set(count, count.Plus(expression.Value(1)))
		cond = cond.And(win.Equal(expression.Value(w)), count.LessThan(expression.Value(limit)))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return nil, fmt.Errorf("build admit update: %w", err)
	}
	return &dynamodb.UpdateItemInput{
		TableName: &tableName, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		ReturnConsumedCapacity:              capacity,
	}, nil
}

// invalidKey is the one answer to an unknown or revoked key.
func invalidKey() error {
	return errcode.New(errcode.InvalidAPIKey, "%s", auth.InvalidKeyMessage)
}
