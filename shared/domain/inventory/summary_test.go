package inventory

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSummary(t *testing.T) {
	inv := Inventory{Rooms: []Room{
		{Name: "Living room", Items: []Item{
			{Key: "sofa_3_seat", Count: 2, CubicFeet: 35, Source: FromChecklist},
			{Key: "tv_medium", Count: 1, CubicFeet: 10, Source: FromDetector, Detected: 1},
		}},
		{Name: "Kitchen", Items: []Item{{Key: "box_small", Count: 3, CubicFeet: 1.5, Source: FromChecklist}}},
	}, Detector: &DetectorReport{Name: "rekognition", Status: DetectorOK, FramesAnalyzed: 4}}
	got := inv.Summary()
	want := Summary{
		ItemCount: 6, TotalCubicFeet: 84.5,
		ItemsBySource: map[Source]int{FromChecklist: 5, FromDetector: 1},
		Rooms:         []RoomSummary{{"Living room", 3, 80}, {"Kitchen", 3, 4.5}},
		Detector:      inv.Detector,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summary() = %+v; want %+v", got, want)
	}
	empty := Inventory{}.Summary()
	if empty.ItemCount != 0 || empty.Rooms == nil || empty.ItemsBySource[FromDetector] != 0 || len(empty.ItemsBySource) != 2 {
		t.Errorf("empty summary %+v; want zero counts, an empty room list and both sources", empty)
	}
}

func TestDetail(t *testing.T) {
	sofa := Item{Key: "sofa_3_seat", Name: "Sofa, 3 seats", Count: 2, CubicFeet: 35, Source: FromChecklist, Detected: 1}
	tv := Item{Key: "tv_medium", Name: "TV, medium", Count: 1, CubicFeet: 10, Source: FromDetector, Detected: 1}
	boxes := Item{Key: "box_small", Name: "Box, small", Count: 3, CubicFeet: 1.5, Source: FromChecklist}
	report := &DetectorReport{Name: "rekognition", Status: DetectorPartial, FramesAnalyzed: 3, FramesFailed: 1, Error: "throttled"}
	tests := []struct {
		name string
		inv  Inventory
		want Detail
	}{
		{
			name: "rooms with checklist and detected items",
			inv: Inventory{Rooms: []Room{
				{Name: "Living room", Items: []Item{sofa, tv}},
				{Name: "Kitchen", Items: []Item{boxes}},
			}, Detector: report},
			want: Detail{
				ItemCount: 6, TotalCubicFeet: 84.5,
				ItemsBySource: map[Source]int{FromChecklist: 5, FromDetector: 1},
				Rooms: []RoomDetail{
					{RoomSummary{"Living room", 3, 80}, []Item{sofa, tv}},
					{RoomSummary{"Kitchen", 3, 4.5}, []Item{boxes}},
				},
				Detector: report,
			},
		},
		{
			name: "nothing filmed: no detector",
			inv:  Inventory{Rooms: []Room{{Name: "Kitchen", Items: []Item{boxes}}}},
			want: Detail{
				ItemCount: 3, TotalCubicFeet: 4.5,
				ItemsBySource: map[Source]int{FromChecklist: 3, FromDetector: 0},
				Rooms:         []RoomDetail{{RoomSummary{"Kitchen", 3, 4.5}, []Item{boxes}}},
			},
		},
		{
			name: "a room without items",
			inv:  Inventory{Rooms: []Room{{Name: "Hall"}}},
			want: Detail{
				ItemsBySource: map[Source]int{FromChecklist: 0, FromDetector: 0},
				Rooms:         []RoomDetail{{RoomSummary{Name: "Hall"}, []Item{}}},
			},
		},
		{
			name: "empty",
			inv:  Inventory{},
			want: Detail{ItemsBySource: map[Source]int{FromChecklist: 0, FromDetector: 0}, Rooms: []RoomDetail{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.inv.Detail()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Detail() = %+v; want %+v", got, tt.want)
			}
			s := tt.inv.Summary()
			if got.ItemCount != s.ItemCount || got.TotalCubicFeet != s.TotalCubicFeet || len(got.Rooms) != len(s.Rooms) {
				t.Errorf("Detail() totals (%d items, %v cu ft, %d rooms) differ from Summary() (%d, %v, %d)",
					got.ItemCount, got.TotalCubicFeet, len(got.Rooms), s.ItemCount, s.TotalCubicFeet, len(s.Rooms))
			}
		})
	}
}

// TestDetailJSON: the shape getLead shows. Rooms carry their items,
// detected is left out when 0, a missing detector is null and a room's
// items are a list, never null.
func TestDetailJSON(t *testing.T) {
	inv := Inventory{Rooms: []Room{
		{Name: "Living room", Items: []Item{{Key: "sofa_3_seat", Name: "Sofa, 3 seats", Count: 2, CubicFeet: 35, Source: FromChecklist}}},
		{Name: "Hall"},
	}}
	b, err := json.Marshal(inv.Detail())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"item_count":2,"total_cubic_feet":70,"items_by_source":{"checklist":2,"detected":0},` +
		`"rooms":[{"name":"Living room","item_count":2,"total_cubic_feet":70,"items":[{"key":"sofa_3_seat","name":"Sofa, 3 seats","count":2,"cubic_feet":35,"source":"checklist"}]},` +
		`{"name":"Hall","item_count":0,"total_cubic_feet":0,"items":[]}],"detector":null}`
	if string(b) != want {
		t.Errorf("json = %s; want %s", b, want)
	}
}
