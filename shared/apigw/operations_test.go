package apigw

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/manifest"
)

func TestEveryRouteHasOneEndpoint(t *testing.T) {
	seen := map[manifest.Operation]int{}
	for _, o := range Operations() {
		seen[o.manifest.Operation]++
		if o.run == nil {
			t.Errorf("%s has no logic", o.manifest.Operation)
		}
	}
	for _, r := range route.Table {
		if seen[r.Operation] != 1 {
			t.Errorf("%s has %d endpoints; want 1", r.Operation, seen[r.Operation])
		}
	}
	if len(seen) != len(route.Table) {
		t.Errorf("%d endpoints for %d routes", len(seen), len(route.Table))
	}
}
