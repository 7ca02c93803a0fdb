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

	"github.com/moveleads/partnerapi/shared/table"
)

// CreateTableInput returns the CreateTable request for the schema in package
// table, on-demand billing.
func CreateTableInput(name string) *dynamodb.CreateTableInput {
	attrs := []types.AttributeDefinition{
		{AttributeName: aws.String(table.PK), AttributeType: types.ScalarAttributeTypeS},
		{AttributeName: aws.String(table.SK), AttributeType: types.ScalarAttributeTypeS},
	}
	var gsis []types.GlobalSecondaryIndex
	for _, ix := range table.Indexes {
		attrs = append(attrs,
			types.AttributeDefinition{AttributeName: aws.String(ix.PK), AttributeType: types.ScalarAttributeTypeS},
			types.AttributeDefinition{AttributeName: aws.String(ix.SK), AttributeType: types.ScalarAttributeTypeS})
		gsis = append(gsis, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(ix.PK), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(ix.SK), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		})
	}
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrs,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(table.PK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(table.SK), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: gsis,
		BillingMode:            types.BillingModePayPerRequest,
		StreamSpecification:    streamSpecification(),
	}
}

// streamSpecification turns the table's stream on with the schema's view
// (table.StreamView).
func streamSpecification() *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(table.StreamView)}
}

// CreateTable creates the table named name from the schema (unless it
// exists), waits until it is active and turns on TTL and the stream. It is
// for local stacks and tests; deployed tables come from the CDK stack.
//
// A table that exists without a stream (made before the schema had one)
// gets it turned on; one whose stream has another view than
// table.StreamView is an error, since DynamoDB changes a view only by
// turning the stream off and on, which starts a new stream and drops the
// records of the old one from whoever reads it: delete the table instead.
func CreateTable(ctx context.Context, db *dynamodb.Client, name string) error {
	return createTable(ctx, db, name, true)
}

// CreateTableWithoutStream is CreateTable for a local table nothing reads
// the stream of (a load benchmark): DynamoDB Local slows every write to a
// streamed table as its stream records pile up (docs/BENCHMARKS.md), which
// AWS does not.
func CreateTableWithoutStream(ctx context.Context, db *dynamodb.Client, name string) error {
	return createTable(ctx, db, name, false)
}

func createTable(ctx context.Context, db *dynamodb.Client, name string, stream bool) error {
	in := CreateTableInput(name)
	if !stream {
		in.StreamSpecification = nil
	}
	_, err := db.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	w := dynamodb.NewTableExistsWaiter(db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
	})
	out, err := w.WaitForOutput(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute)
	if err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	if stream {
		if err := enableStream(ctx, db, name, out.Table.StreamSpecification); err != nil {
			return err
		}
	}
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(table.TTLAttribute), Enabled: aws.Bool(true),
		},
	})
	if err != nil && !isTTLAlreadyOn(err) {
		return fmt.Errorf("enable ttl on %s: %w", name, err)
	}
	return nil
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
