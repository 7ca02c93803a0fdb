// Package s3wiring builds the functions that reach the clip bucket
// (v1-capture, v1-video, clip-processor, and v1-accept and v1-quote, which
// store signature images there).
//
// It is kept apart from shared/wiring because the S3 and Rekognition
// clients' package init (their endpoint tables, 0.4 ms by
// GODEBUG=inittrace=1) would otherwise run at every function's cold start.
package s3wiring
