// Package samcheck holds only tests: they prove that the local SAM setup
// (template.yaml, the Makefile's SAM build targets) agrees with the route
// table, so that `sam local invoke` and `sam local start-api` run exactly
// the functions, paths and environment the route table and the deployment
// define.
//
// It checks, offline, with goformation parsing the template as SAM would
// read it (Globals merged into each function): one function per manifest
// entry with logical id lambdafn.LogicalID(slug), and a message naming
// the function and its slug when one is missing; each built by `make
// build-<LogicalId>` for provided.al2023 on arm64 with handler bootstrap;
// HttpApi events for exactly each route's method on its paths, for an
// S3-triggered function one S3 event (s3:ObjectCreated:*, the manifest's
// prefix and suffix) on the template's ClipBucket, for a stream-triggered
// function one DynamoDB event (the local table's stream, TRIM_HORIZON, the
// manifest's batch size, ReportBatchItemFailures, the InsertsOf filter;
// read from the raw template, since goformation's type drops the last two)
// and for a schedule-triggered function one Schedule event with the
// manifest's expression; a timeout of at least a minute for stream and
// schedule functions; TABLE_NAME everywhere, each secret's local variable
// (from a NoEcho parameter) only where the entry lists it, CLIP_BUCKET and
// AWS_ENDPOINT_URL_S3 exactly where the entry touches the bucket,
// PUBLIC_BASE_URL exactly where it mints capture, video or quote page links
// or serves a token page, STRIPE_API_URL (empty by default: Stripe itself)
// exactly where it calls Stripe's API (it lists the Stripe API keys),
// AGENT_TOOLS_ALLOWED_ORIGINS (from the String parameter
// AgentToolsAllowedOrigins, empty by default) exactly on the function that
// takes the agent key, and WEBHOOK_ALLOW_LOOPBACK nowhere (it is make
// dev's alone);
// and that each function's main starts with the environment the template
// gives it.
// TestChecksCatchMistakes shows each check failing on a template with one
// mistake.
package samcheck
