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
// HttpApi events for exactly each route's method on its paths, and for an
// S3-triggered function one S3 event (s3:ObjectCreated:*, the manifest's
// prefix and suffix) on the template's ClipBucket; TABLE_NAME everywhere,
// the cursor secret only where the entry lists it, CLIP_BUCKET and
// AWS_ENDPOINT_URL_S3 exactly where the entry touches the bucket,
// PUBLIC_BASE_URL exactly where it mints capture or video links or serves a
// token page; and that each function's main starts with the environment
// the template gives it.
// TestChecksCatchMistakes shows each check failing on a template with one
// mistake.
package samcheck
