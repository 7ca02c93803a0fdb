// Package streamlocal drives a stream-triggered function's handler from
// the stream of a table in DynamoDB Local, as Lambda's event source
// mapping drives it from the table's stream in AWS: the local stack
// (make dev) and tests run the same handler (shared/edge/streamevent's, say)
// on the same events.DynamoDBEvent batches, decoded from the same JSON,
// with the same partial-batch-failure contract.
//
// [Poll] reads the stream through the DynamoDB Streams API (DescribeTable
// for the stream's ARN, DescribeStream for its shards, GetShardIterator
// and GetRecords), which DynamoDB Local serves on its DynamoDB endpoint;
// [StreamsClient] makes a Streams client for the endpoint of a DynamoDB
// client.
//
// # What it does as Lambda does
//
//   - Batches hold up to batchSize records of one shard, in the shard's
//     order, and shards are read parents first, so every change of an item
//     arrives in the order it was made.
//   - A batch is delivered as JSON through aws-lambda-go's handler wrapper
//     (lambda.NewHandler(h).Invoke), as the Lambda runtime delivers it: the
//     handler gets what aws-lambda-go decodes from Lambda's payload
//     (eventID, eventName, eventVersion, eventSource, awsRegion,
//     eventSourceARN, userIdentity, and dynamodb's Keys, NewImage,
//     OldImage, SequenceNumber, SizeBytes, StreamViewType and
//     ApproximateCreationDateTime in epoch seconds).
//   - Delivery is at least once. When the handler fails (an error or a
//     panic) the batch is delivered again; when it reports
//     BatchItemFailures, the records from the lowest reported sequence
//     number on are delivered again (a reported identifier that is not one
//     of the batch's sequence numbers fails the whole batch, as in Lambda).
//     Nothing after a failed record is delivered before it succeeds, and a
//     failing record is retried until it succeeds or Poll stops, with a
//     backoff that doubles up to a limit.
//
// # What it does differently
//
//   - Shards are read in turn by one goroutine rather than concurrently.
//     A failing batch waits for its retry without holding up the other
//     shards, but a slow handler slows them all. DynamoDB Local 3.3.1
//     keeps one shard per table (3,000 writes stayed in one); it closes it
//     when the stream is turned off.
//   - Progress is kept in memory: a new Poll starts again from its
//     Position, where an event source mapping resumes from its checkpoint.
//   - There is no retry limit, no bisecting of failed batches, no
//     on-failure destination, no batching window and no
//     tumbling window: a record that keeps failing is retried until Poll
//     stops.
//   - DynamoDB Local's records say awsRegion "ddblocal", and their
//     ApproximateCreationDateTime is rounded down to the minute (AWS: the
//     second).
//   - DynamoDB Local writes an empty map in a stream record as {}, which
//     the Streams SDK would decode as another attribute's value; Poll
//     repairs those before decoding (see repairEmptyMaps).
//
// Poll is for the local stack and tests only; no Lambda function imports
// this package, so the Streams client never enters a function's binary.
package streamlocal
