package inventory

import "context"

// Detector finds objects in one frame (a JPEG still taken from a clip by
// the capture page): frames in, labelled boxes out. Two adapters implement
// it: Amazon Rekognition's DetectLabels in AWS, and a CenterNet COCO model
// running in a loopback sidecar on the local stack. Neither decodes video.
type Detector interface {
	// Detect returns every object instance found in jpeg, each with the
	// detector's own label (a COCO class name such as "couch", or a
	// Rekognition label name such as "Couch") and confidence. A failure
	// the detector may recover from (throttling, a timeout, a dead
	// sidecar) is an error; an image it cannot read is an error wrapping
	// ErrBadFrame.
	Detect(ctx context.Context, jpeg []byte) ([]Detection, error)
	// Name names the detector in the inventory's report ("rekognition",
	// "centernet-coco") and selects its label mapping (Labels).
	Name() string
}

// Detection is one object instance a detector found in a frame.
type Detection struct {
	// Label is the detector's name for the object's class, as it said it.
	Label string `json:"label" dynamodbav:"label"`
	// Parents are the label's parent categories, when the detector has a
	// hierarchy (Rekognition: "Furniture" for "Couch"); nil otherwise.
	Parents []string `json:"parents,omitempty" dynamodbav:"parents,omitempty"`
	// Confidence is from 0 to 1.
	Confidence float64 `json:"confidence" dynamodbav:"confidence"`
	// Box is where the object is, as fractions of the frame's width and
	// height (0 to 1).
	Box Box `json:"box" dynamodbav:"box"`
}

// Box is a bounding box in fractions of the frame's size.
type Box struct {
	Left   float64 `json:"left" dynamodbav:"l"`
	Top    float64 `json:"top" dynamodbav:"t"`
	Width  float64 `json:"width" dynamodbav:"w"`
	Height float64 `json:"height" dynamodbav:"h"`
}

// ErrBadFrame is wrapped by a detector's error for a frame it cannot read
// (not a JPEG, too large): retrying would not help.
var ErrBadFrame = errBadFrame{}

type errBadFrame struct{}

func (errBadFrame) Error() string { return "frame is not an image the detector reads" }
