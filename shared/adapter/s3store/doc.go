// Package s3store is the S3 adapter of the video survey's clip bucket: it
// signs the browser's uploads and the viewer's downloads, reads an
// object's metadata, and reads objects by ranges for the clip processor.
//
// A [Store] is one bucket, built once (outside the Lambda handler) with
// [New] from the function's aws.Config. It holds no state per request and
// is safe for concurrent use. It is a thin layer over the SDK's S3 client
// (service/s3) and its presigner (s3.NewPresignClient): what it adds is
// the bucket's name, the checks of keys, types, sizes and validities
// before any request, the two sentinel errors callers map to their own
// codes, and an io.ReaderAt over ranged GETs. Addressing follows the SDK's
// endpoint rules (virtual-hosted on Amazon S3), and path-style at a custom
// endpoint (Options.Endpoint, from AWS_ENDPOINT_URL_S3), as local servers
// such as MinIO need.
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
//     one ranged GET per ReadAt, for shared/domain/clip.Probe.
//
// # Errors
//
// Arguments outside the documented bounds fail with an error wrapping
// [ErrInvalid], before any request. A missing object (S3's NotFound,
// NoSuchKey or NoSuchBucket, or any 404) fails with one wrapping
// [ErrNotFound]. Throttling, 5xx answers, timeouts and connection errors
// are retried by the SDK's retryer (the configuration's, else the
// standard one: three attempts with jittered backoff and a retry quota);
// any other failure is the SDK's typed error (smithy.APIError,
// *awshttp.ResponseError for the status and request id), wrapped once
// with what was being done and the object's key. Those texts are for
// logs: callers map the sentinels to their own error codes and never send
// an error's text to a client.
package s3store
