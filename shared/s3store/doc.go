// Package s3store is the S3 adapter of the video survey's clip bucket: it
// signs the browser's uploads and the viewer's downloads, reads an
// object's metadata, and reads objects by ranges for the clip processor.
//
// A [Store] is one bucket, built once (outside the Lambda handler) with
// [New] from the function's aws.Config. It holds no state per request and
// is safe for concurrent use.
//
// It speaks S3's REST API itself (HeadObject, ranged GetObject, presigned
// PutObject and GetObject), signed by the SDK's SigV4 signer
// (aws/signer/v4), instead of through the SDK's S3 client: that client
// adds 1.25 MiB to a Lambda binary, which the 8 MiB budget per function
// cannot hold (docs/BENCHMARKS.md). Tools and tests use the SDK's client
// (shared/s3local, shared/apitest) and check this package against it and
// against MinIO. Addressing: virtual-hosted on Amazon S3
// (https://BUCKET.s3.REGION.amazonaws.com/KEY; path-style for a dotted
// bucket), path-style at a custom endpoint (Options.Endpoint, from
// AWS_ENDPOINT_URL_S3). Not supported, because nothing here uses them:
// dual-stack, FIPS and accelerate endpoints, directory buckets, other
// partitions than aws.
//
//   - [Store.PresignUpload] signs a PUT whose Content-Type and
//     Content-Length are part of the signature: the browser must send
//     exactly the announced type and size, or S3 answers 403. It also
//     signs If-None-Match: *, so it only creates: a PUT to a key that
//     holds an object answers 412 and leaves the object as it was.
//   - [Store.PresignGet] signs a short-lived GET (at most 10 minutes), for
//     the viewer's clip addresses; Range requests through it answer 206.
//   - [Store.Head] returns an object's size, type and ETag; a missing
//     object is [ErrNotFound].
//   - [Store.ReaderAt] returns a [RangeReader], an io.ReaderAt that makes
//     one ranged GET per ReadAt, for shared/clip.Probe.
//
// # Errors
//
// Arguments outside the documented bounds fail with an error wrapping
// [ErrInvalid], before any request. A missing object fails with one
// wrapping [ErrNotFound] (a [*ResponseError] with status 404). Transport
// failures and 500, 502, 503 and 504 answers are retried, three attempts
// in all with jittered backoff; any other answer of S3 is a
// [*ResponseError] (status, S3's code and message, request id), wrapped
// once with what was being done and the object's key. Those texts are for logs: callers map the sentinels to
// their own error codes and never send an error's text to a client.
package s3store
