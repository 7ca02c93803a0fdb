package survey_test

import (
	"fmt"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

func ExampleNext() {
	// Events replayed out of order and duplicated: the survey only moves
	// forward, and a closed survey stays closed.
	s := survey.Invited
	for _, ev := range []survey.Event{
		survey.UploadStarted, survey.FinishRequested, survey.UploadStarted,
		survey.InventoryBuilt, survey.FinishRequested, survey.NoPlayableClip,
	} {
		next, changed, _ := survey.Next(s, ev)
		fmt.Printf("%-16s %-15s changed=%v\n", ev, next, changed)
		s = next
	}
	// Output:
	// upload_started   recording       changed=true
	// finish_requested processing      changed=true
	// upload_started   processing      changed=false
	// inventory_built  inventory_ready changed=true
	// finish_requested inventory_ready changed=false
	// no_playable_clip inventory_ready changed=false
}
