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
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/table"
)

type partnerItem struct {
	PK        string            `dynamodbav:"pk"`
	SK        string            `dynamodbav:"sk"`
	Type      string            `dynamodbav:"type"`
	PartnerID string            `dynamodbav:"partner_id"`
	Name      string            `dynamodbav:"name"`
	RateCard  estimate.RateCard `dynamodbav:"rate_card"`
	CreatedAt string            `dynamodbav:"created_at"`
}

// keyItem is an API key's authentication record. It also carries the key's
// rate-limit counter and a copy of its partner's rate card, so one
// conditional update authenticates and counts a request and createLead needs
// no partner read. It has no index attributes on purpose: an update of an
// indexed item also writes the index, which would double the write units
// every request pays.
type keyItem struct {
	PK        string            `dynamodbav:"pk"`
	SK        string            `dynamodbav:"sk"`
	Type      string            `dynamodbav:"type"`
	KeyID     string            `dynamodbav:"key_id"`
	Digest    string            `dynamodbav:"digest"`
	PartnerID string            `dynamodbav:"partner_id"`
	Mode      string            `dynamodbav:"mode"`
	Scopes    []string          `dynamodbav:"scopes"`
	RateCard  estimate.RateCard `dynamodbav:"rate_card"`
	CreatedAt string            `dynamodbav:"created_at"`
	RevokedAt string            `dynamodbav:"revoked_at,omitempty"`
	RLWindow  int64             `dynamodbav:"rl_window"`
	RLCount   int               `dynamodbav:"rl_count"`
}

// keyIDItem is a key's listing record: found by key id (revocation) and in
// its partner's key listing (gsi1). It points to the authentication record
// by digest and mirrors its metadata.
type keyIDItem struct {
	PK        string   `dynamodbav:"pk"`
	SK        string   `dynamodbav:"sk"`
	GSI1PK    string   `dynamodbav:"gsi1pk"`
	GSI1SK    string   `dynamodbav:"gsi1sk"`
	Type      string   `dynamodbav:"type"`
	KeyID     string   `dynamodbav:"key_id"`
	Digest    string   `dynamodbav:"digest"`
	PartnerID string   `dynamodbav:"partner_id"`
	Mode      string   `dynamodbav:"mode"`
	Scopes    []string `dynamodbav:"scopes"`
	CreatedAt string   `dynamodbav:"created_at"`
	RevokedAt string   `dynamodbav:"revoked_at,omitempty"`
}

func (k keyIDItem) key() auth.Key {
	return keyItem{KeyID: k.KeyID, Digest: k.Digest, PartnerID: k.PartnerID, Mode: k.Mode,
		Scopes: k.Scopes, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt}.key()
}

func (k keyItem) key() auth.Key {
	out := auth.Key{KeyID: k.KeyID, Digest: k.Digest, PartnerID: k.PartnerID, Mode: auth.Mode(k.Mode)}
	for _, s := range k.Scopes {
		out.Scopes = append(out.Scopes, manifest.Scope(s))
	}
	out.CreatedAt, _ = time.Parse(lead.TimeLayout, k.CreatedAt)
	if k.RevokedAt != "" {
		t, _ := time.Parse(lead.TimeLayout, k.RevokedAt)
		out.RevokedAt = &t
	}
	return out
}

func (k keyItem) principal() auth.Principal {
	key := k.key()
	return auth.Principal{
		Tenant:   auth.Tenant{PartnerID: k.PartnerID, Mode: key.Mode},
		KeyID:    k.KeyID,
		Scopes:   key.Scopes,
		RateCard: k.RateCard,
	}
}

// CreatePartner stores a new partner. It fails if the id is taken.
func (s *Store) CreatePartner(ctx context.Context, p auth.Partner) error {
	pk, sk := partnerKey(p.ID)
	item, err := attributevalue.MarshalMap(partnerItem{
		PK: pk, SK: sk, Type: "partner", PartnerID: p.ID, Name: p.Name,
		RateCard: p.RateCard, CreatedAt: lead.FormatTime(p.CreatedAt),
	})
	if err != nil {
		return fmt.Errorf("marshal partner: %w", err)
	}
	cond, _ := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(table.PK))).Build()
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	})
	if err != nil {
		return upstream("put partner", err)
	}
	return nil
}

// GetPartner returns the partner with id, or a not_found *errcode.Error.
func (s *Store) GetPartner(ctx context.Context, id string) (auth.Partner, error) {
	pk, sk := partnerKey(id)
	var it partnerItem
	if err := s.getItem(ctx, pk, sk, "partner", &it); err != nil {
		return auth.Partner{}, err
	}
	created, _ := time.Parse(lead.TimeLayout, it.CreatedAt)
	return auth.Partner{ID: it.PartnerID, Name: it.Name, RateCard: it.RateCard, CreatedAt: created}, nil
}

// SetRateCard replaces partner id's rate card and copies it onto each of
// the partner's keys (which carry it for createLead). Not found → not_found.
func (s *Store) SetRateCard(ctx context.Context, id string, rc estimate.RateCard) error {
	pk, sk := partnerKey(id)
	av, err := attributevalue.Marshal(rc)
	if err != nil {
		return fmt.Errorf("marshal rate card: %w", err)
	}
	upd := expression.Set(expression.Name("rate_card"), expression.Value(av))
	cond := expression.AttributeExists(expression.Name(table.PK))
	expr, _ := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return notFound("partner")
	}
	if err != nil {
		return upstream("update partner rate card", err)
	}
	keys, err := s.ListKeys(ctx, id)
	if err != nil {
		return err
	}
	for _, k := range keys {
		kpk, ksk := apiKeyKey(k.Digest)
		_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &s.table, Key: keyAV(kpk, ksk),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		})
		if err != nil && !errors.As(err, &ccf) {
			return upstream("copy rate card to key "+k.KeyID, err)
		}
	}
	return nil
}

// CreateKey stores a new key record for an existing partner, copying the
// partner's rate card onto it. Unknown partner → not_found.
func (s *Store) CreateKey(ctx context.Context, k auth.Key) error {
	p, err := s.GetPartner(ctx, k.PartnerID)
	if err != nil {
		return err
	}
	pk, sk := apiKeyKey(k.Digest)
	created := lead.FormatTime(k.CreatedAt)
	g1pk, g1sk := partnerKeysIndex(k.PartnerID, created, k.KeyID)
	scopes := make([]string, len(k.Scopes))
	for i, sc := range k.Scopes {
		scopes[i] = string(sc)
	}
	item, err := attributevalue.MarshalMap(keyItem{
		PK: pk, SK: sk, Type: "api_key",
		KeyID: k.KeyID, Digest: k.Digest, PartnerID: k.PartnerID, Mode: string(k.Mode),
		Scopes: scopes, RateCard: p.RateCard, CreatedAt: created,
	})
	if err != nil {
		return fmt.Errorf("marshal key: %w", err)
	}
	ipk, isk := apiKeyIDKey(k.KeyID)
	idItem, err := attributevalue.MarshalMap(keyIDItem{
		PK: ipk, SK: isk, GSI1PK: g1pk, GSI1SK: g1sk, Type: "api_key_id",
		KeyID: k.KeyID, Digest: k.Digest, PartnerID: k.PartnerID, Mode: string(k.Mode),
		Scopes: scopes, CreatedAt: created,
	})
	if err != nil {
		return fmt.Errorf("marshal key id: %w", err)
	}
	cond, _ := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(table.PK))).Build()
	put := func(it map[string]types.AttributeValue) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{
			TableName: &s.table, Item: it,
			ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
		}}
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{put(item), put(idItem)},
	})
	if err != nil {
		return upstream("put key", err)
	}
	return nil
}

// RevokeKey marks the key with keyID revoked at now (keeping an earlier
// revocation time) and returns it. Revoking twice is not an error.
// Unknown id → not_found.
func (s *Store) RevokeKey(ctx context.Context, keyID string, now time.Time) (auth.Key, error) {
	ipk, isk := apiKeyIDKey(keyID)
	var ref keyIDItem
	if err := s.getItem(ctx, ipk, isk, "API key", &ref); err != nil {
		return auth.Key{}, err
	}
	pk, sk := apiKeyKey(ref.Digest)
	revoked := expression.Name("revoked_at")
	at := lead.FormatTime(now)
	upd := expression.Set(revoked, expression.IfNotExists(revoked, expression.Value(at)))
	expr, _ := expression.NewBuilder().WithUpdate(upd).
		WithCondition(expression.AttributeExists(expression.Name(table.PK))).Build()
	update := func(pk, sk string) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{
			TableName: &s.table, Key: keyAV(pk, sk),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}}
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{update(pk, sk), update(ipk, isk)},
	})
	var canceled *types.TransactionCanceledException
	if errors.As(err, &canceled) {
		return auth.Key{}, notFound("API key")
	}
	if err != nil {
		return auth.Key{}, upstream("revoke key", err)
	}
	if ref.RevokedAt == "" {
		ref.RevokedAt = at
	}
	return ref.key(), nil
}

// ListKeys returns the partner's key records, oldest first.
func (s *Store) ListKeys(ctx context.Context, partnerID string) ([]auth.Key, error) {
	g1pk, _ := partnerKeysIndex(partnerID, "", "")
	kc := expression.Key(tableGSI1PK()).Equal(expression.Value(g1pk))
	expr, _ := expression.NewBuilder().WithKeyCondition(kc).Build()
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(table.GSI1.Name),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	})
	var keys []auth.Key
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, upstream("query keys", err)
		}
		var items []keyIDItem
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
			return nil, fmt.Errorf("unmarshal keys: %w", err)
		}
		for _, it := range items {
			keys = append(keys, it.key())
		}
	}
	return keys, nil
}

func tableGSI1PK() string { return table.GSI1.PK }

func keyAV(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		table.PK: &types.AttributeValueMemberS{Value: pk},
		table.SK: &types.AttributeValueMemberS{Value: sk},
	}
}
