package load

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
)

// endpoint is the DynamoDB Local of this test binary.
var endpoint string

func TestMain(m *testing.M) {
	ep, stop, err := dynamolocal.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	endpoint = ep
	code := m.Run()
	stop()
	os.Exit(code)
}

// TestRun runs a short load and checks its correctness budgets, never its
// timings: throughput and latency vary with the machine.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("load run takes several seconds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rows, err := Run(ctx, Options{
		Duration: 2 * time.Second, Concurrency: []int{4}, SingleKeyDuration: 2 * time.Second,
		// 32 keys admit 3,840 requests a minute, far more than 4 clients
		// send in 2 s; the default 512 would only lengthen the seeding.
		Partners: 4, KeysPerPartner: 8,
		DynamoDBEndpoint: endpoint,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, r := range rows {
		t.Logf("%s | %s | %s | %s", r.Metric, r.Value, r.Budget, r.Verdict())
	}
	for _, metric := range []string{
		"4 clients: 5xx responses",
		"4 clients: requests without a response",
		"4 clients: unexpected 4xx",
		"4 clients: leads counted = createLead 200s",
		"4 clients: idempotent replays with the original lead_id",
		"4 clients: busiest key per minute window",
		"single key, 16 clients: 5xx responses",
		"single key, 16 clients: admitted per window",
	} {
		t.Run(metric, func(t *testing.T) {
			r := find(t, rows, metric)
			if r.OK == nil || !*r.OK {
				t.Errorf("got %q (%s); want within budget %q", r.Value, r.Note, r.Budget)
			}
		})
	}
	for _, metric := range []string{"4 clients: throughput", "4 clients: latency p50 / p95 / p99", "4 clients: status counts"} {
		if r := find(t, rows, metric); r.Value == "" {
			t.Errorf("%s: empty value", metric)
		}
	}
	if v := find(t, rows, "4 clients: leads counted = createLead 200s").Value; strings.HasPrefix(v, "0 ") {
		t.Errorf("leads counted %q; want some leads created", v)
	}
}

func find(t *testing.T, rows []report.Row, metric string) report.Row {
	t.Helper()
	for _, r := range rows {
		if r.Metric == metric {
			if r.Section != section {
				t.Errorf("%s: section %q; want %q", metric, r.Section, section)
			}
			return r
		}
	}
	t.Fatalf("no row %q", metric)
	return report.Row{}
}

func TestSingleSlot(t *testing.T) {
	minute := time.Unix(1_800_000_000-1_800_000_000%60, 0) // a minute boundary
	const d = 20 * time.Second
	tests := []struct {
		name   string
		toNext time.Duration // time from now to the next boundary
		want   time.Duration
		wantOK bool
	}{
		{"boundary just ahead", 1 * time.Second, d, false},
		{"boundary at the margin", 2 * time.Second, d, true},
		{"boundary mid-run", 10 * time.Second, d, true},
		{"boundary near the end", 18 * time.Second, d, true},
		{"boundary just past the end: run longer", 25 * time.Second, 27 * time.Second, true},
		{"boundary too far", 29 * time.Second, d, false},
		{"boundary a minute away", 59 * time.Second, d, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := singleSlot(minute.Add(-tt.toNext), d)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("singleSlot = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestTallyJudgesEachAnswer(t *testing.T) {
	samples := []sample{
		{op: opCreate, status: 200, key: 0, reset: 60, leadID: "a"},
		{op: opGet, status: 404, key: 0, reset: 60, expect404: true},
		{op: opGet, status: 404, key: 1, reset: 60}, // own lead missing
		{op: opReplay, status: 200, key: 0, reset: 60, replayed: true, leadID: "a", wantLead: "a"},
		{op: opReplay, status: 200, key: 0, reset: 60, leadID: "b", wantLead: "a"}, // a second lead
		{op: opList, status: 429, key: 0, reset: 60, retryAfter: true},
		{op: opList, status: 429, key: 0, reset: 120},
		{op: opList, status: 502},
		{op: opList, status: 0},
	}
	got := tallySamples(samples)
	if got.unexpected["getLead 404"] != 1 || got.unexpectedTotal() != 1 {
		t.Errorf("unexpected %v; want getLead 404: 1", got.unexpected)
	}
	if got.replays != 2 || got.replaysSame != 1 {
		t.Errorf("replays %d, same %d; want 2, 1", got.replays, got.replaysSame)
	}
	if got.limited != 2 || got.noRetryAfter != 1 {
		t.Errorf("429s %d, without Retry-After %d; want 2, 1", got.limited, got.noRetryAfter)
	}
	if got.fiveXX != 1 || got.byStatus[0] != 1 {
		t.Errorf("5xx %d, no response %d; want 1, 1", got.fiveXX, got.byStatus[0])
	}
	if got.busiest() != 5 {
		t.Errorf("busiest %d; want 5 (key 0 in the window ending at 60)", got.busiest())
	}
	resets, counts := got.admittedPerWindow()
	if fmt.Sprint(resets, counts) != "[60 120] [5 0]" {
		t.Errorf("admitted per window %v %v; want [60 120] [5 0]", resets, counts)
	}
}
