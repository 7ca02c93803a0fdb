package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/spec/table"
)

// CreateTableInput returns the CreateTable request for the main table of
// the schema in package table, on-demand billing, with no stream (only the
// events table has one: EventsTableInput).
func CreateTableInput(name string) *dynamodb.CreateTableInput {
	attrs, gsis := indexes(table.Indexes)
	return &dynamodb.CreateTableInput{
		TableName:              aws.String(name),
		AttributeDefinitions:   attrs,
		KeySchema:              keySchema(),
		GlobalSecondaryIndexes: gsis,
		BillingMode:            types.BillingModePayPerRequest,
	}
}

// indexes are the attribute definitions (the base keys, then each index
// key once: the events indexes share their sort key) and the global
// secondary indexes, projecting all attributes, of ixs.
func indexes(ixs []table.Index) ([]types.AttributeDefinition, []types.GlobalSecondaryIndex) {
	attrs := []types.AttributeDefinition{
		{AttributeName: aws.String(table.PK), AttributeType: types.ScalarAttributeTypeS},
		{AttributeName: aws.String(table.SK), AttributeType: types.ScalarAttributeTypeS},
	}
	seen := map[string]bool{table.PK: true, table.SK: true}
	var gsis []types.GlobalSecondaryIndex
	for _, ix := range ixs {
		for _, a := range []string{ix.PK, ix.SK} {
			if !seen[a] {
				seen[a] = true
				attrs = append(attrs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
			}
		}
		gsis = append(gsis, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(ix.PK), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(ix.SK), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		})
	}
	return attrs, gsis
}

// EventsTableInput returns the CreateTable request for the events table
// named name (table.EventsName): the main table's keys, the listing
// indexes (table.EventIndexes), on-demand billing, and the stream when
// stream is set.
func EventsTableInput(name string, stream bool) *dynamodb.CreateTableInput {
	attrs, gsis := indexes(table.EventIndexes)
	in := &dynamodb.CreateTableInput{
		TableName:              aws.String(name),
		AttributeDefinitions:   attrs,
		KeySchema:              keySchema(),
		GlobalSecondaryIndexes: gsis,
		BillingMode:            types.BillingModePayPerRequest,
	}
	if stream {
		in.StreamSpecification = streamSpecification()
	}
	return in
}

func keySchema() []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(table.PK), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(table.SK), KeyType: types.KeyTypeRange},
	}
}

// streamSpecification turns the events table's stream on with the
// schema's view (table.StreamView).
func streamSpecification() *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(table.StreamView)}
}

// CreateTables creates the main table named name and its events table
// (table.EventsName(name)) from the schema, each unless it exists, waits
// until they are active and turns on TTL, with no stream on either: for
// local stacks and tests in which nothing reads the stream. DynamoDB Local
// slows every write to a streamed table as its stream records pile up
// (docs/BENCHMARKS.md), which AWS does not. Deployed tables come from the
// CDK stack.
func CreateTables(ctx context.Context, db *dynamodb.Client, name string) error {
	return createTables(ctx, db, name, false)
}

// CreateTablesWithStream is CreateTables with the events table's stream on
// (make dev, the stream tests, the webhooks benchmark: what runs the
// dispatcher). An events table that exists without a stream gets it
// turned on; one whose stream has another view than table.StreamView is
// an error, since DynamoDB changes a view only by turning the stream off
// and on, which starts a new stream and drops the records of the old one
// from whoever reads it: delete the table instead.
func CreateTablesWithStream(ctx context.Context, db *dynamodb.Client, name string) error {
	return createTables(ctx, db, name, true)
}

func createTables(ctx context.Context, db *dynamodb.Client, name string, stream bool) error {
	if _, err := createTable(ctx, db, CreateTableInput(name)); err != nil {
		return err
	}
	events := table.EventsName(name)
	out, err := createTable(ctx, db, EventsTableInput(events, stream))
	if err != nil {
		return err
	}
	if stream {
		return enableStream(ctx, db, events, out.StreamSpecification)
	}
	return nil
}

// createTable creates the table of in unless it exists, waits until it is
// active, turns TTL on and returns its description.
func createTable(ctx context.Context, db *dynamodb.Client, in *dynamodb.CreateTableInput) (*types.TableDescription, error) {
	name := aws.ToString(in.TableName)
	_, err := db.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return nil, fmt.Errorf("create table %s: %w", name, err)
	}
	w := dynamodb.NewTableExistsWaiter(db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
	})
	out, err := w.WaitForOutput(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute)
	if err != nil {
		return nil, fmt.Errorf("wait for table %s: %w", name, err)
	}
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(table.TTLAttribute), Enabled: aws.Bool(true),
		},
	})
	if err != nil && !isTTLAlreadyOn(err) {
		return nil, fmt.Errorf("enable ttl on %s: %w", name, err)
	}
	return out.Table, nil
}

// enableStream turns on the stream of an existing table whose description
// has spec, unless it is on with the schema's view already.
func enableStream(ctx context.Context, db *dynamodb.Client, name string, spec *types.StreamSpecification) error {
	want := streamSpecification()
	if spec != nil && aws.ToBool(spec.StreamEnabled) {
		if spec.StreamViewType != want.StreamViewType {
			return fmt.Errorf("table %s streams %s; the schema wants %s (delete the table to recreate it)", name, spec.StreamViewType, want.StreamViewType)
		}
		return nil
	}
	if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), StreamSpecification: want}); err != nil {
		return fmt.Errorf("enable stream on %s: %w", name, err)
	}
	w := dynamodb.NewTableExistsWaiter(db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	return nil
}

func isTTLAlreadyOn(err error) bool {
	var ve interface{ ErrorMessage() string }
	return errors.As(err, &ve) && strings.Contains(ve.ErrorMessage(), "already enabled")
}

// DeleteTables deletes the main table named name and its events table,
// for tests and benchmarks that made them with CreateTables. It returns the
// first failure; a table that does not exist is not one.
func DeleteTables(ctx context.Context, db *dynamodb.Client, name string) error {
	var first error
	for _, n := range []string{name, table.EventsName(name)} {
		_, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(n)})
		var missing *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &missing) && first == nil {
			first = fmt.Errorf("delete table %s: %w", n, err)
		}
	}
	return first
}
