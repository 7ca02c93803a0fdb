// Package load is the "Load" section of `make bench`: it starts the local
// stack the way `make dev` does (DynamoDB Local, a fresh table, the real
// handlers behind the local API Gateway on a 127.0.0.1 listener) and drives
// it over HTTP with concurrent clients for a bounded time.
//
// Each concurrent run spreads its clients over enough API keys that the
// rate limit never binds, then reports throughput, p50/p95/p99 latency and
// the count of each status, and checks its budgets: no 5xx, and the leads
// the API lists afterwards are exactly those createLead answered 200 for
// the first time (nothing lost, nothing doubled), idempotent replays
// included. A last run puts 16 clients on one key and checks that no
// minute window admits more than the limit and that every 429 carries
// Retry-After.
//
// Budget failures are rows whose OK is false; Run returns an error only
// when the stack cannot run (DynamoDB Local does not start, ctx ends).
// Every request goes to 127.0.0.1, and every loop stops at its deadline.
package load
