package videolink

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestAdmit(t *testing.T) {
	base := time.Date(2026, 11, 23, 2, 59, 0, 0, time.UTC)
	// full is limit opens, one a second from base.
	full := func(limit int) []time.Time {
		var out []time.Time
		for i := range limit {
			out = append(out, base.Add(time.Duration(i)*time.Second))
		}
		return out
	}
	tests := []struct {
		name          string
		recent        []time.Time
		now           time.Time
		wantAdmitted  bool
		wantRemaining int
		wantReset     time.Time
		wantKept      int
	}{
		{name: "first open", now: base, wantAdmitted: true, wantRemaining: 19, wantReset: base.Add(time.Hour), wantKept: 1},
		{name: "21st just after the clock hour", recent: full(20), now: base.Add(65 * time.Second),
			wantReset: base.Add(time.Hour)},
		{name: "exactly an hour after the oldest", recent: full(20), now: base.Add(time.Hour),
			wantAdmitted: true, wantRemaining: 0, wantReset: base.Add(time.Hour + time.Second), wantKept: 20},
		{name: "a nanosecond short of the hour", recent: full(20), now: base.Add(time.Hour - 1),
			wantReset: base.Add(time.Hour)},
		{name: "old opens stop counting", recent: full(20), now: base.Add(time.Hour + 10*time.Second + 1),
			wantAdmitted: true, wantRemaining: 10, wantReset: base.Add(time.Hour + 11*time.Second), wantKept: 10},
		{name: "reset rounds up to the second", recent: []time.Time{base.Add(time.Millisecond)}, now: base.Add(time.Minute),
			wantAdmitted: true, wantRemaining: 18, wantReset: base.Add(time.Hour + time.Second), wantKept: 2},
		{name: "an open from a clock ahead still counts", recent: append(full(19), base.Add(2*time.Hour)), now: base.Add(30 * time.Minute),
			wantReset: base.Add(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, u := Admit(tt.recent, tt.now, OpensPerHour)
			if u.Admitted != tt.wantAdmitted || u.Reset != tt.wantReset.Unix() || u.Limit != OpensPerHour || u.Period != "hour" {
				t.Fatalf("Admit = %+v; want admitted %v, reset %s", u, tt.wantAdmitted, tt.wantReset)
			}
			if !tt.wantAdmitted {
				return
			}
			if u.Remaining != tt.wantRemaining || len(kept) != tt.wantKept {
				t.Errorf("remaining %d, kept %d; want %d and %d", u.Remaining, len(kept), tt.wantRemaining, tt.wantKept)
			}
			for i := 1; i < len(kept); i++ {
				if kept[i].Before(kept[i-1]) {
					t.Errorf("kept %v; want oldest first", kept)
				}
			}
		})
	}
}

// TestAdmitNoHourServesMore drives Admit with random bursts over a day and
// checks it against a count of the admitted opens: no 60-minute span
// serves more than the limit, and an open is refused only when the hour
// before it already served the limit, with a Reset that admits.
func TestAdmitNoHourServesMore(t *testing.T) {
	const limit = OpensPerHour
	rng := rand.New(rand.NewPCG(23, 5))
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	var recent, served []time.Time
	inHourBefore := func(at time.Time) int {
		n := 0
		for _, s := range served {
			if d := at.Sub(s); d >= 0 && d < OpenWindow {
				n++
			}
		}
		return n
	}
	refused := 0
	for range 3000 {
		now = now.Add(time.Duration(rng.Int64N(int64(40 * time.Second))))
		kept, u := Admit(recent, now, limit)
		before := inHourBefore(now)
		if !u.Admitted {
			refused++
			if before < limit {
				t.Fatalf("refused at %s with %d served in the hour before; want admitted", now, before)
			}
			at := time.Unix(u.Reset, 0)
			if _, again := Admit(recent, at, limit); !again.Admitted || !at.After(now) {
				t.Fatalf("refused at %s: Reset %s does not admit", now, at)
			}
			continue
		}
		if before >= limit {
			t.Fatalf("admitted at %s with %d served in the hour before", now, before)
		}
		if len(kept) > limit || u.Remaining != limit-before-1 {
			t.Fatalf("at %s: kept %d, remaining %d; want ≤ %d kept, %d remaining", now, len(kept), u.Remaining, limit, limit-before-1)
		}
		recent, served = kept, append(served, now)
	}
	for i := limit; i < len(served); i++ {
		if served[i].Sub(served[i-limit]) < OpenWindow {
			t.Fatalf("opens %s … %s: %d served within an hour", served[i-limit], served[i], limit+1)
		}
	}
	if refused == 0 || len(served) < 100 {
		t.Fatalf("%d served, %d refused: the bursts never reached the limit", len(served), refused)
	}
}
