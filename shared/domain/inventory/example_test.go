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
