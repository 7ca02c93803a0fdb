package inventory

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/survey"
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
// "down" a detector failure, anything else the detections listed.
type fakeDetector struct{ by map[string][]Detection }

func (f fakeDetector) Name() string { return "centernet-coco" }
func (f fakeDetector) Detect(_ context.Context, jpeg []byte) ([]Detection, error) {
	switch string(jpeg) {
	case "bad":
		return nil, errors.Join(errors.New("sidecar said 400"), ErrBadFrame)
	case "down":
		return nil, errors.New("connection refused")
	}
	return f.by[string(jpeg)], nil
}

func TestDetectingBuilder(t *testing.T) {
	clips := []survey.Clip{
		{ID: "c1", Room: "Living room", Status: survey.ClipPlayable},
		{ID: "c2", Room: "Bedroom", Status: survey.ClipPlayable},
		{ID: "c3", Room: "Garage", Status: survey.ClipPlayable}, // no frames
		{ID: "c4", Room: "Attic", Status: survey.ClipRejected},  // not playable: not reported
	}
	cl := Checklist{Rooms: []ChecklistRoom{{Name: "Living room", Items: []ChecklistItem{{Key: "sofa_3_seat", Count: 1}}}}}
	d := fakeDetector{by: map[string][]Detection{
		"lr1": {det("couch", .9), det("tv", .8)},
		"lr2": {det("couch", .9)},
		"br1": {det("bed", .9)},
	}}
	frames := []Frame{{ClipID: "c1", JPEG: []byte("lr1")}, {ClipID: "c1", JPEG: []byte("lr2")}, {ClipID: "c2", JPEG: []byte("br1")}}

	inv, err := DetectingBuilder{Detector: d, Concurrency: 2}.Build(context.Background(), Input{Clips: clips, Frames: frames, Checklist: cl})
	if err != nil {
		t.Fatal(err)
	}
	rep := inv.Detector
	if rep == nil || rep.Status != DetectorOK || rep.FramesAnalyzed != 3 || rep.FramesFailed != 0 || !reflect.DeepEqual(rep.ClipsNoFrames, []string{"c3"}) {
		t.Errorf("report %+v", rep)
	}
	if len(inv.Rooms) != 2 || len(inv.Rooms[0].Items) != 2 || inv.Rooms[0].Items[0].Source != FromChecklist ||
		inv.Rooms[0].Items[1].Key != "tv_medium" || inv.Rooms[1].Name != "Bedroom" {
		t.Errorf("inventory %+v", inv.Rooms)
	}

	// Some frames failing: the others count, and the report says why.
	partial, err := DetectingBuilder{Detector: d}.Build(context.Background(), Input{Clips: clips, Checklist: cl,
		Frames: append(frames, Frame{ClipID: "c2", JPEG: []byte("bad")})})
	if err != nil || partial.Detector.Status != DetectorPartial || partial.Detector.FramesFailed != 1 || !strings.Contains(partial.Detector.Error, "400") {
		t.Errorf("partial: %+v %v", partial.Detector, err)
	}

	// A dead detector: the checklist alone, the failure recorded, no error.
	dead, err := DetectingBuilder{Detector: d}.Build(context.Background(), Input{Clips: clips, Checklist: cl,
		Frames: []Frame{{ClipID: "c1", JPEG: []byte("down")}, {ClipID: "c2", JPEG: []byte("bad")}}})
	if err != nil {
		t.Fatalf("a dead detector failed the build: %v", err)
	}
	want, _ := ChecklistBuilder{}.Build(context.Background(), Input{Checklist: cl})
	if dead.Detector.Status != DetectorFailed || !strings.Contains(dead.Detector.Error, "connection refused") || !reflect.DeepEqual(dead.Rooms, want.Rooms) {
		t.Errorf("dead detector: %+v, rooms %+v; want failed and the checklist's rooms %+v", dead.Detector, dead.Rooms, want.Rooms)
	}

	// No detector: exactly the checklist builder.
	none, _ := DetectingBuilder{}.Build(context.Background(), Input{Clips: clips, Frames: frames, Checklist: cl})
	if none.Detector != nil || !reflect.DeepEqual(none.Rooms, want.Rooms) {
		t.Errorf("no detector: %+v", none)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (DetectingBuilder{Detector: d}).Build(ctx, Input{Clips: clips, Frames: frames, Checklist: cl}); err == nil {
		t.Error("a done context built an inventory")
	}
}
