// Package sample defines the sample events in events/ and the local-only
// fixtures (partner, API key, leads, video surveys with their capture
// tokens, clips and their objects, a video link) they refer to.
//
// Every function of the manifest has events. An HTTP function has API
// Gateway HTTP API (payload 2.0) events: each route for each of its path
// forms, valid ones and invalid ones, and the $default route
// (route-not-found) for an unknown path (404) and a known path with the
// wrong method (405); the agent tool server's (v1-mcp) are MCP JSON-RPC
// messages (initialize, tools/list, a tools/call) with the key in
// X-Partner-Key, and without it or with it in Authorization (401). Each
// is named <slug>.<case>.<status>.json after the function that serves it
// and the status it answers with against a table that holds the fixtures
// (Seed). The other functions' events are named
// <slug>.<case>.json (no status: the function succeeds or fails): an
// S3-triggered function has Amazon S3 event notifications (the clip
// processor's names the fixture clip, whose object PutClipObject stores);
// a stream-triggered function has DynamoDB stream events (the dispatcher's
// is the INSERT of the survey.completed event item of the fixture survey
// FinishSurveyID, which the fixture partner owes; that partner has no
// webhook endpoint, so the dispatcher writes and sends nothing: a no-op
// that succeeds, reporting no batch item failure); a schedule-triggered
// function has EventBridge scheduled events (the retrier's tick finds no
// due delivery among the fixtures and succeeds). `make dev` seeds the
// fixtures, so against it
//
//	go run ./scripts/invoke -function v1-leads -event events/v1-leads.valid.200.json
//	go run ./scripts/invoke -function clip-processor -event events/clip-processor.object-created.json
//	go run ./scripts/invoke -function webhook-dispatcher -event events/webhook-dispatcher.event-inserted.json
//	go run ./scripts/invoke -function webhook-retrier -event events/webhook-retrier.tick.json
//	go run ./scripts/invoke -function v1-mcp -event events/v1-mcp.tools-list.200.json
//	sam local invoke V1LeadsFunction -e events/v1-leads.valid.200.json
//	sam local invoke ClipProcessorFunction -e events/clip-processor.object-created.json
//
// answer as the file names say. The API Gateway events are built by the
// local API Gateway's own event builder (localgw.Event), the S3, stream
// and scheduled events in their services' own shapes, with fixed request
// ids and times, so regenerating them changes nothing unless a case
// changes:
//
//	go run ./scripts/genevents
//
// The Stripe webhook receiver's events carry a Stripe-Signature made with
// StripeWebhookSecret at the events' fixed time; the receiver refuses a
// signature more than five minutes old, so the verifying ones are signed
// again when sent (Resign: this package's tests and scripts/invoke do it,
// with the receiving stack's secret), and the bad-signature one is signed
// with a secret no stack has.
//
// The tests in this package fail when the files differ from the cases,
// and run every file through the real handler (against DynamoDB Local and
// MinIO) to check its status or its success.
package sample

//go:generate go run ../../scripts/genevents -dir ..
