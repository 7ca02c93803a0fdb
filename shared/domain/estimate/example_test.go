package estimate_test

import (
	"fmt"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
)

func ExampleCompute() {
	rc := estimate.DefaultRateCard("usd")
	est := estimate.Compute(rc, estimate.Input{
		FromAddress: "350 W 31st St, New York, NY 10001",
		ToAddress:   "100 Delancey St, New York, NY 10002",
		HomeSize:    "2 bedroom apartment",
	})
	fmt.Printf("%d–%d %s\n", est.Min, est.Max, est.Currency)
	// Output: 528–918 usd
}

func ExampleParseHomeSize() {
	for _, s := range []string{"3br", "1,800 sq ft", "studio", "big house"} {
		size, ok := estimate.ParseHomeSize(s)
		fmt.Printf("%q: %d bedrooms from %q, %v\n", s, size.Bedrooms, size.Source, ok)
	}
	// Output:
	// "3br": 3 bedrooms from "bedrooms", true
	// "1,800 sq ft": 3 bedrooms from "sqft", true
	// "studio": 0 bedrooms from "studio", true
	// "big house": 0 bedrooms from "", false
}

func ExampleFindZIP() {
	// The street number 10001 is also a ZIP; the last ZIP in the address wins.
	zip, ok := estimate.FindZIP("10001 Main St, Los Angeles, CA 90001-1234")
	fmt.Println(zip, ok)
	// Output: 90001 true
}
