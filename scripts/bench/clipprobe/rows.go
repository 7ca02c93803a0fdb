package clipprobe

import (
	"fmt"
	"slices"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
)

// rowsOf turns one container's measurements into its rows: per clip the
// time of one Probe (with time per MB, requests and bytes read) and the
// bytes it allocated (cap MemoryCap on the largest sample), then the ratio
// of the large clip's median allocation to the small one's (budget
// MemoryRatioBudget).
func rowsOf(small, large measured) []report.Row {
	var rows []report.Row
	for _, m := range []measured{small, large} {
		rows = append(rows, timeRow(m), allocRow(m))
	}
	sm, lm := median(allocs(small.samples)), median(allocs(large.samples))
	ratio := 0.0
	if sm > 0 {
		ratio = float64(lm) / float64(sm)
	}
	return append(rows, report.Row{
		Section: Section, Metric: fmt.Sprintf("%s: heap allocated, %s ÷ %s clip", small.c.name, sizeName(large.size), sizeName(small.size)),
		Value:  fmt.Sprintf("%.2f× (%s ÷ %s, medians)", ratio, kib(lm), kib(sm)),
		Budget: fmt.Sprintf("≤ %.1f×", MemoryRatioBudget), OK: report.Check(sm > 0 && ratio <= MemoryRatioBudget),
		Note: fmt.Sprintf("bytes allocated during one Probe over S3 (runtime/metrics %s, every goroutine: probe, SDK, HTTP transport): "+
			"the heap's growth if no GC ran, an upper bound of what the probe holds at its peak; %s padded with zeros that every reader skips (%s).",
			allocsMetric, small.c.fixture, small.c.padding),
	})
}

func timeRow(m measured) report.Row {
	st := report.Summarise(durations(m.samples))
	mb := float64(m.size) / 1e6
	last := m.samples[len(m.samples)-1]
	return report.Row{
		Section: Section, Metric: fmt.Sprintf("%s %s: time of one Probe over S3", m.c.name, sizeName(m.size)),
		Value: fmt.Sprintf("%s; %.2f µs per MB; %d ranged GETs, %s read", st, float64(st.Median.Nanoseconds())/1e3/mb,
			last.requests, kib(uint64(last.bytes))),
	}
}

func allocRow(m measured) report.Row {
	a := allocs(m.samples)
	top := slices.Max(a)
	r := report.Row{
		Section: Section, Metric: fmt.Sprintf("%s %s: heap allocated during one Probe", m.c.name, sizeName(m.size)),
		Value:  fmt.Sprintf("%s (min %s, max %s, n=%d)", kib(median(a)), kib(slices.Min(a)), kib(top), len(a)),
		Budget: fmt.Sprintf("max ≤ %d MiB", MemoryCap>>20), OK: report.Check(top <= MemoryCap),
	}
	if !*r.OK {
		r.Note = fmt.Sprintf("the largest probe allocated %d bytes, over the %d MiB cap.", top, MemoryCap>>20)
	}
	return r
}

func durations(ss []probeSample) []time.Duration {
	d := make([]time.Duration, len(ss))
	for i, s := range ss {
		d[i] = s.took
	}
	return d
}

func allocs(ss []probeSample) []uint64 {
	a := make([]uint64, len(ss))
	for i, s := range ss {
		a[i] = s.alloc
	}
	return a
}

// median returns the median of a (the lower middle value for an even
// count), or 0 when a is empty.
func median(a []uint64) uint64 {
	if len(a) == 0 {
		return 0
	}
	s := slices.Clone(a)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func kib(n uint64) string { return fmt.Sprintf("%.1f KiB", float64(n)/1024) }

func sizeName(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
