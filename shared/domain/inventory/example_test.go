package inventory_test

import (
	"context"
	"fmt"
	"os"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

// The worked example of the package documentation: the checklist of
// testdata/good-two-bedroom.json, priced on the default rate card.
func ExampleRecommend() {
	body, _ := os.ReadFile("testdata/good-two-bedroom.json")
	checklist, err := inventory.ParseChecklist(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	inv, _ := inventory.ChecklistBuilder{}.Build(context.Background(), inventory.Input{Checklist: checklist})
	r, _ := inventory.Recommend(estimate.DefaultRateCard("usd"), inv,
		"350 W 31st St, New York, NY 10001", "100 Delancey St, New York, NY 10002")
	fmt.Printf("%s, crew %d, %d–%d minutes, %d miles: %d–%d %s\n",
		r.Volume, r.Crew, r.ClockMinutes[0], r.ClockMinutes[1], r.Miles, r.Estimate.Min, r.Estimate.Max, r.Estimate.Currency)
	// Output: 479 cu ft, crew 2, 154–269 minutes, 3 miles: 350–590 usd
}

func ExampleParseChecklist() {
	_, err := inventory.ParseChecklist([]byte(`{"rooms":[{"name":"Kitchen","items":[{"key":"jacuzzi","count":1}]}]}`))
	fmt.Println(err)
	// Output: validation_failed: The request has 1 invalid field(s); see details.fields.
}

func ExampleLookup() {
	e, _ := inventory.Lookup("box_medium")
	fmt.Printf("%s: %s (%s)\n", e.Name, e.Volume, e.Ref)
	// Output: Box, medium (3.0 cu ft): 3 cu ft (WHM)
}

// The worked example of docs/ESTIMATE.md ("Two estimates for one lead"): the
// README walkthrough's lead, 2 bedrooms from New York 10001 to Boston 02108,
// priced instantly from its home size and, after the survey, from a light
// counted inventory of 184 cu ft, on the default rate card.
func ExampleRecommend_instantAndRecommended() {
	rc := estimate.DefaultRateCard("usd")
	from, to := "1 Main St, New York, NY 10001", "9 Oak Ave, Boston, MA 02108"
	instant := estimate.Compute(rc, estimate.Input{FromAddress: from, ToAddress: to, HomeSize: "2 bedroom"})
	fmt.Printf("instant: %d–%d %s\n", instant.Min, instant.Max, instant.Currency)
	counted := []struct {
		key   string
		count int
	}{{"sofa_3_seat", 1}, {"bed_queen", 1}, {"dresser", 1}, {"nightstand", 2}, {"tv_medium", 1}, {"box_medium", 10}}
	var items []inventory.Item
	for _, c := range counted {
		e, _ := inventory.Lookup(c.key)
		items = append(items, inventory.Item{Key: e.Key, Name: e.Name, Count: c.count, CubicFeet: e.Volume.CubicFeet()})
		fmt.Printf("  %d × %s, %s each\n", c.count, e.Name, e.Volume)
	}
	r, _ := inventory.Recommend(rc, inventory.Inventory{Rooms: []inventory.Room{{Name: "Home", Items: items}}}, from, to)
	fmt.Printf("recommended: %s, mover-minutes %d–%d, crew %d, %d–%d minutes, %d miles: %d–%d %s\n",
		r.Volume, r.MoverMinutes[0], r.MoverMinutes[1], r.Crew, r.ClockMinutes[0], r.ClockMinutes[1], r.Miles,
		r.Estimate.Min, r.Estimate.Max, r.Estimate.Currency)
	// Output:
	// instant: 1083–1473 usd
	//   1 × Sofa, 3 seats, 41 cu ft each
	//   1 × Bed, queen, 60 cu ft each
	//   1 × Dresser, 35 cu ft each
	//   2 × Nightstand, 5 cu ft each
	//   1 × TV, medium flat screen, 8 cu ft each
	//   10 × Box, medium (3.0 cu ft), 3 cu ft each
	// recommended: 184 cu ft, mover-minutes 118–207, crew 2, 59–104 minutes, 225 miles: 690–788 usd
}
