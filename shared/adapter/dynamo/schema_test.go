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

	"github.com/moveleads/partnerapi/shared/spec/table"
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
		t.Errorf("table %s: stream specification = %+v; want enabled with %s", aws.ToString(d.TableName), spec, table.StreamView)
	}
	if aws.ToString(d.LatestStreamArn) == "" {
		t.Errorf("table %s has no LatestStreamArn", aws.ToString(d.TableName))
	}
}

// checkNoStream fails t unless the table has no stream.
func checkNoStream(t *testing.T, d *types.TableDescription) {
	t.Helper()
	if d.StreamSpecification != nil && aws.ToBool(d.StreamSpecification.StreamEnabled) {
		t.Errorf("table %s: stream %+v; want none", aws.ToString(d.TableName), d.StreamSpecification)
	}
	if d.LatestStreamArn != nil {
		t.Errorf("table %s: LatestStreamArn = %s; want none", aws.ToString(d.TableName), aws.ToString(d.LatestStreamArn))
	}
}

// newTables creates the main and events tables named after a fresh name
// with create, dropped when the test ends, and returns the name.
func newTables(t *testing.T, db *dynamodb.Client, create func(context.Context, *dynamodb.Client, string) error) string {
	t.Helper()
	name := fmt.Sprintf("test-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	t.Cleanup(func() { _ = DeleteTables(context.Background(), db, name) })
	if err := create(context.Background(), db, name); err != nil {
		t.Fatalf("create tables %s: %v", name, err)
	}
	return name
}

func TestCreateTablesWithoutStream(t *testing.T) {
	db := newClient(t)
	name := newTables(t, db, CreateTables)
	checkNoStream(t, describe(t, db, name))
	ev := describe(t, db, table.EventsName(name))
	checkNoStream(t, ev)
	var got, want []string
	for _, ix := range ev.GlobalSecondaryIndexes {
		got = append(got, aws.ToString(ix.IndexName))
	}
	for _, ix := range table.EventIndexes {
		want = append(want, ix.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("events table's indexes = %v; want table.EventIndexes %v", got, want)
	}
}

// The main table never streams: the rate-limit counter's update on every
// request, leads and the rest stay off the streamed path; only the events
// table streams, and only when asked.
func TestCreateTablesWithStreamStreamsOnlyEvents(t *testing.T) {
	db := newClient(t)
	name := newTables(t, db, CreateTablesWithStream)
	checkNoStream(t, describe(t, db, name))
	checkStream(t, describe(t, db, table.EventsName(name)))
}

// newBareEventsTable creates the events table of a fresh main table name
// with the stream given by spec (nil: none), dropped when the test ends,
// and returns the main table's name.
func newBareEventsTable(t *testing.T, db *dynamodb.Client, spec *types.StreamSpecification) string {
	t.Helper()
	name := fmt.Sprintf("test-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	in := EventsTableInput(table.EventsName(name), false)
	in.StreamSpecification = spec
	t.Cleanup(func() { _ = DeleteTables(context.Background(), db, name) })
	if _, err := db.CreateTable(context.Background(), in); err != nil {
		t.Fatalf("create table: %v", err)
	}
	return name
}

func TestCreateTablesWithStreamTurnsStreamOnForExistingTable(t *testing.T) {
	db := newClient(t)
	name := newBareEventsTable(t, db, nil)
	events := table.EventsName(name)
	if err := CreateTablesWithStream(context.Background(), db, name); err != nil {
		t.Fatalf("CreateTablesWithStream over an events table without a stream: %v", err)
	}
	checkStream(t, describe(t, db, events))
	// Again: the stream is on, nothing to do.
	arn := aws.ToString(describe(t, db, events).LatestStreamArn)
	if err := CreateTablesWithStream(context.Background(), db, name); err != nil {
		t.Fatalf("CreateTablesWithStream over an events table with the stream: %v", err)
	}
	if got := aws.ToString(describe(t, db, events).LatestStreamArn); got != arn {
		t.Errorf("LatestStreamArn = %s after a second CreateTablesWithStream; want %s (the same stream)", got, arn)
	}
}

func TestCreateTablesWithStreamRefusesAnotherStreamView(t *testing.T) {
	db := newClient(t)
	name := newBareEventsTable(t, db, &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly})
	err := CreateTablesWithStream(context.Background(), db, name)
	if err == nil || !strings.Contains(err.Error(), string(types.StreamViewTypeKeysOnly)) {
		t.Fatalf("CreateTablesWithStream over a KEYS_ONLY stream: err = %v; want one naming KEYS_ONLY", err)
	}
}
