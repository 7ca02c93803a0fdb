// Package streamevent is the DynamoDB-stream edge of the service: it turns
// a batch of the table's stream records (aws-lambda-go's
// events.DynamoDBEvent, as Lambda delivers it to a function with a
// DynamoDB stream trigger and as shared/local/streamlocal delivers it locally)
// into one call of a Processor per record, in order, and logs one JSON line
// per record. Like shared/edge/s3event for S3, it only decodes and reports; the
// work lives in the feature package.
//
// # Partial batch failures
//
// The handler reports the first record that fails as the batch's one item
// failure (events.DynamoDBEventResponse.BatchItemFailures, the
// ReportBatchItemFailures response of the event source mapping) and stops
// there. For a stream, Lambda does not retry failed records alone: it
// checkpoints before the lowest reported sequence number and invokes the
// function again with the records from that one on. So the failed record
// and every record after it in the shard come again, in order, and none
// that succeeded before it does; a record after it is never skipped, which
// is why the handler does not go on to process them now (they would run
// twice and, worse, run before the record they follow). A handler error
// would retry the whole batch; the handler never returns one.
package streamevent

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/spec/table"
)

// The event names of stream records.
const (
	Insert = "INSERT" // a new item
	Modify = "MODIFY" // an item replaced or updated
	Remove = "REMOVE" // an item deleted, by a request or by TTL
)

// Record is one stream record as a processor sees it, with the item's
// attributes as the DynamoDB SDK's types (so feature/dynamodb/attributevalue
// unmarshals them into the adapter's item structs).
type Record struct {
	// EventID identifies the record, unique across the stream.
	EventID string
	// EventName is Insert, Modify or Remove.
	EventName string
	// Keys are the item's key attributes (table.PK and table.SK).
	Keys map[string]types.AttributeValue
	// NewImage is the item after the change; nil for Remove.
	NewImage map[string]types.AttributeValue
	// OldImage is the item before the change; nil for Insert.
	OldImage map[string]types.AttributeValue
	// SequenceNumber orders the records of one shard, which holds every
	// change of an item in order: a later change has a greater number.
	// It is a decimal of 21 to 40 digits: compare lengths, then strings.
	SequenceNumber string
	// Created is when the change was made, approximately: DynamoDB rounds
	// it down to the second, DynamoDB Local to the minute.
	Created time.Time
	// Expired reports a Remove made by DynamoDB's TTL process
	// (table.TTLAttribute) rather than by a request.
	Expired bool
}

// Processor handles one stream record. The stream delivers every record at
// least once, so Process must be idempotent: a record it already handled
// changes nothing the second time. An error means "try again later": the
// record and every later one of its shard are delivered again (see the
// package documentation), so a record the processor refuses for good (one
// it does not handle, a malformed item) must not be an error, or it would
// hold up its shard until the stream drops it (24 hours).
type Processor interface {
	Process(ctx context.Context, r Record) error
}

// Handler is the signature aws-lambda-go starts for DynamoDB stream
// batches with partial batch failures reported.
type Handler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// New returns the handler that runs p on the records of a batch in their
// order and logs one line per record to log (nil discards): its event
// name, item keys (pk and sk, never other attributes, which may hold
// secrets), sequence number and duration. At the first record that fails
// (p fails, or the record cannot be converted), it logs the error, stops,
// and reports that record as the batch's item failure, so that it and the
// records after it are delivered again. It never returns an error.
func New(p Processor, log *slog.Logger) Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		for i, er := range ev.Records {
			start := time.Now()
			attrs := []slog.Attr{
				slog.String("event", er.EventName), slog.Int("record", i),
				slog.String(table.PK, keyString(er.Change.Keys[table.PK])),
				slog.String(table.SK, keyString(er.Change.Keys[table.SK])),
				slog.String("sequence_number", er.Change.SequenceNumber),
			}
			r, err := recordOf(er)
			if err == nil {
				err = p.Process(ctx, r)
			}
			attrs = append(attrs, slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
			if err != nil {
				attrs = append(attrs, slog.String("error", err.Error()), slog.Int("retried_after_it", len(ev.Records)-i-1))
				log.LogAttrs(ctx, slog.LevelError, "stream record failed", attrs...)
				return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{
					{ItemIdentifier: er.Change.SequenceNumber},
				}}, nil
			}
			log.LogAttrs(ctx, slog.LevelInfo, "stream record", attrs...)
		}
		return events.DynamoDBEventResponse{}, nil
	}
}

// keyString is a key attribute's value for a log line: the string of an S
// attribute (the table's keys are strings), "" for anything else.
func keyString(av events.DynamoDBAttributeValue) string {
	if av.DataType() != events.DataTypeString {
		return ""
	}
	return av.String()
}

// ttlPrincipal is the userIdentity of a record that DynamoDB's TTL process
// made by deleting an expired item.
var ttlPrincipal = events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}

// recordOf converts a record of a Lambda event; it fails only when an
// attribute value cannot be converted (see attributeValue).
func recordOf(er events.DynamoDBEventRecord) (Record, error) {
	keys, err := image(er.Change.Keys)
	if err != nil {
		return Record{}, fmt.Errorf("keys: %w", err)
	}
	newImage, err := image(er.Change.NewImage)
	if err != nil {
		return Record{}, fmt.Errorf("new image: %w", err)
	}
	oldImage, err := image(er.Change.OldImage)
	if err != nil {
		return Record{}, fmt.Errorf("old image: %w", err)
	}
	return Record{
		EventID: er.EventID, EventName: er.EventName,
		Keys: keys, NewImage: newImage, OldImage: oldImage,
		SequenceNumber: er.Change.SequenceNumber,
		Created:        er.Change.ApproximateCreationDateTime.Time,
		Expired:        er.UserIdentity != nil && *er.UserIdentity == ttlPrincipal,
	}, nil
}
