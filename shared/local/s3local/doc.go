// Package s3local installs and runs MinIO, an S3-compatible server, as a
// plain process on loopback: the stand-in for Amazon S3 in tests and the
// local development stack.
//
// [Install] builds MinIO at the version pinned in scripts/install-minio.sh
// (the single place that knows it) into <repo>/.cache/minio, or
// $S3LOCAL_DIR, and returns at once when it is there; it needs go on PATH
// and the Go module proxy. [Start] runs `minio server` on free ports of
// 127.0.0.1 with fixed root credentials and data in a temporary directory;
// what MinIO reads only at start is given as options ([WithWebhooks] for
// bucket notifications, [WithCORSOrigins]). [CreateBucket] makes a bucket
// whose object-created events under key prefixes go to those webhooks, and
// [Receiver] serves such a webhook, running an S3-triggered function's
// handler on each event as the Lambda runtime would.
//
// Test packages use [ForTests] or [RunTests] from TestMain: the developer's
// server when AWS_ENDPOINT_URL_S3 is set, otherwise one server for the
// whole test binary. Code under test reaches it through the standard AWS
// SDK variables ([Env], [SetEnv]), never through test-only code paths.
//
// MinIO differs from S3 in ways that matter here (notifications are sent
// once and never retried; event keys are URL-encoded, so always use
// URLDecodedKey): docs/LOCAL.md.
package s3local
