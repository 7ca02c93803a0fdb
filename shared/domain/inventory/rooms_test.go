package inventory_test

import (
	"slices"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// TestRoomItems: every room the capture page offers has likely items, at
// most MaxRoomItems, each a cube sheet row, none twice; no other room has.
func TestRoomItems(t *testing.T) {
	all := inventory.RoomItems()
	for _, room := range survey.Rooms {
		keys := all[room]
		if len(keys) == 0 || len(keys) > inventory.MaxRoomItems {
			t.Errorf("%s: %d items; want 1 to %d", room, len(keys), inventory.MaxRoomItems)
		}
		for i, k := range keys {
			if _, ok := inventory.Lookup(k); !ok {
				t.Errorf("%s: %q is not on the cube sheet", room, k)
			}
			if slices.Index(keys, k) != i {
				t.Errorf("%s: %q twice", room, k)
			}
		}
		delete(all, room)
	}
	for room := range all {
		t.Errorf("%q is not one of survey.Rooms", room)
	}
	inventory.RoomItems()["Kitchen"][0] = "changed"
	if inventory.RoomItems()["Kitchen"][0] == "changed" {
		t.Error("RoomItems returns the table itself; want a copy")
	}
}
