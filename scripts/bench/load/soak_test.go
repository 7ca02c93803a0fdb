package load

import (
	"os"
	"testing"
	"time"
)

// TestSoakRows: the throughput row compares the last window with the
// first, so a stack that slows as it writes fails it; any failed request
// fails the other row.
func TestSoakRows(t *testing.T) {
	// every returns completions every step over d.
	every := func(step, d time.Duration) []time.Duration {
		var out []time.Duration
		for at := step; at <= d; at += step {
			out = append(out, at)
		}
		return out
	}
	steady := soakResult{elapsed: 3 * time.Minute, done: every(10*time.Millisecond, 3*time.Minute)}
	steady.sent = int64(len(steady.done))
	// Fast for the first minute, then a tenth as fast.
	slowing := soakResult{elapsed: 3 * time.Minute, done: append(every(10*time.Millisecond, time.Minute),
		shift(every(100*time.Millisecond, 2*time.Minute), time.Minute)...)}
	failed := steady
	failed.failed, failed.firstFail = 1, "getLead answered 500"
	for _, tc := range []struct {
		name             string
		r                soakResult
		wantRate, wantOK bool
	}{
		{"steady", steady, true, true},
		{"slowing", slowing, false, true},
		{"a failure", failed, true, false},
	} {
		rows := tc.r.rows()
		if len(rows) != 2 || rows[0].OK == nil || rows[1].OK == nil {
			t.Fatalf("%s: rows %+v; want two with budgets", tc.name, rows)
		}
		if *rows[0].OK != tc.wantRate || *rows[1].OK != tc.wantOK {
			t.Errorf("%s: throughput ok %v (%s), failures ok %v; want %v, %v", tc.name, *rows[0].OK, rows[0].Value, *rows[1].OK, tc.wantRate, tc.wantOK)
		}
	}
}

func shift(ds []time.Duration, by time.Duration) []time.Duration {
	for i := range ds {
		ds[i] += by
	}
	return ds
}

func TestProcCPUReadsThisProcess(t *testing.T) {
	// Use some CPU first, so that the figure is past /proc's 10 ms ticks.
	for n := 0; ; n++ {
		if c, err := selfCPU(); err != nil || c > 50*time.Millisecond {
			break
		}
	}
	got, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	self, err := selfCPU()
	if err != nil {
		t.Fatal(err)
	}
	// Both count this process's CPU; /proc rounds to clock ticks and
	// was read first.
	if got <= 0 || got > self+clockTick {
		t.Errorf("procCPU(self) = %s; want > 0 and at most getrusage's %s", got, self)
	}
}
