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
// Each call sends the frame as Image.Bytes, Features
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
// # The SDK's client
//
// The call goes through the SDK's Rekognition client
// (service/rekognition): its endpoint rules, SigV4 signing, clock-skew
// correction, standard retryer with its retry quota, and typed errors.
// It adds about 0.25 MiB to clip-processor (linux/arm64, release flags).
//
// # Errors and retries
//
// Frames Rekognition cannot read fail with an error wrapping
// inventory.ErrBadFrame and are never retried: an empty frame or one over
// MaxFrameBytes (refused before any request), and the typed errors
// *types.InvalidImageFormatException, *types.ImageTooLargeException and
// *types.InvalidParameterException (which Rekognition also gives for an
// image under 80 pixels a side). The SDK's standard retryer retries, at
// most Options.MaxAttempts times with jittered exponential backoff capped
// at 5 s and never past ctx: the throttling codes (ThrottlingException,
// ProvisionedThroughputExceededException, LimitExceededException), 500,
// 502, 503, 504 and 429 answers, dropped connections, and attempts with
// no answer within Options.AttemptTimeout. The bad-image errors and
// *types.AccessDeniedException are final whatever their status; every
// other answer fails at once. Errors are the SDK's (smithy.APIError for
// the code, *awshttp.ResponseError for the status and request id),
// wrapped with what was done; their text is for logs, never for a client.
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
