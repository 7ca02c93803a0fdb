package load

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// window is one key's clock-aligned minute, named by the epoch second it
// ends (X-RateLimit-Reset).
type window struct {
	key   int
	reset int64
}

// tally is what one run's samples add up to.
type tally struct {
	requests  int
	byStatus  map[int]int // 0 counts requests without a response
	latency   []time.Duration
	opLatency [numOps][]time.Duration
	fiveXX    int
	// unexpected counts answers the mix does not call for (other than 5xx
	// and 429), e.g. a 404 for a lead this client created, by "op status".
	unexpected map[string]int
	limited    int // 429s
	// noRetryAfter counts 429s without Retry-After.
	noRetryAfter int
	// replays counts replays answered 200; replaysSame those marked
	// Idempotent-Replayed with the original lead_id.
	replays, replaysSame int
	// attempts counts the requests each key-window counted (every response
	// with X-RateLimit-Reset); admitted those not answered 429.
	attempts, admitted map[window]int
}

// tallySamples adds up samples.
func tallySamples(samples []sample) tally {
	t := tally{byStatus: map[int]int{}, unexpected: map[string]int{}, attempts: map[window]int{}, admitted: map[window]int{}}
	t.latency = make([]time.Duration, 0, len(samples))
	for _, s := range samples {
		t.requests++
		t.byStatus[s.status]++
		t.latency = append(t.latency, s.latency)
		t.opLatency[s.op] = append(t.opLatency[s.op], s.latency)
		if s.reset != 0 {
			w := window{s.key, s.reset}
			t.attempts[w]++
			if s.status != http.StatusTooManyRequests {
				t.admitted[w]++
			}
		}
		switch {
		case s.status == 0:
		case s.status >= 500:
			t.fiveXX++
		case s.status == http.StatusTooManyRequests:
			t.limited++
			if !s.retryAfter {
				t.noRetryAfter++
			}
		case s.status != expectedStatus(s):
			t.unexpected[fmt.Sprintf("%s %d", opNames[s.op], s.status)]++
		case s.op == opReplay:
			t.replays++
			if s.replayed && s.leadID != "" && s.leadID == s.wantLead {
				t.replaysSame++
			}
		}
	}
	return t
}

// expectedStatus is the answer the mix calls for when the limit allows.
func expectedStatus(s sample) int {
	if s.op == opGet && s.expect404 {
		return http.StatusNotFound
	}
	return http.StatusOK
}

// unexpectedTotal is the number of unexpected answers.
func (t tally) unexpectedTotal() int {
	n := 0
	for _, c := range t.unexpected {
		n += c
	}
	return n
}

// busiest returns the largest number of requests any key-window counted.
func (t tally) busiest() int {
	n := 0
	for _, c := range t.attempts {
		n = max(n, c)
	}
	return n
}

// admittedPerWindow returns the admitted count of each window, in time
// order, for a run on a single key.
func (t tally) admittedPerWindow() (resets []int64, counts []int) {
	for w := range t.attempts {
		resets = append(resets, w.reset)
	}
	slices.Sort(resets)
	resets = slices.Compact(resets)
	for _, r := range resets {
		n := 0
		for w, c := range t.admitted {
			if w.reset == r {
				n += c
			}
		}
		counts = append(counts, n)
	}
	return resets, counts
}
