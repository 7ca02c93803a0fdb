package coldstart

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/dynamolocal"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// TestRun builds every function and the baseline and cold-starts each 3
// times (COLDSTART_RUNS overrides, e.g. 25 for the benchmark's numbers,
// printed with -v). It checks the report's shape and the consistency of
// its numbers, never a budget: a slow machine must not fail make test.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every function and starts DynamoDB Local")
	}
	runs := 3
	if s := os.Getenv("COLDSTART_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("COLDSTART_RUNS=%q: want a positive number", s)
		}
		runs = n
	}
	endpoint, stop, err := dynamolocal.ForTests()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)

	start := time.Now()
	rows, err := Run(context.Background(), Options{Runs: runs, Endpoint: endpoint, Log: t.Output()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("Run with %d runs took %s\n%s", runs, time.Since(start).Round(time.Millisecond), report.Markdown(rows))

	byMetric := map[string]report.Row{}
	for _, r := range rows {
		if r.Section != Section {
			t.Errorf("%s: section %q; want %q", r.Metric, r.Section, Section)
		}
		byMetric[r.Metric] = r
	}
	row := func(metric string) report.Row {
		t.Helper()
		r, ok := byMetric[metric]
		if !ok {
			t.Fatalf("no row %q", metric)
		}
		return r
	}
	names := []string{helloWorld}
	for _, r := range route.Table {
		names = append(names, r.Slug)
		for _, m := range []string{"init added over hello-world " + r.Slug, sizeMetric(r.Slug)} {
			if r := row(m); r.OK == nil || r.Budget == "" {
				t.Errorf("%s: no budget verdict", m)
			}
		}
	}
	for _, name := range names {
		init := median(t, row("init "+name).Value, runs)
		first := median(t, row("first response "+name).Value, runs)
		if init <= 0 || first < init {
			t.Errorf("%s: init median %.2f ms, first response median %.2f ms; want 0 < init ≤ first response", name, init, first)
		}
		var mib float64
		if _, err := fmt.Sscanf(row(sizeMetric(name)).Value, "%f MiB", &mib); err != nil || mib <= 0 {
			t.Errorf("%s: size %q; want a positive size in MiB", name, row(sizeMetric(name)).Value)
		}
	}
	if want := 3 + 4*len(route.Table); len(rows) != want {
		t.Errorf("%d rows; want %d", len(rows), want)
	}
}

// median reads the median of a report.Stats value and checks its n.
func median(t *testing.T, value string, n int) float64 {
	t.Helper()
	var m float64
	if _, err := fmt.Sscanf(value, "%f ms", &m); err != nil {
		t.Errorf("value %q: %v", value, err)
	}
	if !strings.HasSuffix(value, fmt.Sprintf("n=%d)", n)) {
		t.Errorf("value %q; want n=%d", value, n)
	}
	return m
}

func TestCheckReleaseFlags(t *testing.T) {
	const good = `CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -tags lambda.norpc -ldflags "-s -w" -o /tmp/x/v1-leads/bootstrap ./functions/v1-leads` + "\n"
	tests := []struct {
		name, log string
		ok        bool
	}{
		{"same flags", good + strings.Replace(good, "v1-leads", "v1-lead-get", 2), true},
		{"other arch", good, false}, // checked against arm64 below
		{"flag dropped", strings.Replace(good, "-trimpath ", "", 1), false},
		{"flag added", strings.Replace(good, "-trimpath", "-trimpath -race", 1), false},
		{"no build printed", "linux/amd64 functions in /tmp/x\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arch := "amd64"
			if tt.name == "other arch" {
				arch = "arm64"
			}
			if err := checkReleaseFlags(tt.log, arch); (err == nil) != tt.ok {
				t.Errorf("checkReleaseFlags = %v; want ok %v", err, tt.ok)
			}
		})
	}
}

func TestEvent(t *testing.T) {
	get := manifest.ByOperation(manifest.GetLead)
	b, err := event(get, "GET", "/v1-lead-get/00000000-0000-4000-8000-000000000001", "", "Authorization: Bearer mk_test_x")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Version != "2.0" || ev.RequestContext.HTTP.Method != "GET" || ev.RouteKey != "GET /v1-lead-get/{lead_id}" ||
		ev.PathParameters["lead_id"] != "00000000-0000-4000-8000-000000000001" || ev.Headers["authorization"] != "Bearer mk_test_x" {
		t.Errorf("event %s; want a payload-2.0 getLead event with the lead id and key", b)
	}
	if _, err := event(get, "GET", "/elsewhere", ""); err == nil {
		t.Error("event for a path that is not the route's: no error")
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.Runs != DefaultRuns || o.Warmup != DefaultWarmup || o.Timeout != DefaultTimeout || o.Log == nil {
		t.Errorf("defaults %+v", o)
	}
	if o := (Options{Warmup: -1}).withDefaults(); o.Warmup != 0 {
		t.Errorf("Warmup -1 → %d; want none", o.Warmup)
	}
}
