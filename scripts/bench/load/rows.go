package load

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/domain/auth"
)

// section is the rows' Section.
const section = "Load"

// mixNote describes what a concurrent run sends.
const mixNote = "each client loops: 50% createLead (half with a unique Idempotency-Key; 6% of these turns instead replay " +
	"an earlier idempotent create, counted apart), 25% getLead of a lead it created (of a random id, answered 404, " +
	"until it has one), 25% listLeads limit=10, sweeping the keys round-robin; throughput = answered requests / wall time"

// concurrentRows are the rows of one concurrent run.
func concurrentRows(r *run) []report.Row {
	t := tallySamples(r.samples)
	rows := commonRows(r, t)
	rows[0].Note = fmt.Sprintf("%s; %d keys over %d partners", mixNote, len(r.keys.keys), len(r.keys.partners))
	rows = append(rows,
		unexpectedRow(r, t),
		leadsRow(r),
		replaysRow(r, t),
		limiterRow(r, t),
	)
	return rows
}

// singleKeyRows are the rows of the single-key run.
func singleKeyRows(r *run) []report.Row {
	t := tallySamples(r.samples)
	rows := commonRows(r, t)[:3] // throughput, latency, statuses
	rows = append(rows, fiveXXRow(r, t), admittedRow(r, t), limitedRow(r, t))
	return rows
}

// commonRows: throughput, latency, status counts, then latency per
// operation and the failure counts.
func commonRows(r *run, t tally) []report.Row {
	rows := []report.Row{
		row(r, "throughput", fmt.Sprintf("%.0f req/s (%d requests in %.1f s)",
			float64(t.requests-t.byStatus[0])/r.elapsed.Seconds(), t.requests, r.elapsed.Seconds())),
		row(r, "latency p50 / p95 / p99", percentiles(t.latency)),
		row(r, "status counts", statusCounts(t.byStatus)),
	}
	for _, o := range []op{opCreate, opGet, opList} {
		rows = append(rows, row(r, opNames[o]+" latency p50 / p95 / p99", percentiles(t.opLatency[o])))
	}
	return append(rows, fiveXXRow(r, t), budget(r, "requests without a response", fmt.Sprint(t.byStatus[0]), "0", t.byStatus[0] == 0, ""))
}

func fiveXXRow(r *run, t tally) report.Row {
	note := ""
	if t.fiveXX > 0 && r.handlerErrors != "" {
		first, _, _ := strings.Cut(r.handlerErrors, "\n")
		note = "first handler error: " + truncate(first, 400)
	}
	return budget(r, "5xx responses", fmt.Sprint(t.fiveXX), "0", t.fiveXX == 0, note)
}

func unexpectedRow(r *run, t tally) report.Row {
	n := t.unexpectedTotal()
	value := fmt.Sprint(n)
	if n > 0 {
		value += " (" + counts(t.unexpected) + ")"
	}
	return budget(r, "unexpected 4xx", value, "0", n == 0, "")
}

func leadsRow(r *run) report.Row {
	c := r.leads
	const metric = "leads counted = createLead 200s"
	if c.err != nil {
		return budget(r, metric, "not counted", "equal", false, c.err.Error())
	}
	note := ""
	if !c.ok() {
		note = fmt.Sprintf("listed %d, created %d: %d missing, %d unknown, %d doubled", c.counted, c.created, c.missing, c.unknown, c.doubled)
	}
	return budget(r, metric, fmt.Sprintf("%d = %d", c.counted, c.created), "equal", c.ok(), note)
}

func replaysRow(r *run, t tally) report.Row {
	return budget(r, "idempotent replays with the original lead_id", fmt.Sprintf("%d of %d", t.replaysSame, t.replays),
		"all", t.replaysSame == t.replays, "")
}

// limiterRow says whether the limiter stayed out of a concurrent run.
func limiterRow(r *run, t tally) report.Row {
	ok := t.busiest() <= auth.RateLimit && t.limited == 0
	note := ""
	if !ok {
		note = "the rate limit bound this run, so its throughput and latency are not the service's: give it more keys (Options.Partners, KeysPerPartner)"
	}
	return budget(r, "busiest key per minute window",
		fmt.Sprintf("max %d requests (%d keys; 429s: %d)", t.busiest(), len(r.keys.keys), t.limited),
		fmt.Sprintf("≤ %d, no 429", auth.RateLimit), ok, note)
}

// admittedRow checks that the single key never got more than the limit
// admitted in one window.
func admittedRow(r *run, t tally) report.Row {
	_, counts := t.admittedPerWindow()
	most := 0
	parts := make([]string, len(counts))
	for i, n := range counts {
		most = max(most, n)
		parts[i] = fmt.Sprint(n)
	}
	note := ""
	if len(counts) < 2 {
		note = "the run crossed no minute boundary"
	}
	return budget(r, "admitted per window", fmt.Sprintf("max %d (windows: %s)", most, strings.Join(parts, ", ")),
		fmt.Sprintf("≤ %d", auth.RateLimit), len(counts) > 0 && most <= auth.RateLimit, note)
}

// limitedRow reports the single key's 429s, each of which must carry
// Retry-After.
func limitedRow(r *run, t tally) report.Row {
	value := fmt.Sprintf("%d (all with Retry-After)", t.limited)
	if t.noRetryAfter > 0 {
		value = fmt.Sprintf("%d (%d without Retry-After)", t.limited, t.noRetryAfter)
	}
	note := ""
	if t.limited == 0 {
		note = "the key never reached the limit, so this run does not show the limiter"
	}
	return budget(r, "429s", value, "Retry-After on each", t.noRetryAfter == 0, note)
}

func row(r *run, metric, value string) report.Row {
	return report.Row{Section: section, Metric: r.name + ": " + metric, Value: value}
}

func budget(r *run, metric, value, limit string, ok bool, note string) report.Row {
	rw := row(r, metric, value)
	rw.Budget, rw.OK, rw.Note = limit, report.Check(ok), note
	return rw
}

// percentiles renders "p50 / p95 / p99 ms".
func percentiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "—"
	}
	return fmt.Sprintf("%s / %s / %s ms (n=%d)", ms(report.Percentile(ds, 50)), ms(report.Percentile(ds, 95)), ms(report.Percentile(ds, 99)), len(ds))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

// statusCounts renders "200: 5123, 404: 12, 429: 0" (429 always; requests
// without a response as "none").
func statusCounts(by map[int]int) string {
	statuses := slices.Sorted(maps.Keys(by))
	if _, ok := by[429]; !ok {
		statuses = append(statuses, 429)
		slices.Sort(statuses)
	}
	var parts []string
	for _, s := range statuses {
		if s == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d: %d", s, by[s]))
	}
	if by[0] > 0 {
		parts = append(parts, fmt.Sprintf("none: %d", by[0]))
	}
	return strings.Join(parts, ", ")
}

// counts renders a map of counts in key order.
func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Budgets of the rows that catch a local stack slowing as it writes
// (DynamoDB Local's stream records piling up: docs/BENCHMARKS.md). Both
// were measured to: a ratio of the API's throughput to raw DynamoDB Local
// on the same instance would not, since both slow down together.
const (
	// maxDBCPURatio bounds DynamoDB Local's CPU over the bench process's
	// (the gateway, the handlers and the clients) during a concurrent run:
	// 1.4–2.3 healthy, 4–30 with the defect.
	maxDBCPURatio = 3.0
	// minReferenceRatio is the least throughput of the first concurrent
	// run over the same run on a table in a fresh DynamoDB Local.
	minReferenceRatio = 0.7
)

// throughput is r's answered requests per second.
func throughput(r *run) float64 {
	t := tallySamples(r.samples)
	return float64(t.requests-t.byStatus[0]) / r.elapsed.Seconds()
}

// cpuRow compares DynamoDB Local's CPU time with this process's during r,
// after its warm-up.
func cpuRow(r *run) report.Row {
	const metric = "DynamoDB Local's CPU ÷ the bench process's, after a warm-up"
	if r.cpu.err != nil || r.cpu.self <= 0 {
		return budget(r, metric, "not measured", fmt.Sprintf("≤ %.0f", maxDBCPURatio), false, fmt.Sprint(r.cpu.err))
	}
	ratio := r.cpu.db.Seconds() / r.cpu.self.Seconds()
	return budget(r, metric, fmt.Sprintf("%.2f (%.1f s ÷ %.1f s)", ratio, r.cpu.db.Seconds(), r.cpu.self.Seconds()),
		fmt.Sprintf("≤ %.0f", maxDBCPURatio), ratio <= maxDBCPURatio,
		"CPU time (utime+stime) of the JVM (/proc/<pid>/stat) and of this process (getrusage) from a quarter into the run to its end")
}

// referenceRow compares r's throughput with ref's, the same run on a
// table in a fresh DynamoDB Local.
func referenceRow(r, ref *run) report.Row {
	a, b := throughput(r), throughput(ref)
	ratio := 0.0
	if b > 0 {
		ratio = a / b
	}
	return budget(r, "throughput ÷ the same run on a fresh DynamoDB Local", fmt.Sprintf("%.2f (%.0f ÷ %.0f req/s)", ratio, a, b),
		fmt.Sprintf("≥ %.1f", minReferenceRatio), ratio >= minReferenceRatio,
		"the reference runs after the others, on a DynamoDB Local of its own that has served nothing else")
}
