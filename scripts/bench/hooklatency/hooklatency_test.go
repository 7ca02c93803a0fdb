package hooklatency

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
)

// localDynamo is one DynamoDB Local for the package's tests, started on
// first use and stopped by TestMain.
func localDynamo(t *testing.T) string {
	t.Helper()
	dbOnce.Do(func() { dbEndpoint, dbStop, dbErr = dynamolocal.ForTests() })
	if dbErr != nil {
		t.Fatal(dbErr)
	}
	return dbEndpoint
}

var (
	dbOnce     sync.Once
	dbEndpoint string
	dbStop     = func() {}
	dbErr      error
)

func TestMain(m *testing.M) {
	code := m.Run()
	dbStop()
	os.Exit(code)
}

// TestMeasure runs a short measurement against DynamoDB Local: every
// event owed arrives, verified, and the dispatcher's round trips are
// counted.
func TestMeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local")
	}
	endpoint := localDynamo(t)
	var log strings.Builder
	res, err := Measure(context.Background(), Options{Endpoint: endpoint, Events: 10, Warmup: 1, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "hooklatency: 1 warm-up, 10 events,") {
		t.Errorf("log %q; want 1 warm-up before the 10 events", log.String())
	}
	if len(res.Latencies) != 10 || res.Deliveries < 10 {
		t.Errorf("latencies %d, deliveries %d; want 10 and at least 10", len(res.Latencies), res.Deliveries)
	}
	if res.Trips < 10 || res.Write <= 0 {
		t.Errorf("trips %d, write units %.1f; want the dispatcher's calls counted", res.Trips, res.Write)
	}
	t.Logf("per event: %d trips %v", res.Trips/10, res.TripNames[:res.Trips/10])
	for _, r := range rows(res) {
		if r.OK != nil && !*r.OK {
			t.Errorf("row %q over budget: %s", r.Metric, r.Value)
		}
		if strings.TrimSpace(r.Value) == "" {
			t.Errorf("row %q has no value", r.Metric)
		}
	}
}

// TestMeasureWithAHangingNeighbour: with another partner's endpoint
// hanging on each of its deliveries, every event measured still arrives,
// verified (its latency is the bench's row, not asserted here).
func TestMeasureWithAHangingNeighbour(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local")
	}
	endpoint := localDynamo(t)
	res, err := Measure(context.Background(), Options{Endpoint: endpoint, Events: 5, Warmup: 1, Hanging: 3, HangFor: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Latencies) != 5 || res.Deliveries < 5 {
		t.Errorf("latencies %d, deliveries %d; want 5 and at least 5", len(res.Latencies), res.Deliveries)
	}
	if r := noisyRow(res); strings.TrimSpace(r.Value) == "" || r.Budget == "" {
		t.Errorf("row %+v", r)
	}
}
