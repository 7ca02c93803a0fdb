package coldstart

import (
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// Section is the report section of every row.
const Section = "Cold start"

// Budgets. Init is budgeted as a ratio to the hello-world baseline's
// (ratio of medians measured in the same run): absolute times scale with
// the machine's load (the earlier "+5 ms" grew to +7 ms on a loaded machine
// while the ratio stayed at 1.4×), a ratio of the same run does not. The
// init budget is every function's, the agent tool server's included.
const (
	InitRatioBudget = 1.5
	// SizeBudget is a function's binary size budget (bytes: arm64,
	// stripped), but the agent tool server's (AgentToolsSizeBudget).
	SizeBudget = 8 << 20
	// AgentToolsSizeBudget is the binary size budget of the agent tool
	// server (manifest.AgentToolsSlug, v1-mcp), its own and explicit. It
	// links every operation of manifest.AgentToolOperations and the MCP Go
	// SDK, so 8 MiB cannot hold it. Measured on linux/arm64 with -s -w and
	// lambda.norpc: v1-mcp is 11,075,746 bytes (10.56 MiB, make bench). Two
	// one-off builds with the same flags, whose mains are not kept: a main
	// calling the ten tool operations' builders, without MCP, was already
	// 8,978,594 bytes (8.56 MiB), and the SDK adds about 2.5 MB (a main
	// serving one MCP tool over streamable HTTP was 7,864,482 bytes against
	// 5,308,578 for one serving plain net/http). 12 MiB leaves it about
	// 1.5 MiB to grow, as the other functions have below 8 MiB.
	AgentToolsSizeBudget = 12 << 20
)

// sizeBudget returns the binary size budget of the function name, in
// bytes.
func sizeBudget(name string) int64 {
	if name == manifest.AgentToolsSlug {
		return AgentToolsSizeBudget
	}
	return SizeBudget
}

// result is what was measured of one binary.
type result struct {
	name    string
	samples []sample
	size    int64 // arm64 release binary, bytes
}

// rows turns the measurements into the report: the hello-world baseline
// first, then per function its init, init added over the baseline, first
// response and binary size (of sizeArch binaries: arm64 in make bench).
func rows(hello result, functions []result, sizeArch string) []report.Row {
	helloInit := report.Summarise(inits(hello.samples))
	out := []report.Row{
		{Section: Section, Metric: "init " + helloWorld, Value: helloInit.String()},
		{Section: Section, Metric: "first response " + helloWorld, Value: report.Summarise(firstResponses(hello.samples)).String()},
		{Section: Section, Metric: sizeMetric(helloWorld, sizeArch), Value: mib(hello.size)},
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
		budget := sizeBudget(f.name)
		sizeRow := report.Row{
			Section: Section, Metric: sizeMetric(f.name, sizeArch),
			Value: mib(f.size), Budget: fmt.Sprintf("≤ %s", mibBudget(budget)), OK: report.Check(f.size <= budget),
		}
		if !*sizeRow.OK {
			sizeRow.Note = fmt.Sprintf("%d bytes, %.2f MiB over the %s budget.", f.size, float64(f.size-budget)/(1<<20), mibBudget(budget))
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

func sizeMetric(name, arch string) string { return "binary size " + name + " (" + arch + ", stripped)" }

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

// mibBudget renders a budget of whole MiB: "8 MiB".
func mibBudget(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

func mib(n int64) string { return fmt.Sprintf("%.2f MiB (%d bytes)", float64(n)/(1<<20), n) }
