// Package s3wiring builds the HTTP functions that reach the clip bucket
// (v1-capture, v1-video, and v1-accept and v1-quote, which store signature
// images there) and the bucket's adapters to the features, which the clip
// processor's builder (shared/wire/clipwiring) shares.
//
// It is kept apart from shared/wire/wiring because the S3 client's package init
// (its endpoint table, about 0.15 ms by GODEBUG=inittrace=1) would
// otherwise run at every function's cold start.
package s3wiring
