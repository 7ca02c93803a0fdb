package viewtiming

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// TestRun runs a small measurement end to end: every row is reported and
// the mints and opens succeed (Run fails otherwise). No row has a budget:
// the unknown ÷ known timing band is retired, and the unknown token's row
// says why.
func TestRun(t *testing.T) {
	rows, err := Run(context.Background(), Options{Endpoint: os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), Samples: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows; want 3: %+v", len(rows), rows)
	}
	for _, r := range rows {
		if r.Section != Section || r.Value == "" || r.Budget != "" || r.OK != nil {
			t.Errorf("row %+v; want a value without a budget", r)
		}
	}
	if note := rows[2].Note; !strings.Contains(note, "256 bits") {
		t.Errorf("unknown token row's note %q; want why it has no band", note)
	}
}
