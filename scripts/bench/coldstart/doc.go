// Package coldstart measures the Lambda cold start of every function of the
// manifest (manifest.Functions) against a hello-world aws-lambda-go
// baseline, without AWS or Docker: it plays the Lambda service's part.
// make bench calls [Run]; its rows go to docs/BENCHMARKS.md.
//
// For each cold start it serves a Lambda Runtime API on loopback, execs the
// function's bootstrap (built as the release build builds it,
// lambdafn.BuildFlags and the function's tags, for the host architecture)
// with the environment Lambda gives, and times from just before exec:
//
//   - init: until the process's first GET of the next invocation, where
//     Lambda's Init phase ends;
//   - first response: until it answers one real event served against
//     DynamoDB Local and MinIO (an HTTP request, an MCP tools/list, or an
//     object-created event for a real clip), which must succeed.
//
// Binaries are cold-started Options.Runs times, round-robin, with the
// baseline before every [BaselineEvery]-th function, and each function's
// init is budgeted as a ratio to the baseline's ([InitRatioBudget],
// [ClientInitRatioBudget], [AgentToolsInitRatioBudget]); binary sizes are held
// only to [BloatGuard]. Lambda's own code download and sandbox start are
// not included, and a laptop is not a Graviton core: what is budgeted is
// what the code adds over the baseline. Method and budgets: README.md,
// "Benchmarks".
package coldstart
