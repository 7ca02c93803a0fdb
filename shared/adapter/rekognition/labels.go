package rekognition

import (
	"errors"
	"fmt"
	"math"

	"github.com/aws/aws-sdk-go-v2/service/rekognition/types"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

// errMalformed is wrapped by detections' errors: the answer decoded, but
// breaks DetectLabels' documented contract.
var errMalformed = errors.New("malformed DetectLabels answer")

// detections turns DetectLabels' labels into one Detection per instance,
// in the answer's order. It drops instances less confident than
// minConfidence (0–100) and instances without a box, and clips each box
// to the frame (dropping one left with no area). Labels without instances
// are scenes and concepts, not objects: they give nothing. A label with
// instances but no name, or a confidence outside 0–100, fails with an
// error wrapping errMalformed.
func detections(labels []types.Label, minConfidence float64) ([]inventory.Detection, error) {
	var found []inventory.Detection
	for i, l := range labels {
		if len(l.Instances) == 0 {
			continue
		}
		name := derefString(l.Name)
		if name == "" {
			return nil, fmt.Errorf("%w: label %d has instances but no name", errMalformed, i)
		}
		if l.Confidence != nil && !isPercent(*l.Confidence) {
			return nil, fmt.Errorf("%w: label %q has confidence %v", errMalformed, name, *l.Confidence)
		}
		var parents []string
		for _, p := range l.Parents {
			if n := derefString(p.Name); n != "" {
				parents = append(parents, n)
			}
		}
		for j, in := range l.Instances {
			conf := in.Confidence
			if conf == nil {
				conf = l.Confidence
			}
			if conf == nil {
				return nil, fmt.Errorf("%w: instance %d of %q has no confidence", errMalformed, j, name)
			}
			if !isPercent(*conf) {
				return nil, fmt.Errorf("%w: instance %d of %q has confidence %v", errMalformed, j, name, *conf)
			}
			if float64(*conf) < minConfidence || in.BoundingBox == nil {
				continue
			}
			box, ok := clip(*in.BoundingBox)
			if !ok {
				continue
			}
			found = append(found, inventory.Detection{
				Label:      name,
				Parents:    append([]string(nil), parents...),
				Confidence: float64(*conf) / 100,
				Box:        box,
			})
		}
	}
	return found, nil
}

func isPercent(v float32) bool { return v >= 0 && v <= 100 }

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefFloat(f *float32) float64 {
	if f == nil {
		return 0
	}
	return float64(*f)
}

// clip returns b inside the frame (0 to 1 on both axes), and false when
// nothing of it is left. Rekognition documents that an object at the
// image's edge may have a negative Left or Top, or a box reaching past 1.
func clip(b types.BoundingBox) (inventory.Box, bool) {
	l, t, w, h := derefFloat(b.Left), derefFloat(b.Top), derefFloat(b.Width), derefFloat(b.Height)
	left, right := math.Max(0, l), math.Min(1, l+w)
	top, bottom := math.Max(0, t), math.Min(1, t+h)
	if !(right > left && bottom > top) {
		return inventory.Box{}, false
	}
	return inventory.Box{Left: left, Top: top, Width: right - left, Height: bottom - top}, true
}
