// Package s3store is the S3 adapter of the video survey's clip bucket: it
// signs the browser's uploads and the viewer's downloads, reads an
// object's metadata, and reads objects by ranges for the clip processor.
//
// A [Store] is one bucket behind one *s3.Client, built once (outside the
// Lambda handler) with [New]. It holds no state per request and is safe
// for concurrent use.
//
//   - [Store.PresignUpload] signs a PUT whose Content-Type and
//     Content-Length are part of the signature: the browser must send
//     exactly the announced type and size, or S3 answers 403.
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
// wrapping [ErrNotFound]. Any other failure of S3 (after the SDK's own
// retries) is the SDK's error wrapped once with what was being done and
// the object's key. Those texts are for logs: callers map the sentinels to
// their own error codes and never send an error's text to a client.
package s3store
