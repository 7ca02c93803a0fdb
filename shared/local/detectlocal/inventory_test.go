package detectlocal

import (
	"context"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestInventoryFromRealDetections: the real model's detections on the
// rendered rooms, through the label table, the counting rule and the merge,
// become the inventory's items: what the customer ticked stays as ticked,
// what only the detector saw is added as detected, and the report counts
// the frames.
func TestInventoryFromRealDetections(t *testing.T) {
	sidecar(t)
	clips := []survey.Clip{
		{ID: "c1", Room: "Living room", Status: survey.ClipPlayable},
		{ID: "c2", Room: "Bedroom", Status: survey.ClipPlayable},
		{ID: "c3", Room: "Kitchen", Status: survey.ClipPlayable},
	}
	var frames []inventory.Frame
	for _, f := range []struct{ clip, file string }{
		{"c1", "living-room.jpg"},
		{"c1", "living-room.jpg"}, // the same sofa twice is one sofa
		{"c2", "bedroom.jpg"},
		{"c3", "kitchen.jpg"},
	} {
		a, err := inventory.Analyse(context.Background(), detected, frame(t, f.file))
		if err != nil || a.Error != "" {
			t.Fatalf("%s: %s (%v)", f.file, a.Error, err)
		}
		frames = append(frames, inventory.Frame{ClipID: f.clip, Analysis: a})
	}
	checklist := inventory.Checklist{Rooms: []inventory.ChecklistRoom{
		{Name: "Living room", Items: []inventory.ChecklistItem{{Key: "sofa_3_seat", Count: 2}}},
	}}
	inv, err := inventory.FramesBuilder{}.Build(context.Background(),
		inventory.Input{Clips: clips, Frames: frames, Checklist: checklist})
	if err != nil {
		t.Fatal(err)
	}
	if r := inv.Detector; r == nil || r.Status != inventory.DetectorOK || r.FramesAnalyzed != 4 {
		t.Fatalf("report %+v", inv.Detector)
	}
	items := map[string]map[string]inventory.Item{}
	for _, r := range inv.Rooms {
		items[r.Name] = map[string]inventory.Item{}
		for _, it := range r.Items {
			items[r.Name][it.Key] = it
		}
	}
	want := []struct {
		room, key string
		source    inventory.Source
		count     int
	}{
		{"Living room", "sofa_3_seat", inventory.FromChecklist, 2}, // the customer's 2 stand; the detector saw 1
		{"Living room", "tv_medium", inventory.FromDetector, 1},
		{"Bedroom", "bed_unknown", inventory.FromDetector, 1},
		{"Kitchen", "refrigerator", inventory.FromDetector, 1},
	}
	for _, w := range want {
		it, ok := items[w.room][w.key]
		if !ok || it.Source != w.source || it.Count != w.count {
			t.Errorf("%s %s: %+v (present %v); want source %s count %d", w.room, w.key, it, ok, w.source, w.count)
		}
	}
	if sofa := items["Living room"]["sofa_3_seat"]; sofa.Detected != 1 {
		t.Errorf("sofa detected %d; want 1 (one per frame, not summed over the two frames)", sofa.Detected)
	}
	t.Logf("inventory: %+v", inv.Rooms)
}
