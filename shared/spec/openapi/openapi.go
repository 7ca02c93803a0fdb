// Package openapi holds the partner API's OpenAPI 3.1 document, embedded so
// that tests, docs and tools read the same bytes that are published.
//
// The document describes both path forms of every partner route of the
// function manifest (manifest.PartnerRoutes: the pilot path under the spec's
// operationId, the logical path under the same name with the suffix
// "Logical"), every code in errcode.Table, and, under `webhooks`, every
// event type of webhook.Catalogue with an example that is what the
// service sends (package webhookexample builds it with the real payload
// code); tests in this package fail when it drifts from any of them. The
// capture page's routes are not partner API and are not in it
// (docs/CAPTURE.md). Package openapitest checks real HTTP responses and
// webhook deliveries against it.
package openapi

import _ "embed"

// Document is the raw OpenAPI 3.1 document (YAML), exactly as published. It is
// not parsed here: callers that need the model load it themselves, and a
// document that does not load is caught by this package's tests.
//
//go:embed openapi.yaml
var Document []byte
