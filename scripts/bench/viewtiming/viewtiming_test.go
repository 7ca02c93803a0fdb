package viewtiming

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// TestRun runs a small measurement end to end: every row is reported, the
// mints and opens succeed (Run fails otherwise) and the ratio row carries
// its band. The ratio itself is make bench's to judge, over more samples.
func TestRun(t *testing.T) {
	rows, err := Run(context.Background(), Options{Endpoint: os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), Samples: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows; want 4: %+v", len(rows), rows)
	}
	ratio := rows[3]
	if ratio.OK == nil || !strings.Contains(ratio.Value, "×") || ratio.Budget == "" {
		t.Errorf("ratio row %+v; want a value in × with a budget", ratio)
	}
	for _, r := range rows {
		if r.Section != Section || r.Value == "" {
			t.Errorf("row %+v", r)
		}
	}
}

func TestRowsJudgeTheRatio(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, tt := range []struct {
		known, unknown []time.Duration
		ok             bool
	}{
		{ms(10, 10, 10), ms(10, 11, 9), true},
		{ms(10, 10, 10), ms(4, 4, 4), false},
		{ms(10, 10, 10), ms(13, 13, 13), false},
	} {
		r := rows(ms(5), tt.known, tt.unknown)[3]
		if r.OK == nil || *r.OK != tt.ok {
			t.Errorf("rows(known %v, unknown %v) verdict %v; want %v", tt.known, tt.unknown, r.OK, tt.ok)
		}
	}
}
