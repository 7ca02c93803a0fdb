package inventory

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// Labels maps each detector's labels (Detector.Name) to cube-sheet keys:
// the one place a detected object becomes an inventory item. A label not
// in its detector's table is ignored (a cup, a person, a potted plant: not
// furniture a mover prices, or nothing on the cube sheet). Where a label
// says less than the cube sheet distinguishes, it maps to the entry a
// mover would assume until told otherwise, named in the comment: a bed of
// unknown size, a 3-seat sofa, a medium dining table, a medium TV.
var Labels = map[string]map[string]string{
	// The 80 COCO classes of the CenterNet model the local stack runs
	// (npm @vladmandic/human), by their COCO names.
	"centernet-coco": {
		"couch":        "sofa_3_seat", // a couch of any length
		"bed":          "bed_unknown",
		"dining table": "dining_table_medium", // COCO's only table class
		"chair":        "dining_chair",        // COCO's only chair class
		"tv":           "tv_medium",
		"refrigerator": "refrigerator",
		"oven":         "stove",
		"microwave":    "microwave",
		"clock":        "", // wall and table clocks: not on the cube sheet
		"potted plant": "", // plants are not moved by most carriers
		"bench":        "", // no cube-sheet entry
	},
	// Amazon Rekognition's label names (DetectLabels, label model 3.0),
	// for the labels it returns with instances (bounding boxes).
	"rekognition": {
		"Couch":        "sofa_3_seat",
		"Bed":          "bed_unknown",
		"Dining Table": "dining_table_medium",
		"Chair":        "dining_chair",
		"Armchair":     "armchair",
		"TV":           "tv_medium",
		"Television":   "tv_medium",
		"Refrigerator": "refrigerator",
		"Oven":         "stove",
		"Microwave":    "microwave",
		"Piano":        "piano_upright",
		"Grand Piano":  "piano_grand",
		"Lamp":         "lamp_table",
		"Bookcase":     "bookcase",
		"Dresser":      "dresser",
		"Desk":         "desk_small",
		"Washer":       "washer",
		"Dryer":        "dryer",
		"Dishwasher":   "dishwasher",
		"Rug":          "rug_small",
		"Ottoman":      "ottoman",
	},
}

// Thresholds is the least confidence at which each detector's detection
// counts. docs/INVENTORY.md names the data each was tuned on:
// centernet-coco on the three rendered rooms of shared/local/detectlocal/testdata
// (couch 0.50, tv 0.54, bed 0.49, refrigerator 0.68 pass; its chairs
// scored 0.21 to 0.31, and 0.5 would also drop the bed); rekognition's is
// provisional (no recorded furniture response exists yet): above
// Rekognition's own default of 55, below the furniture of the composed
// living-room response (73.8 to 97.6).
var Thresholds = map[string]float64{
	"centernet-coco": 0.3,
	"rekognition":    0.7,
}

// ItemFor returns the cube-sheet key detector's label stands for, and
// false when the label is not an item (or the detector is unknown).
func ItemFor(detector, label string) (string, bool) {
	key := Labels[detector][label]
	return key, key != ""
}

// FrameDetections is what a detector found in one frame of a room.
type FrameDetections struct {
	Room       string
	Detections []Detection
}

// Count returns, room by room, how many of each cube-sheet item the frames
// show: an item's count in a room is the largest number of its instances
// (at or above the detector's threshold) seen in any ONE frame of that
// room, never a sum over frames (the same sofa is in many frames). Rooms
// are matched by name, ignoring case and surrounding space.
func Count(detector string, frames []FrameDetections) map[string]map[string]int {
	threshold, ok := Thresholds[detector]
	if !ok {
		return map[string]map[string]int{}
	}
	out := map[string]map[string]int{}
	for _, f := range frames {
		inFrame := map[string]int{}
		for _, d := range f.Detections {
			if d.Confidence < threshold {
				continue
			}
			if key, ok := ItemFor(detector, d.Label); ok {
				inFrame[key]++
			}
		}
		room := roomKey(f.Room)
		for key, n := range inFrame {
			if out[room] == nil {
				out[room] = map[string]int{}
			}
			out[room][key] = max(out[room][key], n)
		}
	}
	return out
}

func roomKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// Merge adds detected items to the checklist's inventory: an item the
// detector found that the customer's checklist does not list in that room
// is added with Source FromDetector and the detected count; an item the
// checklist lists keeps the customer's count and source, with Detected
// set to what the detector saw. The detector never removes or lowers a
// checklist item. rooms names each detected room as the clips spelled it
// (a room the checklist lacks is added after the checklist's rooms, in
// rooms' order).
func Merge(checklist Inventory, detected map[string]map[string]int, rooms []string) Inventory {
	out := Inventory{Rooms: make([]Room, 0, len(checklist.Rooms)), Detector: checklist.Detector}
	seen := map[string]bool{}
	for _, r := range checklist.Rooms {
		room := Room{Name: r.Name, Items: append([]Item(nil), r.Items...)}
		seen[roomKey(r.Name)] = true
		addDetected(&room, detected[roomKey(r.Name)])
		out.Rooms = append(out.Rooms, room)
	}
	for _, name := range rooms {
		k := roomKey(name)
		if seen[k] || len(detected[k]) == 0 {
			continue
		}
		seen[k] = true
		room := Room{Name: strings.TrimSpace(name)}
		addDetected(&room, detected[k])
		out.Rooms = append(out.Rooms, room)
	}
	return out
}

// addDetected merges counts (cube-sheet key → count) into room.
func addDetected(room *Room, counts map[string]int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		n := counts[key]
		if n <= 0 {
			continue
		}
		listed := false
		for i := range room.Items {
			if room.Items[i].Key == key {
				room.Items[i].Detected = n
				listed = true
			}
		}
		if listed {
			continue
		}
		e, ok := Lookup(key)
		if !ok {
			continue // a mapping to a key the sheet lacks; a test forbids it
		}
		room.Items = append(room.Items, Item{Key: key, Name: e.Name, Count: min(n, MaxCount), CubicFeet: e.Volume.CubicFeet(), Source: FromDetector, Detected: n})
	}
}

// DetectorReport says what the detector did for an inventory: which one
// ran, on how many frames, whether it failed (the inventory is then the
// checklist's alone), and which playable clips had no frame (the capture
// page could not take stills from them: a codec the browser cannot play).
type DetectorReport struct {
	Name           string   `json:"name" dynamodbav:"name"`     // "" when no frame was analysed
	Status         string   `json:"status" dynamodbav:"status"` // DetectorOK, DetectorPartial, DetectorFailed, DetectorNoFrames
	FramesAnalyzed int      `json:"frames_analyzed" dynamodbav:"frames_analyzed"`
	FramesFailed   int      `json:"frames_failed" dynamodbav:"frames_failed"`
	Error          string   `json:"error,omitempty" dynamodbav:"error,omitempty"`
	ClipsNoFrames  []string `json:"clips_without_frames,omitempty" dynamodbav:"clips_without_frames,omitempty"`
}

// MarshalJSON writes the report as partners see it (getLead, webhooks,
// agent tools): its error is always one of the Reason constants
// (PublicReason), even for a report stored with a detector's own message.
func (r DetectorReport) MarshalJSON() ([]byte, error) {
	type plain DetectorReport
	if r.Error != "" {
		r.Error = PublicReason(r.Error)
	}
	return json.Marshal(plain(r))
}

// The detector report's statuses.
const (
	DetectorOK       = "ok"        // every frame was analysed
	DetectorPartial  = "partial"   // some frames failed; the others count
	DetectorFailed   = "failed"    // no frame could be analysed: the checklist alone
	DetectorNoFrames = "no_frames" // the survey has no frame to analyse: the checklist alone
)

// MaxDetections is how many detections of one frame are kept (the most
// confident): more than any room holds of furniture, and a bound on what
// a frame's record stores.
const MaxDetections = 50

// The reasons a frame was not analysed: the only texts Analysis.Error and
// DetectorReport.Error hold (PublicReason), so that no detector's own
// message (a provider's exception, the sidecar's JavaScript error) reaches
// a partner; the detail goes to the log.
const (
	ReasonNoDetector  = "no detector is configured"
	ReasonNotAnalysed = "not analysed"
	ReasonUnavailable = "detector unavailable"
	ReasonTimeout     = "detector timed out"
	ReasonBadFrame    = "frame unreadable by the detector"
)

// Reasons lists the Reason constants: the API's DetectorReport.error enum
// (shared/spec/openapi checks it).
var Reasons = []string{ReasonUnavailable, ReasonTimeout, ReasonBadFrame, ReasonNoDetector, ReasonNotAnalysed}

// PublicReason returns reason when it is one of Reasons, and
// ReasonUnavailable for any other text (a detector's own message kept by
// an older release).
func PublicReason(reason string) string {
	if slices.Contains(Reasons, reason) {
		return reason
	}
	return ReasonUnavailable
}

// Analyse runs d on one frame and returns what is kept of it: the
// detector's name and its MaxDetections most confident detections, or,
// when it failed (after the adapter's own retries), one of the Reason
// constants. A nil d is a failure too (ReasonNoDetector). The error is
// the detector's own, for the log and for errors.Is (ErrBadFrame: the
// frame, not the detector, is at fault); its text is never kept.
func Analyse(ctx context.Context, d Detector, jpeg []byte) (Analysis, error) {
	if d == nil {
		return Analysis{Error: ReasonNoDetector}, nil
	}
	found, err := d.Detect(ctx, jpeg)
	if err != nil {
		reason := ReasonUnavailable
		switch {
		case errors.Is(err, ErrBadFrame):
			reason = ReasonBadFrame
		case errors.Is(err, context.DeadlineExceeded):
			reason = ReasonTimeout
		}
		return Analysis{Detector: d.Name(), Error: reason}, err
	}
	found = slices.Clone(found)
	slices.SortStableFunc(found, func(a, b Detection) int { return cmp.Compare(b.Confidence, a.Confidence) })
	if len(found) > MaxDetections {
		found = found[:MaxDetections]
	}
	if found == nil {
		found = []Detection{}
	}
	return Analysis{Detector: d.Name(), Detections: found}, nil
}

// FramesBuilder is the Builder of issue 11: the checklist's inventory
// (ChecklistBuilder) merged with what the detector found in the survey's
// frames (Input.Frames, each analysed once by the clip processor when it
// arrived: Analyse), by Count and Merge. A detector that failed on some or
// all frames never fails the build: the inventory is then the checklist's
// (plus what the other frames showed), and Inventory.Detector says why.
type FramesBuilder struct{}

// Build implements Builder. It fails only when ctx is done or the
// checklist cannot be read. The report is set whenever the survey has a
// playable clip or a frame.
func (FramesBuilder) Build(ctx context.Context, in Input) (Inventory, error) {
	inv, err := ChecklistBuilder{}.Build(ctx, in)
	if err != nil {
		return inv, err
	}
	rooms := map[string]string{}
	var order []string
	withFrames := map[string]bool{}
	for _, f := range in.Frames {
		withFrames[f.ClipID] = true
	}
	rep := &DetectorReport{Status: DetectorOK}
	for _, c := range in.Clips {
		rooms[c.ID] = c.Room
		order = append(order, c.Room)
		if c.Status == survey.ClipPlayable && !withFrames[c.ID] {
			rep.ClipsNoFrames = append(rep.ClipsNoFrames, c.ID)
		}
	}
	if len(in.Frames) == 0 && len(rep.ClipsNoFrames) == 0 {
		return inv, nil
	}
	byDetector := map[string][]FrameDetections{}
	for _, f := range in.Frames {
		a := f.Analysis
		if a.Error != "" || a.Detector == "" {
			rep.FramesFailed++
			if rep.Error == "" {
				rep.Error = PublicReason(cmp.Or(a.Error, ReasonNotAnalysed))
			}
			continue
		}
		rep.FramesAnalyzed++
		if rep.Name == "" {
			rep.Name = a.Detector
		} else if !strings.Contains(","+rep.Name+",", ","+a.Detector+",") {
			rep.Name += "," + a.Detector
		}
		room, ok := rooms[f.ClipID]
		if !ok {
			continue // a frame of a clip that is not playable
		}
		byDetector[a.Detector] = append(byDetector[a.Detector], FrameDetections{Room: room, Detections: a.Detections})
	}
	switch {
	case len(in.Frames) == 0:
		rep.Status = DetectorNoFrames
	case rep.FramesFailed > 0 && rep.FramesAnalyzed == 0:
		rep.Status = DetectorFailed
	case rep.FramesFailed > 0:
		rep.Status = DetectorPartial
	}
	inv.Detector = rep
	names := make([]string, 0, len(byDetector))
	for name := range byDetector {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		inv = Merge(inv, Count(name, byDetector[name]), order)
	}
	return inv, nil
}
