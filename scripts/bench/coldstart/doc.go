// Package coldstart measures the Lambda cold start of every function of the
// manifest (manifest.Functions) against a hello-world aws-lambda-go
// baseline, without AWS or Docker: it plays the Lambda service's part.
//
// For each cold start it starts a Lambda Runtime API on loopback — the
// endpoints a Go function calls: GET /2018-06-01/runtime/invocation/next,
// POST .../invocation/{id}/response and .../error, POST
// /2018-06-01/runtime/init/error — execs the function's bootstrap, built
// exactly as the release build builds it (lambdafn.BuildFlags, with the
// function's own build tags) but for the host architecture, with the
// environment Lambda gives, and times from just before exec:
//
//   - init: until the process's first GET next (Lambda's Init phase ends
//     there: the function is ready for its first event), for an HTTP
//     function and an S3-triggered one alike;
//   - first response: until it posts the response to one real event,
//     served against DynamoDB Local and MinIO. An HTTP request must answer
//     200 (404 for route-not-found, which answers every request so); the
//     capture page gets a fresh capture token per cold start. The agent
//     tool server (v1-mcp) gets an MCP tools/list with a fresh key in
//     X-Partner-Key, and its 200 must list every tool. The clip
//     processor gets an object-created event for a real 14 KB MediaRecorder
//     clip announced for a new survey, must answer null (success), and the
//     clip must then be playable: its first response includes reading the
//     clip by ranged GETs and recording the verdict.
//
// Every binary is cold-started Options.Runs times, round-robin with the
// others, and the hello-world baseline before every BaselineEvery-th
// function of a round too, so its medians rest on several samples a round. The measured rounds are split into InitRounds (3) consecutive
// blocks; the report gives each function's init as the median of the
// blocks' ratios of its median init to the baseline's (budget 1.5×;
// S3InitRatioBudget, 1.7×, for the functions that link the S3 client;
// AgentToolsInitRatioBudget, 2.0×, for the agent tool server, whose MCP
// SDK's package init is a fixed cost), with the three ratios in the note,
// its first response, and its arm64 release binary size, held only to the
// 16 MiB BloatGuard, with its zip's size (what Lambda downloads) beside it.
//
// What the numbers are not: Lambda's own Init also includes downloading
// the code and starting the sandbox, identical for every function and
// absent here; and a laptop is not a Graviton core. The comparison with
// the baseline is what the code adds, and it is that comparison that is
// budgeted.
package coldstart
