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
		{name: "fast", samples: samplesOf(4*ms, 4500*time.Microsecond, 100*ms), size: SizeBudget},
		{name: "slow", samples: samplesOf(4*ms, 4600*time.Microsecond, 9*ms), size: SizeBudget + 1},
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
		"init fast", "init ratio to hello-world fast", "first response fast", "binary size fast (arm64, stripped)",
		"init slow", "init ratio to hello-world slow", "first response slow", "binary size slow (arm64, stripped)",
	}
	if strings.Join(metrics, "|") != strings.Join(want, "|") {
		t.Errorf("metrics\n%q; want\n%q", metrics, want)
	}

	tests := []struct {
		metric, value, budget string
		ok                    bool
		note                  string // a substring; "" for none
	}{
		// Medians 4.5 ms ÷ 3 ms: exactly at the budget is within it.
		{"init ratio to hello-world fast", "1.50×", "≤ 1.5×", true, "median init 4.50 ms vs hello-world 3.00 ms"},
		{"init ratio to hello-world slow", "1.53×", "≤ 1.5×", false, "median init 4.60 ms vs hello-world 3.00 ms"},
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
	if r := rowByMetric(t, got, "init fast"); r.Value != "4.50 ms (min 4.00, max 100.00, n=3)" {
		t.Errorf("init fast = %q; want the statistics of the samples", r.Value)
	}
	if r := rowByMetric(t, got, "first response fast"); r.Value != "14.50 ms (min 14.00, max 110.00, n=3)" {
		t.Errorf("first response fast = %q; want the statistics of the samples", r.Value)
	}
}
