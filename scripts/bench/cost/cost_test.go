package cost

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// TestRunReportsEveryOperation runs the cost bench on a small partner and
// checks the shape of its rows and the budgets that are counts, not times.
func TestRunReportsEveryOperation(t *testing.T) {
	rows, err := Run(context.Background(), Options{Endpoint: os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), BigTenant: 200})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"createLead, no Idempotency-Key", "createLead with Idempotency-Key", "idempotent replay", "getLead", "listLeads page", "page read units", "listEvents page (", "listEvents page read units, ", "listEvents page read units, type filter", "listEvents page read units, lead filter", "dashboard leads page (50 rows)", "dashboard leads page (50 rows, status filter)"}
	for _, w := range want {
		found := false
		for _, r := range rows {
			if strings.HasPrefix(r.Metric, w) {
				found = true
				if r.OK != nil && !*r.OK {
					t.Errorf("%s: %s over budget %s", r.Metric, r.Value, r.Budget)
				}
			}
		}
		if !found {
			t.Errorf("no row for %s", w)
		}
	}
}
