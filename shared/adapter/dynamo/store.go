// Package dynamo is the DynamoDB adapter: the single-table model (one key
// builder per entity and index, in keys.go) and the reads and writes every
// function needs. Conditional-write failures are turned into domain errors
// here; any other failure of DynamoDB, after the SDK's own retries, becomes
// errcode.UpstreamFailed.
//
// Every access pattern (what is read or written, with which call, under
// which keys) is listed once, by AccessPatterns in patterns.go, with the
// keys rendered by the key builders themselves; `make docs` prints it in
// the README's "Single-table design" table.
//
// The lead item carries its latest
// survey's id and status and the recommended estimate, and its current
// quote's and latest deposit's refs (quotes.go), so getLead is one
// GetItem, two once the survey is inventory_ready: the survey's inventory
// stays on the survey item (GetLeadDetail).
//
// Partner settings live on the partner record only: key records carry no
// copy, so a change is one write and every key sees it on its next read.
package dynamo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// Store reads and writes the service's single table, and the events
// table that holds the webhook events owed (events.go).
type Store struct {
	db     *dynamodb.Client
	table  string
	events string
	// window remembers, per key digest, the last rate-limit window this
	// instance saw, to pick the update that most likely succeeds first.
	window sync.Map
}

// New returns a Store over the table named name and its events table
// under the local name (table.EventsName).
func New(db *dynamodb.Client, name string) *Store {
	return NewWithEvents(db, name, table.EventsName(name))
}

// NewWithEvents returns a Store over the table named name and the events
// table named events (a deployed stack names them apart).
func NewWithEvents(db *dynamodb.Client, name, events string) *Store {
	return &Store{db: db, table: name, events: events}
}

// Table returns the table's name.
func (s *Store) Table() string { return s.table }

// EventsTable returns the events table's name.
func (s *Store) EventsTable() string { return s.events }

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
	return s.getItemIn(ctx, s.table, pk, sk, what, out)
}

// getItemIn is getItem from the table named name.
func (s *Store) getItemIn(ctx context.Context, name, pk, sk, what string, out any) error {
	res, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &name, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true),
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

// parseTime reads the stored time attr of the item with partition key pk.
// A value that does not parse is an error naming the item, never the zero
// time.
func parseTime(pk, attr, v string) (time.Time, error) {
	t, err := time.Parse(lead.TimeLayout, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("item %s: stored %s %q is not a time: %w", pk, attr, v, err)
	}
	return t, nil
}

// queryAll runs in through every page and converts each item (unmarshalled
// as I) with conv; what names the items in errors. A failed query is
// upstream_failed; the answer is never nil.
func queryAll[I, T any](ctx context.Context, s *Store, in *dynamodb.QueryInput, what string, conv func(I) (T, error)) ([]T, error) {
	out := []T{}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, upstream("query "+what, err)
		}
		var items []I
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
			return nil, fmt.Errorf("unmarshal %s: %w", what, err)
		}
		for _, it := range items {
			v, err := conv(it)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	return out, nil
}
