package deposit

import (
	"errors"
	"slices"
	"testing"
)

// eventsFrom decodes fuzz bytes into events: each byte picks one of Events
// or, for the last value, an event this package does not know.
func eventsFrom(data []byte) []Event {
	out := make([]Event, len(data))
	for i, b := range data {
		n := int(b) % (len(Events) + 1)
		if n == len(Events) {
			out[i] = "bogus"
			continue
		}
		out[i] = Events[n]
	}
	return out
}

// FuzzApply applies any sequence of events, known and unknown, from any
// status: it never panics; unknown events fail and change nothing; a
// status never moves down; a collected deposit (paid, refunded, disputed)
// stays collected and leaves paid only to refunded or disputed; the lead
// is booked at most once; an event applied twice in a row changes nothing
// the second time; and the final status does not depend on the order
// (the sequence reversed ends the same).
func FuzzApply(f *testing.F) {
	f.Add(uint8(0), []byte{0, 4, 5, 6})
	f.Add(uint8(1), []byte{1, 2, 3, 7, 1})
	f.Add(uint8(3), []byte{4, 3, 0, 6, 5})
	f.Add(uint8(9), []byte{})
	f.Fuzz(func(t *testing.T, start uint8, data []byte) {
		from := Status("bogus")
		if int(start) < len(Statuses) {
			from = Statuses[start]
		}
		events := eventsFrom(data)
		final, err := runChecked(t, from, events)
		if from.rank() < 0 {
			if err == nil && len(events) > 0 {
				t.Fatalf("events %v from unknown status %q: no error", events, from)
			}
			return
		}
		reversed := slices.Clone(events)
		slices.Reverse(reversed)
		if back, _ := runChecked(t, from, reversed); back != final {
			t.Fatalf("events %v end in %s, reversed in %s", events, final, back)
		}
	})
}

// runChecked applies events from status s, checking each step, and
// returns the final status and the first error.
func runChecked(t *testing.T, s Status, events []Event) (Status, error) {
	var first error
	books := 0
	for _, e := range events {
		tr, err := Apply(s, e)
		if err != nil {
			if !errors.Is(err, ErrUnknownEvent) && !errors.Is(err, ErrUnknownStatus) {
				t.Fatalf("Apply(%s, %s) = %v; want an unknown-value error", s, e, err)
			}
			if tr != (Transition{}) {
				t.Fatalf("Apply(%s, %s) failed but returned %+v", s, e, tr)
			}
			if first == nil {
				first = err
			}
			continue
		}
		if tr.To.rank() < s.rank() {
			t.Fatalf("Apply(%s, %s) moved back to %s", s, e, tr.To)
		}
		if s.collected() && !tr.To.collected() {
			t.Fatalf("Apply(%s, %s) left the collected states for %s", s, e, tr.To)
		}
		if s == Paid && tr.Changed() && tr.To != Refunded && tr.To != Disputed {
			t.Fatalf("Apply(paid, %s) = %s; paid may only become refunded or disputed", e, tr.To)
		}
		if tr.Books() {
			books++
		}
		again, err := Apply(tr.To, e)
		if err != nil || again.Changed() {
			t.Fatalf("Apply(%s, %s) twice: second = %+v, %v; want no change", s, e, again, err)
		}
		s = tr.To
	}
	if books > 1 {
		t.Fatalf("events %v booked the lead %d times", events, books)
	}
	return s, first
}
