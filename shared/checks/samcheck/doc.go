// Package samcheck holds only tests: they prove that the local SAM setup
// (template.yaml, the Makefile's SAM build targets) agrees with the
// manifest, so that `sam local invoke` and `sam local start-api` run
// exactly the functions, triggers and environment the deployment defines.
//
// Offline, with goformation reading the template as SAM would (Globals
// merged into each function), it checks per manifest entry: one function
// with logical id lambdafn.LogicalID(slug), built by `make
// build-<LogicalId>` for provided.al2023 on arm64; the events of its
// trigger (HttpApi per route, S3, the events table's stream with the
// manifest's batch size and filter, Schedule) and their timeouts; and each
// environment variable exactly where the entry needs it (TABLE_NAME,
// secrets, CLIP_BUCKET, PUBLIC_BASE_URL, STRIPE_API_URL,
// AGENT_TOOLS_ALLOWED_ORIGINS; WEBHOOK_ALLOW_LOOPBACK nowhere). Each
// function's main must start with the environment the template gives it.
// A failure names the function and its slug.
//
// TestChecksCatchMistakes shows each check failing on a template with one
// mistake.
package samcheck
