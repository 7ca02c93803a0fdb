// Package sample defines the sample events in events/ and the local-only
// fixtures (partner, API key, leads, video surveys with their capture
// tokens, clips and their objects, a video link) they refer to.
//
// Every function of the manifest has events. An HTTP function has API
// Gateway HTTP API (payload 2.0) events: each route for each of its path
// forms, valid ones and invalid ones, and the $default route
// (route-not-found) for an unknown path (404) and a known path with the
// wrong method (405). Each is named <slug>.<case>.<status>.json after the
// function that serves it and the status it answers with against a table
// that holds the fixtures (Seed). An S3-triggered function has Amazon S3
// event notifications, named <slug>.<case>.json (no status: the function
// succeeds or fails); the clip processor's names the fixture clip, whose
// object PutClipObject stores. `make dev` seeds the fixtures, so against it
//
//	go run ./scripts/invoke -function v1-leads -event events/v1-leads.valid.200.json
//	go run ./scripts/invoke -function clip-processor -event events/clip-processor.object-created.json
//	sam local invoke V1LeadsFunction -e events/v1-leads.valid.200.json
//	sam local invoke ClipProcessorFunction -e events/clip-processor.object-created.json
//
// answer as the file names say. The API Gateway events are built by the
// local API Gateway's own event builder (localgw.Event) and the S3 events
// in S3's own shape, with fixed request ids and times, so regenerating
// them changes nothing unless a case changes:
//
//	go run ./scripts/genevents
//
// The tests in this package fail when the files differ from Cases and
// S3Cases, and run every file through the real handler (against DynamoDB
// Local and MinIO) to check its status or its success.
package sample

//go:generate go run ../../scripts/genevents -dir ..
