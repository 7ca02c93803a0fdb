package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/table"
)

func TestStreamViewIsAViewType(t *testing.T) {
	if !slices.Contains(types.StreamViewType("").Values(), types.StreamViewType(table.StreamView)) {
		t.Errorf("table.StreamView = %q; want one of %v", table.StreamView, types.StreamViewType("").Values())
	}
}

// describe returns the description of the table named name.
func describe(t *testing.T, db *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("describe table %s: %v", name, err)
	}
	return out.Table
}

// checkStream fails t unless the table streams the schema's view.
func checkStream(t *testing.T, d *types.TableDescription) {
	t.Helper()
	spec := d.StreamSpecification
	if spec == nil || !aws.ToBool(spec.StreamEnabled) || spec.StreamViewType != types.StreamViewType(table.StreamView) {
		t.Errorf("stream specification = %+v; want enabled with %s", spec, table.StreamView)
	}
	if aws.ToString(d.LatestStreamArn) == "" {
		t.Error("table has no LatestStreamArn")
	}
}

func TestCreateTableEnablesStream(t *testing.T) {
	s := newStore(t)
	checkStream(t, describe(t, s.db, s.table))
}

func TestCreateTableWithoutStream(t *testing.T) {
	db := newClient(t)
	name := fmt.Sprintf("test-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	if err := CreateTableWithoutStream(context.Background(), db, name); err != nil {
		t.Fatalf("CreateTableWithoutStream: %v", err)
	}
	t.Cleanup(func() { _, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name}) })
	d := describe(t, db, name)
	if d.StreamSpecification != nil && aws.ToBool(d.StreamSpecification.StreamEnabled) {
		t.Errorf("stream %+v; want none", d.StreamSpecification)
	}
	if d.LatestStreamArn != nil {
		t.Errorf("LatestStreamArn = %s; want none", aws.ToString(d.LatestStreamArn))
	}
}

// newBareTable creates a table from the schema with the stream given by
// spec (nil: none), dropped when the test ends.
func newBareTable(t *testing.T, db *dynamodb.Client, spec *types.StreamSpecification) string {
	t.Helper()
	name := fmt.Sprintf("test-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	in := CreateTableInput(name)
	in.StreamSpecification = spec
	if _, err := db.CreateTable(context.Background(), in); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() { _, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name}) })
	return name
}

func TestCreateTableTurnsStreamOnForExistingTable(t *testing.T) {
	db := newClient(t)
	name := newBareTable(t, db, nil)
	if err := CreateTable(context.Background(), db, name); err != nil {
		t.Fatalf("CreateTable over a table without a stream: %v", err)
	}
	checkStream(t, describe(t, db, name))
	// Again: the stream is on, nothing to do.
	arn := aws.ToString(describe(t, db, name).LatestStreamArn)
	if err := CreateTable(context.Background(), db, name); err != nil {
		t.Fatalf("CreateTable over a table with the stream: %v", err)
	}
	if got := aws.ToString(describe(t, db, name).LatestStreamArn); got != arn {
		t.Errorf("LatestStreamArn = %s after a second CreateTable; want %s (the same stream)", got, arn)
	}
}

func TestCreateTableRefusesAnotherStreamView(t *testing.T) {
	db := newClient(t)
	name := newBareTable(t, db, &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly})
	err := CreateTable(context.Background(), db, name)
	if err == nil || !strings.Contains(err.Error(), string(types.StreamViewTypeKeysOnly)) {
		t.Fatalf("CreateTable over a KEYS_ONLY stream: err = %v; want one naming KEYS_ONLY", err)
	}
}
