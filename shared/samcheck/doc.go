// Package samcheck holds only tests: they prove that the local SAM setup
// (template.yaml, the Makefile's SAM build targets) agrees with the route
// table, so that `sam local invoke` and `sam local start-api` run exactly
// the functions, paths and environment the route table and the deployment
// define.
//
// It checks, offline, with goformation parsing the template as SAM would
// read it (Globals merged into each function): one function per route with
// logical id lambdafn.LogicalID(slug), built by `make build-<LogicalId>`
// for provided.al2023 on arm64 with handler bootstrap; HttpApi events for
// exactly the route's method on its pilot and logical paths; TABLE_NAME
// everywhere, the cursor secret only where the route lists it; and that
// each function's main starts with the environment the template gives it.
package samcheck
