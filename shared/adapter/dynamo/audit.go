package dynamo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// actorItem is an audit.Actor as stored (an audit entry's, a key's
// created_by).
type actorItem struct {
	Kind     string `dynamodbav:"kind"`
	PersonID string `dynamodbav:"person_id,omitempty"`
	Email    string `dynamodbav:"email,omitempty"`
}

func newActorItem(a audit.Actor) *actorItem {
	if a.IsZero() {
		return nil
	}
	return &actorItem{Kind: string(a.Kind), PersonID: a.PersonID, Email: a.Email}
}

func (a *actorItem) actor() audit.Actor {
	if a == nil {
		return audit.Actor{}
	}
	return audit.Actor{Kind: audit.ActorKind(a.Kind), PersonID: a.PersonID, Email: a.Email}
}

// auditItem is one audit entry in its partner's trail partition.
type auditItem struct {
	PK         string     `dynamodbav:"pk"`
	SK         string     `dynamodbav:"sk"`
	Type       string     `dynamodbav:"type"`
	PartnerID  string     `dynamodbav:"partner_id"`
	Actor      *actorItem `dynamodbav:"actor"`
	Action     string     `dynamodbav:"action"`
	TargetKind string     `dynamodbav:"target_kind"`
	TargetID   string     `dynamodbav:"target_id"`
	Detail     string     `dynamodbav:"detail,omitempty"`
	At         string     `dynamodbav:"at"`
}

func (it auditItem) entry() (audit.Entry, error) {
	at, err := parseTime(it.PK, "at", it.At)
	if err != nil {
		return audit.Entry{}, err
	}
	return audit.Entry{
		PartnerID: it.PartnerID, Actor: it.Actor.actor(), Action: audit.Action(it.Action),
		TargetKind: audit.TargetKind(it.TargetKind), TargetID: it.TargetID, Detail: it.Detail, At: at,
	}, nil
}

// auditPut is the transaction item that writes entry e (never
// overwriting one). An entry that fails audit.Entry.Check is an error:
// nothing is written.
func (s *Store) auditPut(e audit.Entry) (types.TransactWriteItem, error) {
	if err := e.Check(); err != nil {
		return types.TransactWriteItem{}, err
	}
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("audit entry id: %w", err)
	}
	at := lead.FormatTime(e.At)
	pk, sk := auditKey(e.PartnerID, at, hex.EncodeToString(id))
	return s.putNew(auditItem{
		PK: pk, SK: sk, Type: "audit", PartnerID: e.PartnerID, Actor: newActorItem(e.Actor),
		Action: string(e.Action), TargetKind: string(e.TargetKind), TargetID: e.TargetID, Detail: e.Detail, At: at,
	})
}

// auditPuts is auditPut of each entry.
func (s *Store) auditPuts(es []audit.Entry) ([]types.TransactWriteItem, error) {
	out := make([]types.TransactWriteItem, 0, len(es))
	for _, e := range es {
		put, err := s.auditPut(e)
		if err != nil {
			return nil, err
		}
		out = append(out, put)
	}
	return out, nil
}

// PutAudit writes entry e on its own (for a change whose own write cannot
// take it: write it right after). An invalid entry is an error; a failed
// write is upstream_failed.
func (s *Store) PutAudit(ctx context.Context, e audit.Entry) error {
	put, err := s.auditPut(e)
	if err != nil {
		return err
	}
	if _, err := s.putOnce(ctx, put, "put audit entry"); err != nil {
		return err
	}
	return nil
}

// ListAudit returns partner partnerID's newest limit audit entries (1 to
// 1000), newest first, in one Query. A failed query is upstream_failed.
func (s *Store) ListAudit(ctx context.Context, partnerID string, limit int) ([]audit.Entry, error) {
	if limit < 1 || limit > 1000 {
		return nil, fmt.Errorf("list audit: limit %d out of 1..1000", limit)
	}
	pk, _ := auditKey(partnerID, "", "")
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(table.PK).Equal(expression.Value(pk))).Build()
	if err != nil {
		return nil, fmt.Errorf("build audit query: %w", err)
	}
	in := &dynamodb.QueryInput{
		TableName: &s.table, KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(int32(limit)), ReturnConsumedCapacity: capacity,
	}
	res, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, upstream("query audit entries", err)
	}
	var items []auditItem
	if err := attributevalue.UnmarshalListOfMaps(res.Items, &items); err != nil {
		return nil, fmt.Errorf("unmarshal audit entries: %w", err)
	}
	out := make([]audit.Entry, 0, len(items))
	for _, it := range items {
		e, err := it.entry()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
