// Package report is the shape of `make bench`'s output: rows of metric,
// value, budget and verdict, and the statistics every timing row uses
// (median with min and max over repeated runs).
package report

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Row is one line of the benchmark table.
type Row struct {
	Section string // e.g. "Cold start", "DynamoDB cost", "Load", "Handler overhead"
	Metric  string
	Value   string
	Budget  string // "" when the row only reports
	// OK is nil for a row without a budget.
	OK   *bool
	Note string // shown under the table when not ok, or as context
}

// Verdict renders the row's status column.
func (r Row) Verdict() string {
	switch {
	case r.OK == nil:
		return "—"
	case *r.OK:
		return "ok"
	default:
		return "over budget"
	}
}

// Check returns a pointer to ok, for Row.OK.
func Check(ok bool) *bool { return &ok }

// Stats summarises repeated measurements.
type Stats struct {
	N                int
	Min, Median, Max time.Duration
}

// Summarise returns the statistics of ds (which it sorts).
func Summarise(ds []time.Duration) Stats {
	if len(ds) == 0 {
		return Stats{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stats{N: len(s), Min: s[0], Median: med, Max: s[len(s)-1]}
}

// Percentile returns the p-th percentile (0..100) of ds by nearest rank.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(p/100*float64(len(s))+0.5) - 1
	rank = max(0, min(rank, len(s)-1))
	return s[rank]
}

// String renders "median (min–max, n=N)" in milliseconds.
func (s Stats) String() string {
	return fmt.Sprintf("%s ms (min %s, max %s, n=%d)", ms(s.Median), ms(s.Min), ms(s.Max), s.N)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", Millis(d)) }

// Millis is d in milliseconds, to the microsecond.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Markdown renders rows as one table, sections in order of first
// appearance, with the notes of rows that are not ok beneath it.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| Section | Metric | Value | Budget | Status |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Section, r.Metric, r.Value, orDash(r.Budget), r.Verdict())
	}
	var notes []string
	for _, r := range rows {
		if r.Note != "" {
			notes = append(notes, fmt.Sprintf("- **%s — %s** (%s): %s", r.Section, r.Metric, r.Verdict(), r.Note))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n\n" + strings.Join(notes, "\n") + "\n")
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
