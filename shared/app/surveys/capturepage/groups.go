package capturepage

// The checklist shows the cube sheet in groups a person recognises, the
// items of each group smallest first. The grouping is presentation only:
// the page sends cube sheet keys, and a key this table does not know (a
// row added to the cube sheet later) still appears, under "Other items".

// group is one collapsible section of the checklist.
type group struct {
	ID    string
	Title string
	Items []Item
}

// groupDef names a group, its keys in display order, and the rooms in which
// the page opens it by itself.
type groupDef struct {
	id, title string
	keys      []string
	rooms     []string
}

var groupDefs = []groupDef{
	{"seating", "Sofas and chairs",
		[]string{"sofa_3_seat", "sofa_4_seat", "sofa_sectional", "loveseat", "futon", "armchair", "recliner", "ottoman"},
		[]string{"Living room", "Office", "Basement"}},
	{"beds", "Beds",
		[]string{"bed_twin", "bed_full", "bed_queen", "bed_king", "bed_bunk", "bed_unknown"},
		[]string{"Bedroom"}},
	{"storage", "Dressers, shelves and cabinets",
		[]string{"dresser", "chest_of_drawers", "nightstand", "bookcase", "tv_stand", "entertainment_center_small", "entertainment_center_large", "buffet_hutch", "curio_cabinet"},
		[]string{"Bedroom", "Living room", "Dining room"}},
	{"tables", "Tables, desks and chairs",
		[]string{"coffee_table_small", "coffee_table_large", "end_table", "dining_table_small", "dining_table_medium", "dining_table_large", "dining_chair", "kitchen_table_small", "kitchen_table", "kitchen_chair", "desk_small", "desk_large"},
		[]string{"Dining room", "Kitchen", "Office"}},
	{"appliances", "Kitchen and laundry appliances",
		[]string{"refrigerator_small", "refrigerator", "refrigerator_large", "stove", "dishwasher", "microwave", "washer", "dryer"},
		[]string{"Kitchen", "Laundry room", "Garage", "Basement"}},
	{"electronics", "TVs and lamps",
		[]string{"tv_small", "tv_medium", "tv_large", "lamp_table", "lamp_floor"},
		[]string{"Living room"}},
	{"special", "Pianos, clocks, mirrors and rugs",
		[]string{"piano_upright", "piano_grand", "clock_grandfather", "mirror_large", "rug_small", "rug_large"},
		nil},
	{"boxes", "Packed boxes",
		[]string{"box_small", "box_medium", "box_large", "box_extra_large", "box_dish_pack", "box_wardrobe"},
		[]string{"Garage", "Basement", "Attic", "Storage"}},
}

// otherGroup holds the items no group lists.
const otherGroup = "other"

// groupItems arranges items into the groups of groupDefs, in their order,
// leaving out empty groups, and puts items no group lists last under
// "Other items" in the order given.
func groupItems(items []Item) []group {
	byKey := make(map[string]Item, len(items))
	for _, it := range items {
		byKey[it.Key] = it
	}
	placed := map[string]bool{}
	var out []group
	for _, d := range groupDefs {
		g := group{ID: d.id, Title: d.title}
		for _, k := range d.keys {
			if it, ok := byKey[k]; ok && !placed[k] {
				g.Items = append(g.Items, it)
				placed[k] = true
			}
		}
		if len(g.Items) > 0 {
			out = append(out, g)
		}
	}
	other := group{ID: otherGroup, Title: "Other items"}
	for _, it := range items {
		if !placed[it.Key] {
			other.Items = append(other.Items, it)
			placed[it.Key] = true
		}
	}
	if len(other.Items) > 0 {
		out = append(out, other)
	}
	return out
}

// groupRooms maps each group id to the rooms in which the page opens it.
func groupRooms() map[string][]string {
	m := make(map[string][]string, len(groupDefs))
	for _, d := range groupDefs {
		if len(d.rooms) > 0 {
			m[d.id] = d.rooms
		}
	}
	return m
}
