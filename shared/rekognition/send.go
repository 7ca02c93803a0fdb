package rekognition

// The call is Rekognition's JSON protocol (awsJson1_1), spoken by
// shared/awsjson: a POST of the operation's input to "/", the operation
// named by X-Amz-Target, signed with SigV4 for the service "rekognition"
// by the SDK's own signer (aws/signer/v4). The SDK's Rekognition client
// would do the same and adds about 1 MB to a Lambda binary (see the
// package documentation).
const (
	target      = "RekognitionService.DetectLabels"
	signingName = "rekognition"
	// maxAnswer bounds the body read from a successful answer: 1,000
	// labels with their instances are far smaller.
	maxAnswer = 4 << 20
)

// badFrame reports whether code says Rekognition cannot read the image:
// sending it again would fail again. InvalidParameterException is also
// Rekognition's answer for an image under 80 pixels a side.
func badFrame(code string) bool {
	switch code {
	case "InvalidImageFormatException", "ImageTooLargeException", "InvalidParameterException":
		return true
	}
	return false
}

// final reports whether an answer with the error code is never retried,
// whatever its status (awsjson.Options.NoRetry): an unreadable image, or
// a refused access. Detect wraps inventory.ErrBadFrame in the error of an
// answer with a badFrame code.
func final(code string) bool {
	return badFrame(code) || code == "AccessDeniedException"
}
