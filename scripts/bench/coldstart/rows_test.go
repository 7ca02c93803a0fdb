package coldstart

import (
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/manifest"
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
		// The agent tool server's own size budget, and the same init budget.
		{name: manifest.AgentToolsSlug, samples: samplesOf(4*ms, 4600*time.Microsecond, 9*ms), size: AgentToolsSizeBudget + 1},
	}, "arm64")
	mcpOK := rows(hello, []result{{name: manifest.AgentToolsSlug, samples: samplesOf(4*ms, 4500*time.Microsecond, 9*ms), size: 11_010_210}}, "arm64")

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
		"init v1-mcp", "init ratio to hello-world v1-mcp", "first response v1-mcp", "binary size v1-mcp (arm64, stripped)",
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
		{"init ratio to hello-world v1-mcp", "1.53×", "≤ 1.5×", false, "median init 4.60 ms vs hello-world 3.00 ms"},
		{"binary size v1-mcp (arm64, stripped)", "12.00 MiB (12582913 bytes)", "≤ 12 MiB", false, "12582913 bytes, 0.00 MiB over the 12 MiB budget"},
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

	// v1-mcp as measured (11,010,210 bytes) is within its own budget, and
	// so is an init of 1.5× the baseline's.
	for _, tt := range []struct{ metric, value, budget string }{
		{"binary size v1-mcp (arm64, stripped)", "10.50 MiB (11010210 bytes)", "≤ 12 MiB"},
		{"init ratio to hello-world v1-mcp", "1.50×", "≤ 1.5×"},
	} {
		if r := rowByMetric(t, mcpOK, tt.metric); r.Value != tt.value || r.Budget != tt.budget || r.OK == nil || !*r.OK {
			t.Errorf("%s: %q %q %s; want %q %q ok", tt.metric, r.Value, r.Budget, r.Verdict(), tt.value, tt.budget)
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

// TestSizeBudgets: the agent tool server has its own size budget of 12
// MiB, which holds its measured 11,010,210 bytes but not a function of
// 8 MiB's; every other function of the manifest keeps 8 MiB.
func TestSizeBudgets(t *testing.T) {
	if AgentToolsSizeBudget != 12<<20 || SizeBudget != 8<<20 {
		t.Fatalf("AgentToolsSizeBudget %d, SizeBudget %d; want 12 MiB and 8 MiB", AgentToolsSizeBudget, SizeBudget)
	}
	const measured = 11_010_210 // v1-mcp, linux/arm64, -s -w, lambda.norpc
	if measured <= SizeBudget || measured > AgentToolsSizeBudget {
		t.Errorf("v1-mcp's measured %d bytes: want over SizeBudget and within AgentToolsSizeBudget", measured)
	}
	var agent bool
	for _, f := range manifest.Functions {
		want := int64(SizeBudget)
		if f.Slug == manifest.AgentToolsSlug {
			want, agent = AgentToolsSizeBudget, true
		}
		if got := sizeBudget(f.Slug); got != want {
			t.Errorf("%s: size budget %d; want %d", f.Slug, got, want)
		}
	}
	if !agent {
		t.Errorf("no function %s in the manifest", manifest.AgentToolsSlug)
	}
	if got := sizeBudget(helloWorld); got != SizeBudget {
		t.Errorf("%s: size budget %d; want %d", helloWorld, got, SizeBudget)
	}
}
