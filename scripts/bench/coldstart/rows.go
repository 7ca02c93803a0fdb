package coldstart

import (
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
)

// Section is the report section of every row.
const Section = "Cold start"

// Budgets. Init is budgeted as a ratio to the hello-world baseline's
// (ratio of medians measured in the same run): absolute times scale with
// the machine's load (the earlier "+5 ms" grew to +7 ms on a loaded machine
// while the ratio stayed at 1.4×), a ratio of the same run does not.
const (
	InitRatioBudget = 1.5
	SizeBudget      = 8 << 20 // bytes: arm64, stripped
)

// result is what was measured of one binary.
type result struct {
	name    string
	samples []sample
	size    int64 // arm64 release binary, bytes
}

// rows turns the measurements into the report: the hello-world baseline
// first, then per function its init, init added over the baseline, first
// response and binary size.
func rows(hello result, functions []result) []report.Row {
	helloInit := report.Summarise(inits(hello.samples))
	out := []report.Row{
		{Section: Section, Metric: "init " + helloWorld, Value: helloInit.String()},
		{Section: Section, Metric: "first response " + helloWorld, Value: report.Summarise(firstResponses(hello.samples)).String()},
		{Section: Section, Metric: sizeMetric(helloWorld), Value: mib(hello.size)},
	}
	for _, f := range functions {
		init := report.Summarise(inits(f.samples))
		ratio := 0.0
		if helloInit.Median > 0 {
			ratio = float64(init.Median) / float64(helloInit.Median)
		}
		addedRow := report.Row{
			Section: Section, Metric: "init ratio to hello-world " + f.name,
			Value: fmt.Sprintf("%.2f×", ratio), Budget: fmt.Sprintf("≤ %.1f×", InitRatioBudget),
			OK:   report.Check(helloInit.Median > 0 && ratio <= InitRatioBudget),
			Note: fmt.Sprintf("median init %s vs hello-world %s, same run (n=%d each).", ms(init.Median), ms(helloInit.Median), init.N),
		}
		sizeRow := report.Row{
			Section: Section, Metric: sizeMetric(f.name),
			Value: mib(f.size), Budget: "≤ 8 MiB", OK: report.Check(f.size <= SizeBudget),
		}
		if !*sizeRow.OK {
			sizeRow.Note = fmt.Sprintf("%d bytes, %.2f MiB over the 8 MiB budget.", f.size, float64(f.size-SizeBudget)/(1<<20))
		}
		out = append(out,
			report.Row{Section: Section, Metric: "init " + f.name, Value: init.String()},
			addedRow,
			report.Row{Section: Section, Metric: "first response " + f.name, Value: report.Summarise(firstResponses(f.samples)).String()},
			sizeRow,
		)
	}
	return out
}

func sizeMetric(name string) string { return "binary size " + name + " (arm64, stripped)" }

func inits(ss []sample) []time.Duration {
	d := make([]time.Duration, len(ss))
	for i, s := range ss {
		d[i] = s.Init
	}
	return d
}

func firstResponses(ss []sample) []time.Duration {
	d := make([]time.Duration, len(ss))
	for i, s := range ss {
		d[i] = s.FirstResponse
	}
	return d
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func mib(n int64) string { return fmt.Sprintf("%.2f MiB (%d bytes)", float64(n)/(1<<20), n) }
