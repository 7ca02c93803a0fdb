package inventory

// The cube sheet: cubic feet per household item, as published by the
// sources in References. Every number is its source's, copied as printed,
// except the two rows whose note says "derived" and shows the arithmetic.
// Where sources disagree, the row's note names the other value and why this
// one was chosen.
//
// Movers.com's room tables (MLR, MDR, MK) are the primary source: one
// publisher, each item's weight printed beside its volume at the
// industry's 7 lb per cubic foot. They have no beds, dressers, laundry,
// pianos or cartons; those come from the other references, one per row.
//
// Volumes are in tenths of a cubic foot (see Volume), so 1.5 is 15. Keys
// are stable API values (the capture page's checklist sends them); sheet is
// sorted by key, which a test checks, so that Lookup can binary-search it.

// Reference is a publication the cube sheet cites.
type Reference struct {
	Tag       string // as in Entry.Ref
	Publisher string
	Title     string
	URL       string
}

// References are the publications cited by the cube sheet's rows.
var References = []Reference{
	{"MLR", "Movers.com", "How to Estimate the Weight of a Living Room When Moving", "https://www.movers.com/moving-guides/how-much-does-a-living-room-weigh.html"},
	{"MS", "Movers.com", "How Much Does a Sofa Weigh?", "https://www.movers.com/moving-guides/how-much-does-a-sofa-weigh.html"},
	{"MDR", "Movers.com", "How Much Does A Dining Room Set Weigh? (Nicole La Capria, updated 2013-04-09)", "https://movers.com/moving-guides/how-much-does-a-dining-room-set-weigh.html"},
	{"MK", "Movers.com", "How to Estimate the Weight of a Kitchen When Moving", "https://www.movers.com/moving-guides/how-much-does-a-kitchen-weigh.html"},
	{"CEF", "docstoc (document 74593617, publisher not named)", "Cubic Estimation Form – 68 Cubic Feet = 1 Linear Foot (Determining Space Needs and Making Calculations, page 1 of 3)", "http://www.docstoc.com/docs/74593617/Cubic-Estimation-Form---68-Cubic-Feet-=-1-Linear-Foot-Page-1-of-3-"},
	{"GWT", "Guy with a Truck", "Estimating Cubic Feet (2025-07-05)", "https://www.truck-guy.com/the-glove-box/2575521_estimating-cubic-feet"},
	{"DKM", "dontknowmoving.com", "Estimating Size", "http://dontknowmoving.com/planning-a-move/estimate-moving-costs/estimating-size/"},
	{"WHM", "Woodland Hills Movers", "Determining the size of the shipment of household goods", "https://woodlandhills-movers.com/shipment-size.html"},
	{"RP", "Reeder Pianos", "Piano Moving Fact: Pianos Are Heavy!", "https://www.reederpianos.com/blog/pianos-are-heavy-piano-moving/"},
	{"ARP", "Arpin RI", "Cube Sheet (glossary): 7 pounds per cubic foot", "https://arpinri.com/glossary/what-is-a-cube-sheet-on-an-interstate-move/"},
}

var sheet = []Entry{
	{"armchair", "Armchair", 150, "MLR", "CEF prints 10 for \"Chair, Arm\"; MLR kept for one publisher across the living room"},
	{"bed_bunk", "Bunk beds (set of two)", 600, "CEF", ""},
	{"bed_full", "Bed, full (double)", 500, "CEF", "\"Bed, Double\""},
	{"bed_king", "Bed, king", 700, "CEF", ""},
	{"bed_queen", "Bed, queen", 600, "CEF", ""},
	{"bed_twin", "Bed, twin", 300, "CEF", ""},
	{"bed_unknown", "Bed, size unknown", 600, "CEF", "counted as a queen (CEF's \"Bed, Queen\"), the middle of CEF's double-to-king range of 50–70"},
	{"bookcase", "Bookcase (per section)", 200, "MLR", ""},
	{"box_dish_pack", "Box, dish pack", 62, "WHM", ""},
	{"box_extra_large", "Box, extra large (6.0 cu ft)", 60, "WHM", ""},
	{"box_large", "Box, large (4.5 cu ft)", 45, "WHM", ""},
	{"box_medium", "Box, medium (3.0 cu ft)", 30, "WHM", ""},
	{"box_small", "Box, small (1.5 cu ft)", 15, "WHM", ""},
	{"box_wardrobe", "Box, wardrobe", 150, "WHM", "\"Wardrobe large box: 15 cubic feet\"; smaller wardrobe cartons exist, but no source found for their volume"},
	{"buffet_hutch", "Buffet or hutch", 300, "DKM", "\"Couches and buffets are about 30 cubic feet\""},
	{"chest_of_drawers", "Chest of drawers", 250, "CEF", ""},
	{"clock_grandfather", "Grandfather clock", 200, "MLR", ""},
	{"coffee_table_large", "Coffee table, large", 150, "MLR", ""},
	{"coffee_table_small", "Coffee table, small", 100, "MLR", ""},
	{"curio_cabinet", "Curio cabinet", 100, "MLR", ""},
	{"desk_large", "Desk, large", 350, "MLR", ""},
	{"desk_small", "Desk, small", 220, "MLR", ""},
	{"dining_chair", "Dining chair", 100, "MDR", ""},
	{"dining_table_large", "Dining table, large", 550, "MDR", ""},
	{"dining_table_medium", "Dining table, medium", 450, "MDR", ""},
	{"dining_table_small", "Dining table, small", 360, "MDR", ""},
	{"dishwasher", "Dishwasher", 200, "MK", ""},
	{"dresser", "Dresser", 350, "GWT", "\"Large Dresser – 35 cu ft\""},
	{"dryer", "Clothes dryer", 250, "GWT", "GWT prints 25–30, the low end is taken; DKM says about 20"},
	{"end_table", "End table", 150, "MLR", ""},
	{"entertainment_center_large", "Entertainment center, large", 600, "MLR", ""},
	{"entertainment_center_small", "Entertainment center, small", 300, "MLR", ""},
	{"futon", "Futon", 300, "MLR", ""},
	{"kitchen_chair", "Kitchen chair", 100, "MK", ""},
	{"kitchen_table", "Kitchen table, medium", 400, "MK", ""},
	{"kitchen_table_small", "Kitchen table, small", 250, "MK", ""},
	{"lamp_floor", "Floor lamp", 30, "MLR", ""},
	{"lamp_table", "Table lamp", 20, "MLR", ""},
	{"loveseat", "Loveseat", 320, "MLR", "MS prints the same 32"},
	{"microwave", "Microwave", 40, "MK", ""},
	{"mirror_large", "Mirror, large", 70, "MLR", ""},
	{"nightstand", "Nightstand", 50, "GWT", ""},
	{"ottoman", "Ottoman", 50, "MLR", ""},
	{"piano_grand", "Piano, grand", 1210, "RP+ARP", "derived: RP gives grands 500–1,200 lb; the midpoint 850 lb ÷ ARP's 7 lb per cu ft = 121.4, rounded to whole cu ft"},
	{"piano_upright", "Piano, upright", 710, "RP+ARP", "derived: RP gives uprights 300–700 lb; the midpoint 500 lb ÷ ARP's 7 lb per cu ft = 71.4, rounded to whole cu ft"},
	{"recliner", "Recliner", 150, "MLR", ""},
	{"refrigerator", "Refrigerator, standard", 450, "MK", "\"Fridge/Freezer (standard)\"; GWT prints 60, MK's large size"},
	{"refrigerator_large", "Refrigerator, large", 600, "MK", ""},
	{"refrigerator_small", "Refrigerator, small", 350, "MK", ""},
	{"rug_large", "Rug, large", 100, "MLR", ""},
	{"rug_small", "Rug, small", 50, "MLR", ""},
	{"sofa_3_seat", "Sofa, 3 seats", 410, "MLR", "MS prints 50 for a three-seater; MLR's 41 is kept because MLR prints 50 for four seats, so its sizes are consistent"},
	{"sofa_4_seat", "Sofa, 4 seats", 500, "MLR", ""},
	{"sofa_sectional", "Sectional sofa (4 pieces)", 1500, "MLR", "MS prints the same 150"},
	{"stove", "Stove", 250, "MK", ""},
	{"tv_large", "TV, large flat screen", 200, "MLR", ""},
	{"tv_medium", "TV, medium flat screen", 80, "MLR", ""},
	{"tv_small", "TV, small flat screen", 50, "MLR", ""},
	{"tv_stand", "TV stand", 250, "MLR", ""},
	{"washer", "Washing machine", 250, "GWT", "GWT prints 25–30, the low end is taken; DKM says about 20"},
}
