package inventory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

func det(label string, conf float64) Detection { return Detection{Label: label, Confidence: conf} }

// TestLabelsMapToTheCubeSheet: every mapped label names a cube-sheet key
// (or "" for a label deliberately ignored), and every detector with a
// table has a threshold in (0, 1).
func TestLabelsMapToTheCubeSheet(t *testing.T) {
	for name, table := range Labels {
		th, ok := Thresholds[name]
		if !ok || th <= 0 || th >= 1 {
			t.Errorf("detector %s: threshold %v", name, th)
		}
		for label, key := range table {
			if _, ok := Lookup(key); key != "" && !ok {
				t.Errorf("%s label %q maps to %q, not on the cube sheet", name, label, key)
			}
		}
	}
	for name := range Thresholds {
		if _, ok := Labels[name]; !ok {
			t.Errorf("threshold for %s, which has no label table", name)
		}
	}
	if key, ok := ItemFor("centernet-coco", "couch"); !ok || key != "sofa_3_seat" {
		t.Errorf("couch → %q %v", key, ok)
	}
	for _, c := range [][2]string{{"centernet-coco", "potted plant"}, {"centernet-coco", "person"}, {"rekognition", "couch"}, {"nope", "couch"}} {
		if key, ok := ItemFor(c[0], c[1]); ok {
			t.Errorf("%s %q → %q; want no item", c[0], c[1], key)
		}
	}
}

// TestCount: the most instances in any one frame of a room, never the sum
// over frames; below-threshold and unmapped detections do not count;
// rooms match by name whatever the case and spaces.
func TestCount(t *testing.T) {
	tests := []struct {
		name   string
		frames []FrameDetections
		want   map[string]map[string]int
	}{
		{"one frame, several instances", []FrameDetections{
			{"Dining room", []Detection{det("chair", .9), det("chair", .8), det("chair", .7), det("dining table", .9)}},
		}, map[string]map[string]int{"dining room": {"dining_chair": 3, "dining_table_medium": 1}}},
		{"the same sofa in many frames is one sofa", []FrameDetections{
			{"Living room", []Detection{det("couch", .9)}},
			{"Living room", []Detection{det("couch", .95)}},
			{"Living room", []Detection{det("couch", .8)}},
		}, map[string]map[string]int{"living room": {"sofa_3_seat": 1}}},
		{"max over frames, not sum", []FrameDetections{
			{"Kitchen", []Detection{det("chair", .9), det("chair", .9)}},
			{"Kitchen", []Detection{det("chair", .9), det("chair", .9), det("chair", .9), det("chair", .9)}},
			{"Kitchen", []Detection{det("chair", .9)}},
		}, map[string]map[string]int{"kitchen": {"dining_chair": 4}}},
		{"threshold and unmapped labels", []FrameDetections{
			{"Bedroom", []Detection{det("bed", .29), det("person", .99), det("potted plant", .99), det("bed", .3)}},
		}, map[string]map[string]int{"bedroom": {"bed_unknown": 1}}},
		{"rooms by name, case and space", []FrameDetections{
			{" Office ", []Detection{det("chair", .9)}},
			{"office", []Detection{det("chair", .9), det("chair", .9)}},
		}, map[string]map[string]int{"office": {"dining_chair": 2}}},
		{"nothing found", []FrameDetections{{"Hall", nil}}, map[string]map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Count("centernet-coco", tt.frames); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Count = %v; want %v", got, tt.want)
			}
		})
	}
	if got := Count("unknown-detector", []FrameDetections{{"Hall", []Detection{det("couch", 1)}}}); len(got) != 0 {
		t.Errorf("an unknown detector counted %v", got)
	}
}

// TestMerge: checklist items are never removed or lowered; an item the
// checklist lacks is added as detected; a checklist item the detector saw
// too shows both; a room only the clips named is added after the
// checklist's rooms.
func TestMerge(t *testing.T) {
	sofa, _ := Lookup("sofa_3_seat")
	checklist := Inventory{Rooms: []Room{
		{Name: "Living room", Items: []Item{
			{Key: "sofa_3_seat", Name: sofa.Name, Count: 2, CubicFeet: sofa.Volume.CubicFeet(), Source: FromChecklist},
			{Key: "box_medium", Name: "Box, medium (3.0 cu ft)", Count: 10, CubicFeet: 3, Source: FromChecklist},
		}},
		{Name: "Kitchen", Items: []Item{{Key: "microwave", Name: "Microwave", Count: 1, CubicFeet: 2, Source: FromChecklist}}},
	}}
	detected := map[string]map[string]int{
		"living room": {"sofa_3_seat": 1, "tv_medium": 1},
		"bedroom":     {"bed_unknown": 1},
		"garage":      {},
	}
	got := Merge(checklist, detected, []string{"Living room", "Bedroom", "Garage", "Bedroom"})
	if len(got.Rooms) != 3 || got.Rooms[0].Name != "Living room" || got.Rooms[1].Name != "Kitchen" || got.Rooms[2].Name != "Bedroom" {
		t.Fatalf("rooms %+v", got.Rooms)
	}
	lr := got.Rooms[0].Items
	if len(lr) != 3 || lr[0].Count != 2 || lr[0].Source != FromChecklist || lr[0].Detected != 1 ||
		lr[1].Key != "box_medium" || lr[1].Count != 10 || lr[1].Detected != 0 ||
		lr[2].Key != "tv_medium" || lr[2].Source != FromDetector || lr[2].Count != 1 || lr[2].CubicFeet <= 0 {
		t.Errorf("living room %+v", lr)
	}
	if k := got.Rooms[1].Items; len(k) != 1 || k[0].Count != 1 || k[0].Source != FromChecklist {
		t.Errorf("kitchen %+v; want the checklist's microwave untouched", k)
	}
	if b := got.Rooms[2].Items; len(b) != 1 || b[0].Key != "bed_unknown" || b[0].Source != FromDetector {
		t.Errorf("bedroom %+v", b)
	}
	if checklist.Rooms[0].Items[0].Detected != 0 || len(checklist.Rooms[0].Items) != 2 {
		t.Error("Merge changed its input")
	}
	if got.Volume() <= checklist.Volume() {
		t.Errorf("merged volume %v ≤ checklist's %v", got.Volume(), checklist.Volume())
	}
	// A detector that found less than the checklist lists changes nothing.
	less := Merge(checklist, map[string]map[string]int{"living room": {"sofa_3_seat": 1}}, nil)
	if less.Rooms[0].Items[0].Count != 2 || len(less.Rooms[0].Items) != 2 {
		t.Errorf("detector lowered or removed a checklist item: %+v", less.Rooms[0].Items)
	}
}

// fakeDetector answers by frame content: "bad" is an unreadable frame,
// "down" a detector failure, anything else the detections listed; with
// err set, every call fails with it.
type fakeDetector struct {
	by  map[string][]Detection
	err error
}

func (f fakeDetector) Name() string { return "centernet-coco" }
func (f fakeDetector) Detect(_ context.Context, jpeg []byte) ([]Detection, error) {
	if f.err != nil {
		return nil, f.err
	}
	switch string(jpeg) {
	case "bad":
		return nil, errors.Join(errors.New("sidecar said 400"), ErrBadFrame)
	case "down":
		return nil, errors.New("connection refused")
	}
	return f.by[string(jpeg)], nil
}

// TestAnalyse: a frame's detections are kept most confident first and
// bounded; a detector's failure, or no detector, is recorded as one of
// the fixed reasons, never its own text, which is returned for the log.
func TestAnalyse(t *testing.T) {
	ctx := context.Background()
	d := fakeDetector{by: map[string][]Detection{"lr1": {det("tv", .8), det("couch", .9)}}}
	if a, err := Analyse(ctx, d, []byte("lr1")); err != nil || a.Detector != "centernet-coco" || a.Error != "" ||
		len(a.Detections) != 2 || a.Detections[0].Label != "couch" {
		t.Errorf("analysis %+v, %v; want both detections, couch first", a, err)
	}
	if a, err := Analyse(ctx, d, []byte("empty")); err != nil || a.Detections == nil || len(a.Detections) != 0 || a.Error != "" {
		t.Errorf("nothing found: %+v, %v; want an empty, non-nil list (looked, found nothing)", a, err)
	}
	if a, err := Analyse(ctx, d, []byte("down")); a.Detector != "centernet-coco" || a.Error != ReasonUnavailable || err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("dead detector: %+v, %v; want %q kept and the detector's error returned", a, err, ReasonUnavailable)
	}
	if a, err := Analyse(ctx, d, []byte("bad")); a.Error != ReasonBadFrame || !errors.Is(err, ErrBadFrame) {
		t.Errorf("unreadable frame: %+v, %v; want %q kept and ErrBadFrame returned", a, err, ReasonBadFrame)
	}
	slow := fakeDetector{err: fmt.Errorf("post: %w", context.DeadlineExceeded)}
	if a, err := Analyse(ctx, slow, []byte("x")); a.Error != ReasonTimeout || err == nil {
		t.Errorf("timed out: %+v, %v; want %q", a, err, ReasonTimeout)
	}
	if a, err := Analyse(ctx, nil, []byte("lr1")); err != nil || a.Error != ReasonNoDetector || a.Detector != "" {
		t.Errorf("no detector: %+v, %v", a, err)
	}
	many := make([]Detection, MaxDetections+10)
	for i := range many {
		many[i] = det("chair", float64(i)/100)
	}
	a, _ := Analyse(ctx, fakeDetector{by: map[string][]Detection{"many": many}}, []byte("many"))
	if len(a.Detections) != MaxDetections || a.Detections[0].Confidence != many[len(many)-1].Confidence {
		t.Errorf("kept %d, first %v; want the %d most confident", len(a.Detections), a.Detections[0].Confidence, MaxDetections)
	}
}

// TestDetectorTextNeverReachesPartners: whatever a detector said (the
// sidecar's JavaScript exception, a provider's message), the report a
// partner reads holds one of the fixed reasons, from a fresh analysis
// and from a frame stored with the raw text by an earlier release.
func TestDetectorTextNeverReachesPartners(t *testing.T) {
	const leak = "detect with centernet-coco: sidecar answered 400 Bad Request: not a JPEG the detector reads: Cannot read properties of undefined (reading '0')"
	ctx := context.Background()
	fresh, err := Analyse(ctx, fakeDetector{err: errors.New(leak)}, []byte("x"))
	if err == nil || err.Error() != leak {
		t.Fatalf("Analyse error %v; want the detector's own, for the log", err)
	}
	clips := []survey.Clip{{ID: "c1", Room: "Living room", Status: survey.ClipPlayable}}
	for name, a := range map[string]Analysis{
		"fresh":  fresh,
		"stored": {Detector: "rekognition", Error: "InvalidImageFormatException: Request has invalid image format"},
	} {
		t.Run(name, func(t *testing.T) {
			inv, err := FramesBuilder{}.Build(ctx, Input{Clips: clips, Frames: []Frame{{ClipID: "c1", Analysis: a}}})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(inv)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Detector struct{ Error string } `json:"detector"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got.Detector.Error != ReasonUnavailable || strings.Contains(string(b), "Cannot read") || strings.Contains(string(b), "Exception") {
				t.Errorf("partner's JSON %s; want detector.error %q and no detector text", b, ReasonUnavailable)
			}
			// A report stored with the raw text is written out clean too.
			raw := DetectorReport{Status: DetectorFailed, FramesFailed: 1, Error: a.Error}
			if b, _ := json.Marshal(raw); strings.Contains(string(b), "Cannot read") || strings.Contains(string(b), "Exception") {
				t.Errorf("stored report written as %s", b)
			}
		})
	}
}

func analysed(clipID string, dets ...Detection) Frame {
	if dets == nil {
		dets = []Detection{}
	}
	return Frame{ClipID: clipID, Analysis: Analysis{Detector: "centernet-coco", Detections: dets}}
}

func TestFramesBuilder(t *testing.T) {
	clips := []survey.Clip{
		{ID: "c1", Room: "Living room", Status: survey.ClipPlayable},
		{ID: "c2", Room: "Bedroom", Status: survey.ClipPlayable},
		{ID: "c3", Room: "Garage", Status: survey.ClipPlayable}, // no frames
	}
	cl := Checklist{Rooms: []ChecklistRoom{{Name: "Living room", Items: []ChecklistItem{{Key: "sofa_3_seat", Count: 1}}}}}
	frames := []Frame{
		analysed("c1", det("couch", .9), det("tv", .8)),
		analysed("c1", det("couch", .9)),
		analysed("c2", det("bed", .9)),
		analysed("c9", det("refrigerator", .9)), // a frame of a clip that is not playable: not counted
	}
	inv, err := FramesBuilder{}.Build(context.Background(), Input{Clips: clips, Frames: frames, Checklist: cl})
	if err != nil {
		t.Fatal(err)
	}
	rep := inv.Detector
	if rep == nil || rep.Status != DetectorOK || rep.Name != "centernet-coco" || rep.FramesAnalyzed != 4 || rep.FramesFailed != 0 ||
		!reflect.DeepEqual(rep.ClipsNoFrames, []string{"c3"}) {
		t.Errorf("report %+v", rep)
	}
	if len(inv.Rooms) != 2 || len(inv.Rooms[0].Items) != 2 || inv.Rooms[0].Items[0].Source != FromChecklist ||
		inv.Rooms[0].Items[1].Key != "tv_medium" || inv.Rooms[1].Name != "Bedroom" {
		t.Errorf("inventory %+v", inv.Rooms)
	}

	// Some frames failing: the others count, and the report says why.
	partial, err := FramesBuilder{}.Build(context.Background(), Input{Clips: clips, Checklist: cl,
		Frames: append(frames, Frame{ClipID: "c2", Analysis: Analysis{Detector: "centernet-coco", Error: "sidecar said 400"}})})
	if err != nil || partial.Detector.Status != DetectorPartial || partial.Detector.FramesFailed != 1 || partial.Detector.Error != ReasonUnavailable {
		t.Errorf("partial: %+v %v", partial.Detector, err)
	}

	// A dead detector: the checklist alone, the failure recorded, no error.
	dead, err := FramesBuilder{}.Build(context.Background(), Input{Clips: clips, Checklist: cl,
		Frames: []Frame{{ClipID: "c1", Analysis: Analysis{Detector: "centernet-coco", Error: "connection refused"}}, {ClipID: "c2", Analysis: Analysis{Error: "no detector is configured"}}}})
	if err != nil {
		t.Fatalf("a dead detector failed the build: %v", err)
	}
	want, _ := ChecklistBuilder{}.Build(context.Background(), Input{Checklist: cl})
	if dead.Detector.Status != DetectorFailed || dead.Detector.FramesFailed != 2 || dead.Detector.Error != ReasonUnavailable || !reflect.DeepEqual(dead.Rooms, want.Rooms) {
		t.Errorf("dead detector: %+v, rooms %+v; want failed and the checklist's rooms %+v", dead.Detector, dead.Rooms, want.Rooms)
	}

	// Playable clips without any frame: the checklist, and the report says so.
	none, _ := FramesBuilder{}.Build(context.Background(), Input{Clips: clips, Checklist: cl})
	if none.Detector == nil || none.Detector.Status != DetectorNoFrames || len(none.Detector.ClipsNoFrames) != 3 || !reflect.DeepEqual(none.Rooms, want.Rooms) {
		t.Errorf("no frames: %+v", none)
	}
	// Nothing filmed at all: exactly the checklist builder, no report.
	if bare, _ := (FramesBuilder{}).Build(context.Background(), Input{Checklist: cl}); bare.Detector != nil || !reflect.DeepEqual(bare, want) {
		t.Errorf("no clips: %+v", bare)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (FramesBuilder{}).Build(ctx, Input{Clips: clips, Frames: frames, Checklist: cl}); err == nil {
		t.Error("a done context built an inventory")
	}
}
