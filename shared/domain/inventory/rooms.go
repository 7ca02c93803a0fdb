package inventory

// MaxRoomItems is the most items RoomItems offers first in one room: about
// one phone screen of counters.
const MaxRoomItems = 8

// roomItems are, for each of survey.Rooms, the rule written out: the cube
// sheet rows a home most often has in that room, commonest first (for the
// living room, dining room and kitchen, from Movers.com's table of that
// room), cut at MaxRoomItems. A room with fewer typical rows lists fewer.
var roomItems = map[string][]string{
	"Living room":  {"sofa_3_seat", "loveseat", "armchair", "coffee_table_small", "end_table", "tv_stand", "tv_medium", "bookcase"},
	"Dining room":  {"dining_table_medium", "dining_chair", "buffet_hutch", "curio_cabinet", "dining_table_small", "dining_table_large", "rug_large"},
	"Kitchen":      {"refrigerator", "stove", "dishwasher", "microwave", "kitchen_table", "kitchen_chair", "kitchen_table_small", "box_dish_pack"},
	"Bedroom":      {"bed_queen", "bed_full", "bed_king", "bed_twin", "dresser", "nightstand", "chest_of_drawers", "tv_small"},
	"Office":       {"desk_large", "desk_small", "bookcase", "armchair", "lamp_floor", "box_medium"},
	"Bathroom":     {"mirror_large", "rug_small", "box_small"},
	"Hallway":      {"mirror_large", "rug_small", "bookcase", "clock_grandfather"},
	"Laundry room": {"washer", "dryer", "box_medium"},
	"Garage":       {"box_large", "box_medium", "box_extra_large", "refrigerator_small"},
	"Basement":     {"box_large", "box_medium", "sofa_3_seat", "refrigerator_small", "washer", "dryer"},
	"Attic":        {"box_medium", "box_large", "box_wardrobe", "rug_large"},
	"Patio":        {"dining_table_small", "dining_chair", "end_table"},
	"Storage":      {"box_medium", "box_large", "box_extra_large", "box_wardrobe", "box_small"},
}

// RoomItems returns, for each room of survey.Rooms, the cube sheet keys the
// capture page offers first in it (at most MaxRoomItems, commonest first);
// the customer reaches every other row with "Show more items". A room named
// in free text has none. The map is a copy.
func RoomItems() map[string][]string {
	out := make(map[string][]string, len(roomItems))
	for room, keys := range roomItems {
		out[room] = append([]string(nil), keys...)
	}
	return out
}
