// Package s3local installs and runs MinIO, an S3-compatible server, as a
// plain process on loopback: the stand-in for Amazon S3 in tests and the
// local development stack, as shared/local/dynamolocal is for DynamoDB.
//
// MinIO is built from source with `go install` at the pseudo-version pinned
// in scripts/install-minio.sh (the single place that knows the version;
// MinIO publishes no semver tags) into <repo>/.cache/minio (git-ignored),
// or into $S3LOCAL_DIR when that is set. [Install] runs the script, which
// returns at once when that version is installed, so `go test ./...` works
// on a fresh clone; a build needs go on PATH and the Go module proxy, and
// takes 2-12 minutes on a cold cache. scripts/bootstrap.sh runs the same
// script for `make dev` and `make test`.
//
// [Start] runs `minio server` on two free ports of 127.0.0.1 (the S3 API and
// the console, whose web UI is off), with fixed root credentials, data in a
// temporary directory, update checks off, and what MinIO reads only at
// start: the webhooks that bucket notifications post to ([WithWebhooks])
// and the origins allowed by CORS ([WithCORSOrigins]). [CreateBucket]
// creates a bucket whose object-created events under key prefixes go to
// those webhooks. [Receiver] is such a webhook's endpoint: it checks the
// webhook's auth token and runs an S3-triggered function's handler on
// each event as the Lambda runtime would (make dev connects the clip
// bucket to the clip processor with it).
//
// Test packages use [ForTests] or [RunTests] from TestMain: the developer's
// running server when AWS_ENDPOINT_URL_S3 is set, otherwise one server for
// the whole test binary. Code under test reaches it through the standard
// AWS SDK variables that [Env] and [SetEnv] provide, never through
// test-only code paths.
//
// # Differences from Amazon S3 that matter here
//
// Checked against this MinIO by the package's tests: presigned PUTs that
// sign Content-Type and Content-Length refuse another length or type with
// 403, presigned POST policies with content-length-range refuse a larger
// file with EntityTooLarge, and ranged GETs answer 206. CORS is one
// server-wide list of origins, each allowed every method and header
// (PutBucketCors answers NotImplemented). Notifications go only to targets
// configured at start and are sent once: an event the webhook refuses
// (non-2xx) or misses is dropped, not retried. Notification bodies
// decode into aws-lambda-go's events.S3Event, but eventName has an "s3:"
// prefix ("s3:ObjectCreated:Put"), eventSource is "minio:s3", and keys
// are URL-encoded with "/" as "%2F": always use URLDecodedKey.
package s3local
