// Package streamlocal drives a stream-triggered function's handler from
// the stream of a table in DynamoDB Local, as Lambda's event source
// mapping drives it from the table's stream in AWS: make dev and tests run
// the same handler (shared/edge/streamevent's, say) on the same
// events.DynamoDBEvent batches, with the same partial-batch-failure
// contract.
//
// [Poll] reads the stream through the DynamoDB Streams API, which DynamoDB
// Local serves on its DynamoDB endpoint, until ctx ends; [StreamsClient]
// makes the Streams client for a DynamoDB client's endpoint:
//
//	err := streamlocal.Poll(ctx, db, streamlocal.StreamsClient(db), table,
//		streamlocal.TrimHorizon, 100, handler, log)
//
// Delivery is at least once and in order per shard: a failed batch is
// delivered again, and with BatchItemFailures the records from the lowest
// reported one on; nothing after a failed record is delivered before it
// succeeds. Progress is kept in memory, and a failing record is retried
// until Poll stops (no retry limit or on-failure destination).
//
// For the local stack and tests only; no function links it. How it
// differs from Lambda's mapping: docs/LOCAL.md.
package streamlocal
