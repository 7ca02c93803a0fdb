// Package s3store is the S3 adapter of the video survey's clip bucket: it
// signs the browser's uploads and the viewer's downloads, reads an
// object's metadata, and reads objects by ranges for the clip processor.
//
// A [Store] is one bucket, built once (outside the Lambda handler) with
// [New] from the function's aws.Config; it is safe for concurrent use.
// Options.Endpoint (from AWS_ENDPOINT_URL_S3) selects path-style
// addressing, as local servers such as MinIO need.
//
//   - [Store.PresignUpload] signs a create-only PUT (If-None-Match: *) with
//     Content-Type and Content-Length in the signature: another type or
//     size answers 403, an existing key 412.
//   - [Store.PresignGet] signs a GET of at most 10 minutes; Range works.
//   - [Store.Head] returns an object's size, type and ETag; [Store.Get] a
//     small object's bytes, bounded ([ErrTooLarge] past the bound).
//   - [Store.ReaderAt] returns a [RangeReader], an io.ReaderAt making one
//     ranged GET per ReadAt, for shared/domain/clip.Probe.
//
// Errors: arguments out of bounds wrap [ErrInvalid], before any request; a
// missing object (NotFound, NoSuchKey, NoSuchBucket, any 404) wraps
// [ErrNotFound]. Throttling, 5xx, timeouts and connection errors are
// retried by the SDK's retryer; anything else is the SDK's typed error,
// wrapped once with the object's key. Callers map the two sentinels to
// their own codes and never send an error's text to a client.
package s3store
