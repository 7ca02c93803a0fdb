// Package inventory turns what a video survey gathered into an inventory of
// the home (items by room, with counts and volumes) and prices the move
// from it: the recommended estimate. It does no I/O and imports no AWS or
// HTTP package.
//
// # Building an inventory
//
// The pipeline depends on the Builder interface only: it hands a Builder
// the survey's clips, frames and checklist (Input) and stores the Inventory
// it returns. ChecklistBuilder, the Builder of issue 8, returns exactly the
// customer's checklist, which ParseChecklist reads strictly from the capture
// page's JSON: known item keys only, counts 0 to 99, rooms from
// survey.Rooms or free text of at most 60 characters. No item is invented.
// A detector that finds items in the frames later plugs in as another
// Builder.
//
// # The cube sheet
//
// Each item's volume comes from the cube sheet embedded in this package
// (cubesheet.go; Entries, Lookup, References). Its source, for
// docs/INVENTORY.md:
//
// The cube sheet gives the space one household item takes in a moving
// truck, in cubic feet. Its primary source is Movers.com's room-by-room
// moving guides (living room, kitchen, dining room set, sofa), which print
// each item's volume beside its weight at the industry's 7 lb per cubic
// foot. Beds and the chest of drawers come from the "Cubic Estimation Form
// – 68 Cubic Feet = 1 Linear Foot" (docstoc document 74593617), the dresser,
// nightstand, washer and dryer from Guy with a Truck's "Estimating Cubic
// Feet" (2025), the buffet from dontknowmoving.com's "Estimating Size", and
// the cartons (small 1.5, medium 3.0, large 4.5, extra large 6.0, dish pack
// 6.2, wardrobe 15 cu ft) from Woodland Hills Movers' "Determining the size
// of the shipment of household goods". No source we found prints a volume
// for pianos; theirs is derived from the weights Reeder Pianos gives
// (uprights 300–700 lb, grands 500–1,200 lb) at Arpin's 7 lb per cubic foot,
// from the midpoint of each range: 71 and 121 cu ft. Where sources
// disagree, one value is chosen and the row's note says which and why: a
// three-seat sofa is 41 cu ft (Movers.com's living-room table, which prints
// 50 for four seats) though Movers.com's sofa page prints 50; an armchair is
// 15 (Movers.com) though the Cubic Estimation Form prints 10; a washer or
// dryer is 25, the low end of the 25–30 Guy with a Truck prints; a wardrobe
// carton is 15, as Woodland Hills Movers prints, not the 10 some sheets use.
// A bed of unknown size counts as a queen (60). References lists every
// source with its URL.
//
// # The recommended estimate
//
// Recommend prices the inventory's volume under the partner's rate card
// (the estimate.RateCard of the instant estimate), from the lead's two
// addresses:
//
//	mover-minutes = ceil(cu ft × 64 / 100) fast, ceil(cu ft × 112 / 100) slow
//	crew          = rc.Crew, plus a mover at a time (at most 2) while the
//	                slow end would take the crew more than 8 hours
//	clock minutes = ceil(mover-minutes / crew)
//	labor         = rc.HourlyCents × crew × clock minutes / 60
//	travel        = whole road miles × rc.TravelCentsPerMile (as the instant estimate)
//	amount        = max(rc.MinimumCents, labor + travel) in major units, rounded half up
//
// The two rates are calibrated so that the two estimates agree on a typical
// home: dontknowmoving.com's "a typical two-bedroom apartment will take up
// about 750 cubic feet", and the instant estimate prices two bedrooms at
// 4–7 hours for a crew of 2, i.e. 480–840 mover-minutes, so 64 and 112
// mover-minutes per 100 cu ft; 750 cu ft is priced exactly like "2 bedroom"
// ($520–$910 on the default card without ZIPs). As a check, the fast rate is
// slower than the best case movers publish (Unimovers and Easy Days: two
// movers load a full 26 ft truck, 26 × 68 ≈ 1,770 cu ft by the Cubic
// Estimation Form's rule, in 270 minutes and unload it in 75% of that: ≈ 53
// mover-minutes per 100 cu ft, with no stairs, long carries or
// disassembly). The 8-hour crew rule reproduces the instant estimate's
// extra mover for three bedrooms: 1,000 cu ft, a small three-bedroom house
// by stepbystep.com's estimator, gets a crew of 3.
//
// Worked example, default rate card (usd: $65 per mover-hour, crew 2, $2.50
// a mile, $350 minimum), a light two-bedroom home of 479 cu ft moving from
// New York 10001 to 10002 (3 road miles):
//
//	mover-minutes   ceil(479 × 0.64) = 307     ceil(479 × 1.12) = 537
//	crew            2 (537 / 2 = 269 minutes ≤ 8 hours)
//	clock minutes   154                        269
//	labor (¢)       6500 × 2 × 154 / 60 = 33,367   6500 × 2 × 269 / 60 = 58,283
//	+ travel (¢)    3 × 250 = 750              750
//	= (¢)           34,117 → minimum 35,000     59,033
//	estimate        $350 – $590
package inventory
