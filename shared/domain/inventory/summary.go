package inventory

// Summary is an inventory in brief, as the survey.completed webhook
// carries it and getLead shows it beside the rooms: how many items, how
// much space, where they came from, and what the detector did.
type Summary struct {
	// ItemCount is the number of items (the sum of every item's Count).
	ItemCount int `json:"item_count"`
	// TotalCubicFeet is the space they take.
	TotalCubicFeet float64 `json:"total_cubic_feet"`
	// ItemsBySource splits ItemCount by Source: what the customer
	// ticked (checklist) and what only the detector found (detected).
	ItemsBySource map[Source]int `json:"items_by_source"`
	// Rooms are the rooms in the inventory's order, each with its count
	// and space.
	Rooms []RoomSummary `json:"rooms"`
	// Detector is the detector's report; nil when nothing was filmed.
	Detector *DetectorReport `json:"detector"`
}

// RoomSummary is one room of a Summary.
type RoomSummary struct {
	Name           string  `json:"name"`
	ItemCount      int     `json:"item_count"`
	TotalCubicFeet float64 `json:"total_cubic_feet"`
}

// Summary returns inv in brief. Volumes are added as Volume (tenths of a
// cubic foot), so the rooms' totals add up to the inventory's.
func (inv Inventory) Summary() Summary {
	s := Summary{
		TotalCubicFeet: inv.TotalCubicFeet(),
		ItemsBySource:  map[Source]int{FromChecklist: 0, FromDetector: 0},
		Rooms:          make([]RoomSummary, 0, len(inv.Rooms)),
		Detector:       inv.Detector,
	}
	for _, r := range inv.Rooms {
		rs := RoomSummary{Name: r.Name}
		var v Volume
		for _, it := range r.Items {
			rs.ItemCount += it.Count
			s.ItemsBySource[it.Source] += it.Count
			v += it.Volume()
		}
		rs.TotalCubicFeet = v.CubicFeet()
		s.ItemCount += rs.ItemCount
		s.Rooms = append(s.Rooms, rs)
	}
	return s
}

// Detail is an inventory in full, as getLead shows it: Summary's fields,
// with each room carrying its items.
type Detail struct {
	// ItemCount, TotalCubicFeet, ItemsBySource and Detector are Summary's.
	ItemCount      int             `json:"item_count"`
	TotalCubicFeet float64         `json:"total_cubic_feet"`
	ItemsBySource  map[Source]int  `json:"items_by_source"`
	Rooms          []RoomDetail    `json:"rooms"`
	Detector       *DetectorReport `json:"detector"`
}

// RoomDetail is one room of a Detail: its RoomSummary and its items, in
// the inventory's order.
type RoomDetail struct {
	RoomSummary
	Items []Item `json:"items"`
}

// Detail returns inv in full. Its counts and volumes are Summary's; a
// room's items are a copy of inv's (an empty list, never nil).
func (inv Inventory) Detail() Detail {
	s := inv.Summary()
	d := Detail{
		ItemCount: s.ItemCount, TotalCubicFeet: s.TotalCubicFeet, ItemsBySource: s.ItemsBySource,
		Rooms: make([]RoomDetail, len(s.Rooms)), Detector: s.Detector,
	}
	for i, rs := range s.Rooms {
		d.Rooms[i] = RoomDetail{RoomSummary: rs, Items: append([]Item{}, inv.Rooms[i].Items...)}
	}
	return d
}
