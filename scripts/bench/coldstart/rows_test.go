package coldstart

import (
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
)

func samplesOf(inits ...time.Duration) []sample {
	ss := make([]sample, len(inits))
	for i, d := range inits {
		ss[i] = sample{Init: d, FirstResponse: d + 10*time.Millisecond}
	}
	return ss
}

func rowByMetric(t *testing.T, rows []report.Row, metric string) report.Row {
	t.Helper()
	for _, r := range rows {
		if r.Metric == metric {
			return r
		}
	}
	t.Fatalf("no row %q", metric)
	return report.Row{}
}

func TestRowsBudgets(t *testing.T) {
	ms := time.Millisecond
	hello := result{name: helloWorld, samples: samplesOf(2*ms, 3*ms, 4*ms), size: 5 << 20}
	got := rows(hello, []result{
		{name: "fast", samples: samplesOf(7*ms, 8*ms, 100*ms), size: SizeBudget},
		{name: "slow", samples: samplesOf(8*ms, 8100*time.Microsecond, 9*ms), size: SizeBudget + 1},
	})

	var metrics []string
	for _, r := range got {
		metrics = append(metrics, r.Metric)
		if r.Section != Section {
			t.Errorf("%s: section %q; want %q", r.Metric, r.Section, Section)
		}
	}
	want := []string{
		"init hello-world", "first response hello-world", "binary size hello-world (arm64, stripped)",
		"init fast", "init added over hello-world fast", "first response fast", "binary size fast (arm64, stripped)",
		"init slow", "init added over hello-world slow", "first response slow", "binary size slow (arm64, stripped)",
	}
	if strings.Join(metrics, "|") != strings.Join(want, "|") {
		t.Errorf("metrics\n%q; want\n%q", metrics, want)
	}

	tests := []struct {
		metric, value, budget string
		ok                    bool
		note                  string // a substring; "" for none
	}{
		// Medians 8 ms − 3 ms: exactly at the budget is within it.
		{"init added over hello-world fast", "5.00 ms", "≤ 5 ms", true, ""},
		{"init added over hello-world slow", "5.10 ms", "≤ 5 ms", false, "median init 8.10 ms vs hello-world 3.00 ms"},
		{"binary size fast (arm64, stripped)", "8.00 MiB (8388608 bytes)", "≤ 8 MiB", true, ""},
		{"binary size slow (arm64, stripped)", "8.00 MiB (8388609 bytes)", "≤ 8 MiB", false, "8388609 bytes"},
	}
	for _, tt := range tests {
		r := rowByMetric(t, got, tt.metric)
		if r.Value != tt.value || r.Budget != tt.budget || r.OK == nil || *r.OK != tt.ok {
			t.Errorf("%s: %q %q %s; want %q %q ok=%v", tt.metric, r.Value, r.Budget, r.Verdict(), tt.value, tt.budget, tt.ok)
		}
		if (tt.note == "") != (r.Note == "") || !strings.Contains(r.Note, tt.note) {
			t.Errorf("%s: note %q; want %q", tt.metric, r.Note, tt.note)
		}
	}

	// Reported rows carry no budget.
	for _, m := range []string{"init fast", "first response fast", "init hello-world", "first response hello-world", "binary size hello-world (arm64, stripped)"} {
		if r := rowByMetric(t, got, m); r.OK != nil || r.Budget != "" {
			t.Errorf("%s: budget %q, ok %v; want a row that only reports", m, r.Budget, r.OK)
		}
	}
	if r := rowByMetric(t, got, "init fast"); r.Value != "8.00 ms (min 7.00, max 100.00, n=3)" {
		t.Errorf("init fast = %q; want the statistics of the samples", r.Value)
	}
	if r := rowByMetric(t, got, "first response fast"); r.Value != "18.00 ms (min 17.00, max 110.00, n=3)" {
		t.Errorf("first response fast = %q; want the statistics of the samples", r.Value)
	}
}
