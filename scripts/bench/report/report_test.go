package report

import (
	"strings"
	"testing"
	"time"
)

func TestSummarise(t *testing.T) {
	s := Summarise([]time.Duration{5, 1, 3, 2, 4})
	if s.Min != 1 || s.Median != 3 || s.Max != 5 || s.N != 5 {
		t.Errorf("got %+v; want min 1 median 3 max 5 n 5", s)
	}
	if e := Summarise([]time.Duration{4, 1, 2, 3}); e.Median != 2 {
		t.Errorf("even median %v; want 2 (mean of 2 and 3, integer)", e.Median)
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i))
	}
	for p, want := range map[float64]time.Duration{50: 50, 95: 95, 99: 99, 100: 100} {
		if got := Percentile(ds, p); got != want {
			t.Errorf("p%v = %v; want %v", p, got, want)
		}
	}
}

func TestMarkdownMarksOverBudget(t *testing.T) {
	md := Markdown([]Row{
		{Section: "A", Metric: "m1", Value: "1", Budget: "≤ 2", OK: Check(true)},
		{Section: "A", Metric: "m2", Value: "3", Budget: "≤ 2", OK: Check(false), Note: "because"},
	})
	if !strings.Contains(md, "| A | m1 | 1 | ≤ 2 | ok |") || !strings.Contains(md, "over budget") || !strings.Contains(md, "because") {
		t.Errorf("markdown:\n%s", md)
	}
}
