// Package architecture holds no code: its test checks the layering rules of
// docs/ARCHITECTURE.md, which says which packages may import which.
//
//   - Domain packages (auth, lead, estimate, cursor, idempotency, errcode,
//     manifest, table, settings, survey, inventory, clip, deposit) depend on no AWS, HTTP, Lambda or Stripe
//     package, directly or through another package.
//   - Only shared/adapter/stripepay, the Stripe adapter, imports stripe-go.
//   - The pipeline (api) and the feature services (leads, ...) depend on
//     none of those either: they are plain Go over domain types.
//   - Feature services never import an edge (apigw) or an adapter (dynamo):
//     they declare the narrow interfaces they need.
//   - Functions' mains import only the edge's Start helper and the catalog.
package architecture
