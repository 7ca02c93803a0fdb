package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// keyItem is an API key's authentication record. It also carries the key's
// rate-limit counter, so one conditional update authenticates and counts a
// request. It holds no partner settings (those live on the partner record
// only) and has no index attributes on purpose: an update of an indexed
// item also writes the index, which would double the write units every
// request pays.
type keyItem struct {
	PK        string   `dynamodbav:"pk"`
	SK        string   `dynamodbav:"sk"`
	Type      string   `dynamodbav:"type"`
	KeyID     string   `dynamodbav:"key_id"`
	Digest    string   `dynamodbav:"digest"`
	PartnerID string   `dynamodbav:"partner_id"`
	Mode      string   `dynamodbav:"mode"`
	Scopes    []string `dynamodbav:"scopes"`
	CreatedAt string   `dynamodbav:"created_at"`
	RevokedAt string   `dynamodbav:"revoked_at,omitempty"`
	RLWindow  int64    `dynamodbav:"rl_window"`
	RLCount   int      `dynamodbav:"rl_count"`
	// LastUsedAt is set by the update that admits a request (Admit): no
	// round trip of its own. It lives here only; ListKeys reads it.
	LastUsedAt string `dynamodbav:"last_used_at,omitempty"`
}

// keyIDItem is a key's listing record: found by key id (revocation) and in
// its partner's key listing (gsi1). It points to the authentication record
// by digest and mirrors its metadata.
type keyIDItem struct {
	PK        string     `dynamodbav:"pk"`
	SK        string     `dynamodbav:"sk"`
	GSI1PK    string     `dynamodbav:"gsi1pk"`
	GSI1SK    string     `dynamodbav:"gsi1sk"`
	Type      string     `dynamodbav:"type"`
	KeyID     string     `dynamodbav:"key_id"`
	Digest    string     `dynamodbav:"digest"`
	PartnerID string     `dynamodbav:"partner_id"`
	Mode      string     `dynamodbav:"mode"`
	Scopes    []string   `dynamodbav:"scopes"`
	CreatedAt string     `dynamodbav:"created_at"`
	RevokedAt string     `dynamodbav:"revoked_at,omitempty"`
	CreatedBy *actorItem `dynamodbav:"created_by,omitempty"`
}

// key returns the stored key; a stored time that does not parse is an
// error naming the item.
func (k keyIDItem) key() (auth.Key, error) {
	out := auth.Key{KeyID: k.KeyID, Digest: k.Digest, PartnerID: k.PartnerID, Mode: auth.Mode(k.Mode),
		Scopes: scopes(k.Scopes), CreatedBy: k.CreatedBy.actor()}
	var err error
	if out.CreatedAt, err = parseTime(k.PK, "created_at", k.CreatedAt); err != nil {
		return auth.Key{}, err
	}
	if k.RevokedAt != "" {
		t, err := parseTime(k.PK, "revoked_at", k.RevokedAt)
		if err != nil {
			return auth.Key{}, err
		}
		out.RevokedAt = &t
	}
	return out, nil
}

func (k keyItem) principal() auth.Principal {
	return auth.Principal{
		Tenant: auth.Tenant{PartnerID: k.PartnerID, Mode: auth.Mode(k.Mode)},
		KeyID:  k.KeyID,
		Scopes: scopes(k.Scopes),
	}
}

func scopes(ss []string) []auth.Scope {
	var out []auth.Scope
	for _, s := range ss {
		out = append(out, auth.Scope(s))
	}
	return out
}

// CreateKey stores a new key's authentication and listing records, and
// the audit entries given, in one transaction, for an existing partner.
// Unknown partner → not_found; a key id or digest that is taken →
// conflict (nothing written); any other failure is upstream_failed.
func (s *Store) CreateKey(ctx context.Context, k auth.Key, audits ...audit.Entry) error {
	if _, err := s.GetPartner(ctx, k.PartnerID); err != nil {
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
		Scopes: scopes, CreatedAt: created,
	})
	if err != nil {
		return fmt.Errorf("marshal key %s: %w", k.KeyID, err)
	}
	ipk, isk := apiKeyIDKey(k.KeyID)
	idItem, err := attributevalue.MarshalMap(keyIDItem{
		PK: ipk, SK: isk, GSI1PK: g1pk, GSI1SK: g1sk, Type: "api_key_id",
		KeyID: k.KeyID, Digest: k.Digest, PartnerID: k.PartnerID, Mode: string(k.Mode),
		Scopes: scopes, CreatedAt: created, CreatedBy: newActorItem(k.CreatedBy),
	})
	if err != nil {
		return fmt.Errorf("marshal key id %s: %w", k.KeyID, err)
	}
	puts, err := s.auditPuts(audits)
	if err != nil {
		return err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(table.PK))).Build()
	if err != nil {
		return fmt.Errorf("build put key condition: %w", err)
	}
	put := func(it map[string]types.AttributeValue) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{
			TableName: &s.table, Item: it,
			ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
		}}
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: append([]types.TransactWriteItem{put(item), put(idItem)}, puts...),
	})
	if hasReason(err, "ConditionalCheckFailed") {
		return errcode.New(errcode.Conflict, "An API key with id %s or the same secret already exists; nothing was written.", k.KeyID)
	}
	if err != nil {
		return upstream("put key", err)
	}
	return nil
}

// revokeAttempts bounds RevokeKey's tries when its transaction conflicts
// with concurrent writes of the key (every authenticated request updates
// the key's record); revokeBackoff is the first pause, doubled each time.
const (
	revokeAttempts = 5
	revokeBackoff  = 20 * time.Millisecond
)

// RevokeKey marks the key with keyID revoked at now (keeping an earlier
// revocation time), in one transaction over its two records and the audit
// entries given, and returns it as stored. Revoking twice is not an error.
//
// Unknown id → not_found. A transaction cancelled by a concurrent write of
// the key is retried, a few times with a short backoff, then conflict. Any
// other failure is upstream_failed.
func (s *Store) RevokeKey(ctx context.Context, keyID string, now time.Time, audits ...audit.Entry) (auth.Key, error) {
	ipk, isk := apiKeyIDKey(keyID)
	var ref keyIDItem
	if err := s.getItem(ctx, ipk, isk, "API key", &ref); err != nil {
		return auth.Key{}, err
	}
	in, err := s.revokeInput(ref, now)
	if err != nil {
		return auth.Key{}, err
	}
	puts, err := s.auditPuts(audits)
	if err != nil {
		return auth.Key{}, err
	}
	in.TransactItems = append(in.TransactItems, puts...)
	for attempt := 1; ; attempt++ {
		_, err := s.db.TransactWriteItems(ctx, in)
		switch {
		case err == nil:
			// Read back: a concurrent revocation's earlier time wins.
			if err := s.getItem(ctx, ipk, isk, "API key", &ref); err != nil {
				return auth.Key{}, err
			}
			return ref.key()
		case hasReason(err, "ConditionalCheckFailed"):
			return auth.Key{}, notFound("API key")
		case !hasReason(err, "TransactionConflict"):
			return auth.Key{}, upstream("revoke key", err)
		case attempt == revokeAttempts:
			return auth.Key{}, errcode.New(errcode.Conflict,
				"The API key %s kept changing concurrently; it was not revoked. Try again.", keyID)
		}
		if err := sleep(ctx, backoff(revokeBackoff, attempt)); err != nil {
			return auth.Key{}, fmt.Errorf("revoke key %s: %w", keyID, err)
		}
	}
}

// revokeInput is the transaction that sets revoked_at (unless set) on
// both records of ref's key, each conditional on the record existing.
func (s *Store) revokeInput(ref keyIDItem, now time.Time) (*dynamodb.TransactWriteItemsInput, error) {
	revoked := expression.Name("revoked_at")
	upd := expression.Set(revoked, expression.IfNotExists(revoked, expression.Value(lead.FormatTime(now))))
	expr, err := expression.NewBuilder().WithUpdate(upd).
		WithCondition(expression.AttributeExists(expression.Name(table.PK))).Build()
	if err != nil {
		return nil, fmt.Errorf("build revoke update: %w", err)
	}
	update := func(pk, sk string) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{
			TableName: &s.table, Key: keyAV(pk, sk),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}}
	}
	pk, sk := apiKeyKey(ref.Digest)
	return &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{update(pk, sk), update(ref.PK, ref.SK)},
	}, nil
}

// hasReason reports whether err is a cancelled transaction with a
// cancellation reason of code (ConditionalCheckFailed,
// TransactionConflict, ...).
func hasReason(err error, code string) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return false
	}
	for _, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) == code {
			return true
		}
	}
	return false
}

// backoff returns the pause before try attempt+1: base doubled per earlier
// attempt, with up to half of it added at random so that contenders spread.
func backoff(base time.Duration, attempt int) time.Duration {
	d := base << (attempt - 1)
	return d + rand.N(d/2+1)
}

// sleep waits d or until ctx ends (then its error).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// GetKey returns the key record with keyID (never the key), without its
// last use; unknown id → not_found.
func (s *Store) GetKey(ctx context.Context, keyID string) (auth.Key, error) {
	ipk, isk := apiKeyIDKey(keyID)
	var ref keyIDItem
	if err := s.getItem(ctx, ipk, isk, "API key", &ref); err != nil {
		return auth.Key{}, err
	}
	return ref.key()
}

// ListKeys returns the partner's key records, oldest first, reading every
// page of its listing, each with its last use (one BatchGetItem of the
// authentication records per 100 keys). A failed read is upstream_failed.
func (s *Store) ListKeys(ctx context.Context, partnerID string) ([]auth.Key, error) {
	keys, err := s.listKeyRecords(ctx, partnerID)
	if err != nil {
		return nil, err
	}
	for start := 0; start < len(keys); start += maxBatchGet {
		if err := s.readLastUsed(ctx, keys[start:min(start+maxBatchGet, len(keys))]); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// maxBatchGet is the most keys one BatchGetItem takes.
const maxBatchGet = 100

// readLastUsed sets LastUsedAt of each of keys from its authentication
// record, retrying the keys DynamoDB leaves unprocessed.
func (s *Store) readLastUsed(ctx context.Context, keys []auth.Key) error {
	byDigest := map[string]*auth.Key{}
	req := types.KeysAndAttributes{ProjectionExpression: aws.String("digest, last_used_at"), ConsistentRead: aws.Bool(true)}
	for i := range keys {
		byDigest[keys[i].Digest] = &keys[i]
		pk, sk := apiKeyKey(keys[i].Digest)
		req.Keys = append(req.Keys, keyAV(pk, sk))
	}
	pending := map[string]types.KeysAndAttributes{s.table: req}
	for attempt := 1; len(pending) > 0; attempt++ {
		res, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending, ReturnConsumedCapacity: capacity})
		if err != nil {
			return upstream("read keys' last use", err)
		}
		var items []struct {
			Digest     string `dynamodbav:"digest"`
			LastUsedAt string `dynamodbav:"last_used_at"`
		}
		if err := attributevalue.UnmarshalListOfMaps(res.Responses[s.table], &items); err != nil {
			return fmt.Errorf("unmarshal keys' last use: %w", err)
		}
		for _, it := range items {
			k := byDigest[it.Digest]
			if k == nil || it.LastUsedAt == "" {
				continue
			}
			t, err := parseTime(table.AuthKeyPrefix+it.Digest, "last_used_at", it.LastUsedAt)
			if err != nil {
				return err
			}
			k.LastUsedAt = &t
		}
		pending = res.UnprocessedKeys
		if len(pending) > 0 {
			if err := sleep(ctx, backoff(revokeBackoff, min(attempt, 5))); err != nil {
				return fmt.Errorf("read keys' last use: %w", err)
			}
		}
	}
	return nil
}

// listKeyRecords is ListKeys' query of the partner's listing records.
func (s *Store) listKeyRecords(ctx context.Context, partnerID string) ([]auth.Key, error) {
	g1pk, _ := partnerKeysIndex(partnerID, "", "")
	kc := expression.Key(table.GSI1.PK).Equal(expression.Value(g1pk))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return nil, fmt.Errorf("build keys query: %w", err)
	}
	return queryAll(ctx, s, &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(table.GSI1.Name),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	}, "keys", keyIDItem.key)
}

func keyAV(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		table.PK: &types.AttributeValueMemberS{Value: pk},
		table.SK: &types.AttributeValueMemberS{Value: sk},
	}
}
