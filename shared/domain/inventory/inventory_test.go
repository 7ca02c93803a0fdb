package inventory

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// The Builder of issue 8 must be usable where the pipeline expects one.
var _ Builder = ChecklistBuilder{}

// checkBuiltFromChecklist fails t unless inv holds exactly the items of c
// with a count above 0, room by room in c's order, with the cube sheet's
// names and volumes and Source FromChecklist: nothing invented, nothing
// lost.
func checkBuiltFromChecklist(t *testing.T, c Checklist, inv Inventory) {
	t.Helper()
	var want []Room
	var volume Volume
	for _, r := range c.Rooms {
		room := Room{Name: r.Name}
		for _, it := range r.Items {
			if it.Count == 0 {
				continue
			}
			e, _ := Lookup(it.Key)
			room.Items = append(room.Items, Item{Key: it.Key, Name: e.Name, Count: it.Count, CubicFeet: e.Volume.CubicFeet(), Source: FromChecklist})
			volume += e.Volume * Volume(it.Count)
		}
		if len(room.Items) > 0 {
			want = append(want, room)
		}
	}
	if len(want) == 0 && len(inv.Rooms) == 0 {
		return
	}
	if !reflect.DeepEqual(inv.Rooms, want) {
		t.Errorf("Build(%+v) = %+v; want exactly the ticked items %+v", c, inv.Rooms, want)
	}
	if got := inv.Volume(); got != volume {
		t.Errorf("Build(%+v).Volume() = %s; want %s", c, got, volume)
	}
}

func TestChecklistBuilder(t *testing.T) {
	body, err := os.ReadFile("testdata/good-two-bedroom.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseChecklist(body)
	if err != nil {
		t.Fatalf("ParseChecklist error %v", err)
	}
	in := Input{
		Checklist: c,
		// Clips and frames are ignored: nothing is detected, so nothing
		// they show may appear in the inventory.
		Clips:  []survey.Clip{{ID: "c1", Room: "Garage", Status: survey.ClipPlayable}},
		Frames: []Frame{{ClipID: "c1", Analysis: Analysis{Detector: "centernet-coco", Detections: []Detection{{Label: "couch", Confidence: 1}}}}},
	}
	inv, err := ChecklistBuilder{}.Build(context.Background(), in)
	if err != nil {
		t.Fatalf("Build error %v", err)
	}
	checkBuiltFromChecklist(t, c, inv)
	// 41+15+10+25+8+2×20 + 60+35+2×5 + 30+25 + 25+4×10+4 + 20×3+10×1.5+8×4.5
	if got, want := inv.TotalCubicFeet(), 479.0; got != want {
		t.Errorf("TotalCubicFeet() = %v; want %v", got, want)
	}
	if n := len(inv.Rooms); n != 5 {
		t.Errorf("%d rooms; want 5", n)
	}
}

func TestChecklistBuilderDropsUnticked(t *testing.T) {
	c := Checklist{Rooms: []ChecklistRoom{
		{Name: "Garage", Items: []ChecklistItem{{"washer", 0}, {"dryer", 0}}},
		{Name: "Patio", Items: []ChecklistItem{}},
		{Name: "Office", Items: []ChecklistItem{{"desk_small", 0}, {"desk_large", 1}}},
	}}
	inv, err := ChecklistBuilder{}.Build(context.Background(), Input{Checklist: c})
	if err != nil {
		t.Fatalf("Build error %v", err)
	}
	want := []Room{{Name: "Office", Items: []Item{{Key: "desk_large", Name: "Desk, large", Count: 1, CubicFeet: 35, Source: FromChecklist}}}}
	if !reflect.DeepEqual(inv.Rooms, want) {
		t.Errorf("Build = %+v; want %+v", inv.Rooms, want)
	}
	empty, err := ChecklistBuilder{}.Build(context.Background(), Input{})
	if err != nil || empty.Rooms == nil || len(empty.Rooms) != 0 || empty.Volume() != 0 {
		t.Errorf("Build(no checklist) = %+v, %v; want an empty inventory (rooms [], not null)", empty, err)
	}
}

func TestChecklistBuilderRefuses(t *testing.T) {
	tests := []struct {
		name string
		c    Checklist
	}{
		{"unknown key", Checklist{Rooms: []ChecklistRoom{{Name: "Kitchen", Items: []ChecklistItem{{"hot_tub", 1}}}}}},
		{"negative count", Checklist{Rooms: []ChecklistRoom{{Name: "Kitchen", Items: []ChecklistItem{{"stove", -1}}}}}},
		{"count too large", Checklist{Rooms: []ChecklistRoom{{Name: "Kitchen", Items: []ChecklistItem{{"stove", MaxCount + 1}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if inv, err := (ChecklistBuilder{}).Build(context.Background(), Input{Checklist: tt.c}); err == nil {
				t.Errorf("Build(%+v) = %+v; want an error", tt.c, inv)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (ChecklistBuilder{}).Build(ctx, Input{}); err == nil {
		t.Errorf("Build(cancelled context) error nil; want the context's error")
	}
}

func TestItemVolume(t *testing.T) {
	tests := []struct {
		name string
		item Item
		want Volume
	}{
		{"boxes", Item{CubicFeet: 1.5, Count: 10}, 150},
		{"one sofa", Item{CubicFeet: 41, Count: 1}, 410},
		{"none", Item{CubicFeet: 41, Count: 0}, 0},
		{"detected, off the tenth", Item{CubicFeet: 2.26, Count: 3}, 69},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.item.Volume(); got != tt.want {
				t.Errorf("%+v.Volume() = %d; want %d", tt.item, got, tt.want)
			}
		})
	}
}
