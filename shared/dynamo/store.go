// Package dynamo is the DynamoDB adapter: the single-table model (one key
// builder per entity and index, in keys.go) and the reads and writes every
// function needs. Conditional-write failures are turned into domain errors
// here; any other failure of DynamoDB, after the SDK's own retries, becomes
// errcode.UpstreamFailed.
//
// Access patterns (README: "Single-table design"):
//
//	authenticate + count a request    UpdateItem  APIKEY#<sha256>           / APIKEY
//	key by id (revoke)                GetItem     APIKEYID#<key_id>         / APIKEYID
//	partner's keys                    Query gsi1  PARTNER#<id>#APIKEYS      / <created_at>#<key_id>
//	partner profile                   GetItem     PARTNER#<id>              / PROFILE
//	lead                              GetItem     PARTNER#<id>#MODE#<m>#LEAD#<lead_id> / LEAD
//	leads by (updated_at, lead_id)    Query gsi1  PARTNER#<id>#MODE#<m>#LEADS / <updated_at>#<lead_id>
//	idempotency key                   PutItem/GetItem PARTNER#<id>#MODE#<m>#IDEM#<op>#<sha256(key)> / IDEM
package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/errcode"
)

// Store reads and writes the service's single table.
type Store struct {
	db    *dynamodb.Client
	table string
	// window remembers, per key digest, the last rate-limit window this
	// instance saw, to pick the update that most likely succeeds first.
	window sync.Map
}

// New returns a Store over the table named table.
func New(db *dynamodb.Client, table string) *Store {
	return &Store{db: db, table: table}
}

// Table returns the table's name.
func (s *Store) Table() string { return s.table }

// upstream wraps a DynamoDB failure (after the SDK's retries) as
// upstream_failed, keeping the cause for logs.
func upstream(what string, err error) error {
	return errcode.Upstream(what, err)
}

// capacity asks DynamoDB to report consumed capacity, which the benchmarks
// read through SDK middleware.
const capacity = types.ReturnConsumedCapacityTotal

// getItem reads the item (pk, sk) with a strongly consistent read into out.
// It returns not_found naming what when there is none.
func (s *Store) getItem(ctx context.Context, pk, sk, what string, out any) error {
	res, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: capacity,
	})
	if err != nil {
		return upstream("get "+what, err)
	}
	if res.Item == nil {
		return notFound(what)
	}
	if err := attributevalue.UnmarshalMap(res.Item, out); err != nil {
		return fmt.Errorf("unmarshal %s: %w", what, err)
	}
	return nil
}

func notFound(what string) error {
	return errcode.New(errcode.NotFound, "No %s with that id exists for this API key.", what)
}
