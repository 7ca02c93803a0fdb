// Package rekognition is the Amazon Rekognition adapter of the home
// inventory: a [Detector] implements inventory.Detector with the
// DetectLabels operation of Rekognition Image, one call per frame (a JPEG
// still of the customer's walkthrough), and returns one
// inventory.Detection per object instance Rekognition boxes.
//
// A [Detector] is built once, outside the Lambda handler, with [New] from
// the function's aws.Config. It holds no state per request and is safe for
// concurrent use.
//
// # What is detected
//
// Each call sends the frame as Image.Bytes (base64), Features
// ["GENERAL_LABELS"], MaxLabels and MinConfidence ([Options]). The answer
// lists labels; a label that is an object carries Instances, one bounding
// box each. Detect returns one Detection per instance: three chairs in a
// frame are three "Chair" detections, each with its own box and the
// instance's confidence (0 to 1), and the label's Parents ("Furniture" for
// "Couch"). Labels without instances are scenes and concepts ("Living
// Room", "Indoors", "Interior Design"): they are not returned, since the
// inventory counts objects and a scene label says nothing about how many
// there are. Instances less confident than MinConfidence are dropped too
// (Rekognition applies it to labels, not to their instances), and boxes
// reaching past the frame's edge, which Rekognition documents for objects
// cut by the edge, are clipped to it. Aliases, Categories, dominant colors
// and LabelModelVersion are not read.
//
// The frame goes as bytes, not as an S3Object: the frames are made in
// memory from the clip and exist nowhere else, so an S3Object would cost
// a PUT, a second grant and a round trip per frame, and the local stack's
// detector takes bytes as well; a frame of about 1 MB is well under the
// 5 MB Rekognition accepts as bytes ([MaxFrameBytes]).
//
// # Why no SDK client
//
// The call is Rekognition's JSON protocol (awsJson1_1), spoken by
// shared/awsjson, the one client of that protocol the functions share
// (with shared/secretsmgr): POST / to
// https://rekognition.REGION.amazonaws.com with X-Amz-Target
// RekognitionService.DetectLabels, signed by the SDK's own SigV4 signer
// (aws/signer/v4), as shared/s3store does for S3. Measured on
// linux/arm64 with the release flags (-trimpath -tags lambda.norpc
// -ldflags "-s -w"), adding the detector to clip-processor grows its
// binary by 35,848 bytes of sections (the file did not grow: it stayed
// inside its last 64 KiB page) where the SDK's Rekognition client v1.51.26
// grows it by 275,084 bytes and the file from 8,192,162 to 8,454,306
// bytes, past the 8 MiB budget. In a function that links only the DynamoDB
// client the costs are 137,305 and 764,931 bytes. The SDK's client sends
// the same request body, byte for byte, and reads the testdata answers and
// error shapes as this package does (checked when the choice was made).
//
// # Errors and retries
//
// Frames Rekognition cannot read fail with an error wrapping
// inventory.ErrBadFrame and are never retried: an empty frame or one over
// MaxFrameBytes (refused before any request), and the answers
// InvalidImageFormatException, ImageTooLargeException and
// InvalidParameterException (which Rekognition also gives for an image
// under 80 pixels a side). ThrottlingException,
// ProvisionedThroughputExceededException, LimitExceededException,
// InternalServerError, any other 5xx or 429, and requests that got no
// answer (or none within Retry.AttemptTimeout) are retried with full-jitter
// exponential backoff, at most Retry.MaxAttempts times within
// Retry.MaxElapsed, and never past ctx (awsjson's retries, with
// Options.Retry). The bad-image codes and AccessDeniedException are final
// whatever their status; every other answer fails at once. An answer is
// an *awsjson.ResponseError (service, status, code, message, request id),
// wrapped with what was done; its text is for logs, never for a client.
//
// # Concurrency
//
// A Detector has at most Options.Concurrency calls in flight (default 4),
// shared by every Detect and [Detector.DetectAll]; a frame is encoded only
// once it has a slot. With N calls in flight a Detector makes at most
// N / latency calls a second (8 at 4 calls of 500 ms), so a 60-frame
// survey takes about 15 rounds instead of a burst of 60 against the
// account's DetectLabels transactions-per-second quota, which is per
// account and region, shared by every invocation, and adjustable in
// Service Quotas; throttling past it is retried as above.
//
// # Permissions, cost and data
//
// The function's role needs rekognition:DetectLabels on Resource "*":
// the action has no resource type in the Service Authorization Reference,
// so "*" is the only resource a policy can name for it. DetectLabels is
// billed per image as a Group 2 API of Rekognition Image ($0.001 an image
// for the first million a month in us-east-1; $0.06 for a survey of 60
// frames, $0.02 for 20). Images sent to Rekognition may be stored and used
// to improve the service unless the AWS Organization opts out with an AI
// services opt-out policy: these are pictures of customers' homes.
//
// # Configuration
//
// AWS_ENDPOINT_URL_REKOGNITION (or AWS_ENDPOINT_URL) reaches the caller
// through awsenv.Endpoint(getenv, "REKOGNITION") and goes in
// Options.Endpoint. Not supported, because nothing here uses them: FIPS
// and dual-stack endpoints, partitions other than aws, custom labels,
// label filters (Settings) and image properties.
package rekognition
