package rekognition

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/moveleads/partnerapi/shared/inventory"
)

// detectLabelsInput is the DetectLabels request as this package sends it
// (API reference, "Request Syntax"): the frame as base64 bytes
// (encoding/json encodes a []byte as standard base64, Rekognition's blob
// encoding), general labels only, so the answer carries no
// ImageProperties and the call is not billed for them.
type detectLabelsInput struct {
	Features      []string   `json:"Features"`
	Image         imageBytes `json:"Image"`
	MaxLabels     int        `json:"MaxLabels"`
	MinConfidence float64    `json:"MinConfidence"`
}

type imageBytes struct {
	Bytes []byte `json:"Bytes"`
}

func requestBody(jpeg []byte, maxLabels int, minConfidence float64) ([]byte, error) {
	return json.Marshal(detectLabelsInput{
		Features:      []string{"GENERAL_LABELS"},
		Image:         imageBytes{Bytes: jpeg},
		MaxLabels:     maxLabels,
		MinConfidence: minConfidence,
	})
}

// detectLabelsOutput is the part of DetectLabels' answer this package
// reads. Everything else (Aliases, Categories, DominantColors,
// ImageProperties, OrientationCorrection, LabelModelVersion) is ignored.
type detectLabelsOutput struct {
	Labels []label `json:"Labels"`
}

type label struct {
	Name       string     `json:"Name"`
	Confidence *float64   `json:"Confidence"`
	Instances  []instance `json:"Instances"`
	Parents    []struct {
		Name string `json:"Name"`
	} `json:"Parents"`
}

type instance struct {
	BoundingBox *boundingBox `json:"BoundingBox"`
	Confidence  *float64     `json:"Confidence"`
}

// boundingBox is in ratios of the image's width and height. Rekognition
// documents that an object at the image's edge may have a negative Left
// or Top, or a box reaching past 1.
type boundingBox struct {
	Width  float64 `json:"Width"`
	Height float64 `json:"Height"`
	Left   float64 `json:"Left"`
	Top    float64 `json:"Top"`
}

// errMalformed is wrapped by parseLabels' errors: the answer is not
// DetectLabels' documented shape.
var errMalformed = errors.New("malformed DetectLabels answer")

// parseLabels turns a DetectLabels answer into one Detection per
// instance, in the answer's order. It drops instances less confident than
// minConfidence (0–100) and instances without a box, and clips each box
// to the frame (dropping one left with no area). Labels without instances
// are scenes and concepts, not objects: they give nothing. A body that is
// not a JSON object, a label with instances but no name, or a confidence
// outside 0–100 fails with an error wrapping errMalformed.
func parseLabels(body []byte, minConfidence float64) ([]inventory.Detection, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", errMalformed)
	}
	var out detectLabelsOutput
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("%w: %w", errMalformed, err)
	}
	var found []inventory.Detection
	for i, l := range out.Labels {
		if len(l.Instances) == 0 {
			continue
		}
		if l.Name == "" {
			return nil, fmt.Errorf("%w: label %d has instances but no name", errMalformed, i)
		}
		if l.Confidence != nil && !isPercent(*l.Confidence) {
			return nil, fmt.Errorf("%w: label %q has confidence %v", errMalformed, l.Name, *l.Confidence)
		}
		var parents []string
		for _, p := range l.Parents {
			if p.Name != "" {
				parents = append(parents, p.Name)
			}
		}
		for j, in := range l.Instances {
			conf := in.Confidence
			if conf == nil {
				conf = l.Confidence
			}
			if conf == nil {
				return nil, fmt.Errorf("%w: instance %d of %q has no confidence", errMalformed, j, l.Name)
			}
			if !isPercent(*conf) {
				return nil, fmt.Errorf("%w: instance %d of %q has confidence %v", errMalformed, j, l.Name, *conf)
			}
			if *conf < minConfidence || in.BoundingBox == nil {
				continue
			}
			box, ok := clip(*in.BoundingBox)
			if !ok {
				continue
			}
			found = append(found, inventory.Detection{
				Label:      l.Name,
				Parents:    append([]string(nil), parents...),
				Confidence: *conf / 100,
				Box:        box,
			})
		}
	}
	return found, nil
}

func isPercent(v float64) bool { return v >= 0 && v <= 100 }

// clip returns b inside the frame (0 to 1 on both axes), and false when
// nothing of it is left.
func clip(b boundingBox) (inventory.Box, bool) {
	left, right := math.Max(0, b.Left), math.Min(1, b.Left+b.Width)
	top, bottom := math.Max(0, b.Top), math.Min(1, b.Top+b.Height)
	if !(right > left && bottom > top) {
		return inventory.Box{}, false
	}
	return inventory.Box{Left: left, Top: top, Width: right - left, Height: bottom - top}, true
}
