// Package sample defines the sample API Gateway HTTP API (payload 2.0)
// events in events/ and the local-only fixtures (partner, API key, lead)
// they refer to.
//
// Every HTTP function of the manifest has events: each partner route for
// both of its path forms, valid ones and invalid ones, and the $default
// route (route-not-found) for an unknown path (404) and a known path with
// the wrong method (405). Each file is named <slug>.<case>.<status>.json
// after the function that serves it and the status it answers with against
// a table that holds the fixtures (Seed). `make dev` seeds them, so against it
//
//	go run ./scripts/invoke -key "" -function v1-leads -event events/v1-leads.valid.200.json
//	sam local invoke V1LeadsFunction -e events/v1-leads.valid.200.json
//
// answer as the file names say. The events are built by the local API
// Gateway's own event builder (localgw.Event) with fixed request ids and
// times, so regenerating them changes nothing unless a case changes:
//
//	go run ./scripts/genevents
//
// The tests in this package fail when the files differ from Cases, and
// run every file through the real handler to check its status.
package sample

//go:generate go run ../../scripts/genevents -dir ..
