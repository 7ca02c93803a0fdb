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

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/table"
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
	pk, sk := apiKeyKey(digest)
	var it keyItem
	u, found, err := s.count(ctx, pk, sk, now, limit, true, &it)
	switch {
	case err != nil:
		return auth.Principal{}, auth.Usage{}, upstream("admit request", err)
	case !found || it.RevokedAt != "":
		return auth.Principal{}, auth.Usage{}, invalidKey()
	}
	return it.principal(), u, nil
}

// count counts one request against the fixed minute window of the record
// pk/sk (an API key's, or a capture token's) in one conditional UpdateItem
// (two when this instance guessed the window state wrong), and unmarshals
// the record into out. found is false when the record does not exist or is
// revoked (revoked_at set; out then holds it); the count is not made then.
// At the limit it returns the Usage with Admitted false and changes
// nothing. With touch, a counted request also sets last_used_at to now
// (an API key's last use, in the same update).
func (s *Store) count(ctx context.Context, pk, sk string, now time.Time, limit int, touch bool, out any) (auth.Usage, bool, error) {
	var lastUsed []time.Time
	if touch {
		lastUsed = []time.Time{now}
	}
	w := auth.Window(now)
	last, _ := s.window.Load(pk)
	reset := last != w
	for attempt := 0; attempt < 4; attempt++ {
		in, err := admitInput(s.table, pk, sk, w, limit, reset, lastUsed...)
		if err != nil {
			return auth.Usage{}, false, err
		}
		res, err := s.db.UpdateItem(ctx, in)
		if err == nil {
			var c windowCount
			if err := unmarshalBoth(res.Attributes, &c, out); err != nil {
				return auth.Usage{}, false, err
			}
			s.window.Store(pk, w)
			return auth.Usage{Limit: limit, Remaining: max(limit-c.Count, 0), Reset: auth.WindowReset(w), Admitted: true}, true, nil
		}
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			return auth.Usage{}, false, err
		}
		if len(ccf.Item) == 0 {
			return auth.Usage{}, false, nil
		}
		var old windowCount
		if err := unmarshalBoth(ccf.Item, &old, out); err != nil {
			return auth.Usage{}, false, err
		}
		switch {
		case old.RevokedAt != "":
			return auth.Usage{}, false, nil
		case old.Window > w:
			// Another instance's clock is ahead: count in its window.
			w, reset = old.Window, false
		case old.Window == w && old.Count >= limit:
			s.window.Store(pk, w)
			return auth.Usage{Limit: limit, Remaining: 0, Reset: auth.WindowReset(w)}, true, nil
		default:
			reset = old.Window < w
		}
	}
	return auth.Usage{}, false, errors.New("rate-limit counter contended")
}

// windowCount is the rate-limit state every counted record carries.
type windowCount struct {
	Window    int64  `dynamodbav:"rl_window"`
	Count     int    `dynamodbav:"rl_count"`
	RevokedAt string `dynamodbav:"revoked_at"`
}

func unmarshalBoth(item map[string]types.AttributeValue, c *windowCount, out any) error {
	if err := attributevalue.UnmarshalMap(item, c); err != nil {
		return fmt.Errorf("unmarshal counted record: %w", err)
	}
	if err := attributevalue.UnmarshalMap(item, out); err != nil {
		return fmt.Errorf("unmarshal counted record: %w", err)
	}
	return nil
}

// admitInput is either the reset (first request of window w) or the
// increment (a later request of w). Both require the key to exist and not
// be revoked, and return the whole record (ALL_NEW) on success and the old
// one (ALL_OLD) on a failed condition.
func admitInput(tableName, pk, sk string, w int64, limit int, reset bool, lastUsed ...time.Time) (*dynamodb.UpdateItemInput, error) {
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
	for _, at := range lastUsed {
		upd = upd.Set(expression.Name("last_used_at"), expression.Value(lead.FormatTime(at)))
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
