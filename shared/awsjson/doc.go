// Package awsjson is a client of AWS's JSON 1.1 protocol (awsJson1_1),
// the wire of the services the Lambda functions call without the SDK's
// service clients: Rekognition's DetectLabels (shared/rekognition) and
// Secrets Manager's GetSecretValue (shared/secretsmgr).
//
// # Why it exists
//
// Each of the SDK's service clients adds 0.25 to 1 MiB to a function's
// binary (its endpoint rules, every operation's serializers and
// middleware): measured on linux/arm64 with the release flags, the
// Rekognition client grows clip-processor by 275,084 bytes of sections
// (764,931 in a function that links only the DynamoDB client) and the
// Secrets Manager client adds 262,144 bytes, while the largest functions
// sit just under the 8 MiB budget (docs/BENCHMARKS.md). The protocol
// itself is small; this package speaks it once, with the SDK's own SigV4
// signer (aws/signer/v4) and the configuration's credentials and HTTP
// client, as shared/s3store does for S3's REST API.
//
// # What it does
//
// A [Client] is built once from an aws.Config with [New]. [Client.Call]
// sends one operation: a POST of the operation's JSON input to "/" of the
// endpoint, Content-Type application/x-amz-json-1.1, the operation named
// by X-Amz-Target ("RekognitionService.DetectLabels"), signed with SigV4
// for Options.SigningName and the configuration's region. It returns the
// body of a 200 answer, at most Options.MaxAnswer bytes (over that it
// fails with [ErrAnswerTooLarge]); the caller decodes it.
//
// Any other answer is a [*ResponseError]: the HTTP status, the error code
// (the X-Amzn-ErrorType header, else the body's __type, else its code,
// without the namespace before '#' or the suffix after ':'; the status
// text when there is none), the message (message or Message) and the
// request id (x-amzn-RequestId). Its text is for logs, never for a
// client.
//
// A request that got no answer (or none within Retry.AttemptTimeout), a
// 5xx or 429 answer, and the throttling codes of the SDK's standard
// retryer (ThrottlingException, ProvisionedThroughputExceededException,
// LimitExceededException, …) are retried with full-jitter exponential
// backoff, at most Retry.MaxAttempts times within Retry.MaxElapsed and
// never past the context. Options.NoRetry marks codes a caller knows to be
// final whatever their status (an unreadable image, a refused access).
// Anything else fails at once.
//
// # What it does not do
//
// Only the JSON 1.1 protocol: not JSON 1.0 (DynamoDB), REST-JSON, query or
// REST-XML services, event streams, or streamed or compressed bodies; the
// whole input and answer are in memory. Only the aws partition's regional
// endpoint (https://PREFIX.REGION.amazonaws.com/) or an endpoint given to
// New: no endpoint rules, FIPS or dual-stack endpoints, other partitions,
// SigV4a or presigning. None of the SDK's middleware: no user agent, retry
// quota (token bucket), adaptive rate limiting, clock-skew correction, or
// re-reading of expired credentials beyond what the configuration's
// credentials provider does on its own.
package awsjson
