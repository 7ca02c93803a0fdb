package inventory

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestCubeSheetIsSortedAndWellFormed(t *testing.T) {
	key := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	tags := map[string]bool{}
	for _, r := range References {
		if r.Tag == "" || r.Publisher == "" || r.Title == "" || !strings.HasPrefix(r.URL, "http") {
			t.Errorf("reference %+v is incomplete", r)
		}
		tags[r.Tag] = true
	}
	names := map[string]bool{}
	for i, e := range sheet {
		if i > 0 && sheet[i-1].Key >= e.Key {
			t.Errorf("sheet[%d] = %q follows %q; want keys sorted and distinct", i, e.Key, sheet[i-1].Key)
		}
		if !key.MatchString(e.Key) {
			t.Errorf("key %q; want lowercase letters, digits and underscores", e.Key)
		}
		if e.Volume <= 0 || e.Name == "" {
			t.Errorf("entry %+v; want a name and a positive volume", e)
		}
		if names[e.Name] {
			t.Errorf("name %q appears twice", e.Name)
		}
		names[e.Name] = true
		for _, tag := range strings.Split(e.Ref, "+") {
			if !tags[tag] {
				t.Errorf("entry %q cites %q, which is not in References", e.Key, tag)
			}
		}
		if strings.Contains(e.Ref, "+") && !strings.HasPrefix(e.Note, "derived:") {
			t.Errorf("entry %q combines sources (%s) without a \"derived:\" note showing the arithmetic", e.Key, e.Ref)
		}
	}
}

// TestCubeSheetValues pins values against their sources, so that a
// transcription slip or an edit without a source fails.
func TestCubeSheetValues(t *testing.T) {
	tests := []struct {
		key       string
		cubicFeet float64
		ref       string
	}{
		{"sofa_3_seat", 41, "MLR"}, {"sofa_4_seat", 50, "MLR"}, {"sofa_sectional", 150, "MLR"},
		{"loveseat", 32, "MLR"}, {"armchair", 15, "MLR"}, {"recliner", 15, "MLR"},
		{"tv_small", 5, "MLR"}, {"tv_medium", 8, "MLR"}, {"tv_large", 20, "MLR"}, {"tv_stand", 25, "MLR"},
		{"bookcase", 20, "MLR"}, {"desk_small", 22, "MLR"}, {"lamp_floor", 3, "MLR"}, {"rug_large", 10, "MLR"},
		{"bed_king", 70, "CEF"}, {"bed_queen", 60, "CEF"}, {"bed_full", 50, "CEF"}, {"bed_twin", 30, "CEF"},
		{"bed_bunk", 60, "CEF"}, {"bed_unknown", 60, "CEF"}, {"chest_of_drawers", 25, "CEF"},
		{"dining_table_small", 36, "MDR"}, {"dining_table_medium", 45, "MDR"}, {"dining_table_large", 55, "MDR"}, {"dining_chair", 10, "MDR"},
		{"refrigerator_small", 35, "MK"}, {"refrigerator", 45, "MK"}, {"refrigerator_large", 60, "MK"}, {"stove", 25, "MK"},
		{"dresser", 35, "GWT"}, {"nightstand", 5, "GWT"}, {"washer", 25, "GWT"}, {"dryer", 25, "GWT"},
		{"buffet_hutch", 30, "DKM"},
		{"box_small", 1.5, "WHM"}, {"box_medium", 3.0, "WHM"}, {"box_large", 4.5, "WHM"},
		{"box_extra_large", 6.0, "WHM"}, {"box_dish_pack", 6.2, "WHM"}, {"box_wardrobe", 15, "WHM"},
		// Derived: the midpoint of Reeder Pianos' weight range at 7 lb per cu ft.
		{"piano_upright", 71, "RP+ARP"}, {"piano_grand", 121, "RP+ARP"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			e, ok := Lookup(tt.key)
			if !ok {
				t.Fatalf("Lookup(%q) found nothing", tt.key)
			}
			if got := e.Volume.CubicFeet(); got != tt.cubicFeet || e.Ref != tt.ref {
				t.Errorf("Lookup(%q) = %v cu ft from %s; want %v from %s", tt.key, got, e.Ref, tt.cubicFeet, tt.ref)
			}
		})
	}
	// The derived pianos, recomputed: midpoint pounds ÷ 7, rounded.
	for key, lb := range map[string]float64{"piano_upright": (300 + 700) / 2, "piano_grand": (500 + 1200) / 2} {
		e, _ := Lookup(key)
		if want := VolumeOf(float64(int(lb/7 + 0.5))); e.Volume != want {
			t.Errorf("%s = %s; want %s (%v lb ÷ 7)", key, e.Volume, want, lb)
		}
	}
}

// TestCubeSheetCoversTheChecklist: the items issue 8 names for the capture
// page's checklist are all on the sheet.
func TestCubeSheetCoversTheChecklist(t *testing.T) {
	for _, key := range []string{
		"sofa_3_seat", "sofa_4_seat", "sofa_sectional", "loveseat", "armchair", "recliner",
		"bed_twin", "bed_full", "bed_queen", "bed_king", "bed_unknown",
		"dresser", "chest_of_drawers", "nightstand", "dining_table_medium", "dining_chair", "buffet_hutch",
		"desk_small", "bookcase", "tv_medium", "tv_stand", "refrigerator", "washer", "dryer",
		"piano_upright", "piano_grand", "box_small", "box_medium", "box_large", "box_extra_large",
		"box_wardrobe", "lamp_floor", "rug_small",
	} {
		if _, ok := Lookup(key); !ok {
			t.Errorf("Lookup(%q) found nothing; the checklist needs it", key)
		}
	}
}

func TestLookupMisses(t *testing.T) {
	for _, key := range []string{"", "sofa", "Sofa_3_seat", "zzz", "aaa", "washer "} {
		if e, ok := Lookup(key); ok {
			t.Errorf("Lookup(%q) = %+v; want nothing", key, e)
		}
	}
}

func TestEntriesIsACopy(t *testing.T) {
	got := Entries()
	if !slices.Equal(got, sheet) {
		t.Fatalf("Entries() differs from the sheet")
	}
	got[0].Volume = 1
	if e, _ := Lookup(got[0].Key); e.Volume == 1 {
		t.Errorf("changing Entries()'s result changed the sheet")
	}
}

func TestVolume(t *testing.T) {
	tests := []struct {
		cubicFeet float64
		want      Volume
		str       string
	}{
		{41, 410, "41 cu ft"}, {1.5, 15, "1.5 cu ft"}, {6.2, 62, "6.2 cu ft"}, {0, 0, "0 cu ft"},
		{0.04, 0, "0 cu ft"}, {0.05, 1, "0.1 cu ft"}, {1234.56, 12346, "1234.6 cu ft"},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			got := VolumeOf(tt.cubicFeet)
			if got != tt.want || got.String() != tt.str {
				t.Errorf("VolumeOf(%v) = %d (%s); want %d (%s)", tt.cubicFeet, got, got, tt.want, tt.str)
			}
		})
	}
}
