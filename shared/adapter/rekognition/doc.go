// Package rekognition is the Amazon Rekognition adapter of the home
// inventory: a [Detector] implements inventory.Detector with Rekognition
// Image's DetectLabels, one call per frame (a JPEG still of the customer's
// walkthrough), and returns one inventory.Detection per object instance
// Rekognition boxes; labels without instances (scenes) are not returned.
//
// Build a [Detector] once, outside the Lambda handler, with [New] from the
// function's aws.Config and [Options] (Options.Endpoint from
// awsenv.Endpoint(getenv, "REKOGNITION")). It holds no per-request state,
// is safe for concurrent use, and keeps at most Options.Concurrency calls
// in flight across Detect and [Detector.DetectAll].
//
// Errors: a frame Rekognition cannot read (empty, over [MaxFrameBytes], or
// refused as an invalid format, too large or an invalid parameter) fails
// with an error wrapping inventory.ErrBadFrame and is never retried.
// Throttling, 5xx, 429, dropped connections and attempts over
// Options.AttemptTimeout are retried by the SDK's standard retryer, at most
// Options.MaxAttempts times and never past ctx; access denied and every
// other answer fail at once. Errors are the SDK's typed errors, wrapped
// once; their text is for logs, never for a client.
//
// Design (instances, bytes over S3Object, concurrency, IAM, data opt-out):
// docs/INVENTORY.md; cost: docs/INVENTORY.md "Measured".
package rekognition
