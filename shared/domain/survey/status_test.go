package survey

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func TestNext(t *testing.T) {
	tests := []struct {
		name    string
		current Status
		ev      Event
		want    Status
		changed bool
	}{
		{"first upload starts recording", Invited, UploadStarted, Recording, true},
		{"more uploads change nothing", Recording, UploadStarted, Recording, false},
		{"finish while recording", Recording, FinishRequested, Processing, true},
		{"finish without any clip", Invited, FinishRequested, Processing, true},
		{"duplicate finish", Processing, FinishRequested, Processing, false},
		{"late upload after finish", Processing, UploadStarted, Processing, false},
		{"inventory built", Processing, InventoryBuilt, InventoryReady, true},
		{"no playable clip", Processing, NoPlayableClip, Failed, true},
		{"replayed inventory_built before finish", Recording, InventoryBuilt, InventoryReady, true},
		{"replayed failure before first upload", Invited, NoPlayableClip, Failed, true},
		{"ready absorbs upload", InventoryReady, UploadStarted, InventoryReady, false},
		{"ready absorbs finish", InventoryReady, FinishRequested, InventoryReady, false},
		{"ready absorbs duplicate", InventoryReady, InventoryBuilt, InventoryReady, false},
		{"ready is not turned into failed", InventoryReady, NoPlayableClip, InventoryReady, false},
		{"failed is not reopened by a late success", Failed, InventoryBuilt, Failed, false},
		{"failed absorbs upload", Failed, UploadStarted, Failed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := Next(tt.current, tt.ev)
			if err != nil {
				t.Fatalf("Next(%q, %q) error %v; want nil", tt.current, tt.ev, err)
			}
			if got != tt.want || changed != tt.changed {
				t.Errorf("Next(%q, %q) = %q, %v; want %q, %v", tt.current, tt.ev, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestNextErrors(t *testing.T) {
	tests := []struct {
		name    string
		current Status
		ev      Event
		want    error
	}{
		{"no survey", None, UploadStarted, ErrUnknownStatus},
		{"unknown status", Unknown, FinishRequested, ErrUnknownStatus},
		{"garbage status", "awaiting_recording", FinishRequested, ErrUnknownStatus},
		{"empty status", "", InventoryBuilt, ErrUnknownStatus},
		{"unknown event", Recording, "clip_deleted", ErrUnknownEvent},
		{"empty event", Invited, "", ErrUnknownEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := Next(tt.current, tt.ev)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Next(%q, %q) error %v; want %v", tt.current, tt.ev, err, tt.want)
			}
			if got != tt.current || changed {
				t.Errorf("Next(%q, %q) = %q, %v on error; want the current status unchanged", tt.current, tt.ev, got, changed)
			}
		})
	}
}

func TestStatusPredicates(t *testing.T) {
	tests := []struct {
		s           Status
		open, final bool
	}{
		{None, false, false}, {Invited, true, false}, {Recording, true, false}, {Processing, false, false},
		{InventoryReady, false, true}, {Failed, false, true}, {Unknown, false, false},
	}
	if len(tests) != len(Statuses) {
		t.Fatalf("test covers %d statuses; Statuses has %d", len(tests), len(Statuses))
	}
	for _, tt := range tests {
		t.Run(string(tt.s), func(t *testing.T) {
			if got := tt.s.Open(); got != tt.open {
				t.Errorf("%q.Open() = %v; want %v", tt.s, got, tt.open)
			}
			if got := tt.s.Final(); got != tt.final {
				t.Errorf("%q.Final() = %v; want %v", tt.s, got, tt.final)
			}
		})
	}
}

// apply runs events from Invited, failing t if the status ever moves
// backwards or leaves a final state, and returns the last status.
func apply(t *testing.T, events []Event) Status {
	t.Helper()
	s := Invited
	for i, ev := range events {
		next, changed, err := Next(s, ev)
		if err != nil {
			t.Fatalf("events %v: Next(%q, %q) error %v", events, s, ev, err)
		}
		if next.rank() < s.rank() || (s.Final() && next != s) || changed != (next != s) {
			t.Fatalf("events %v: step %d moved %q → %q (changed %v)", events, i, s, next, changed)
		}
		s = next
	}
	return s
}

// TestNextReplayedOutOfOrder is the property of issue 8: any permutation of
// a valid event sequence, with any events duplicated, never moves the
// status backwards and ends in the state the sequence in order ends in.
func TestNextReplayedOutOfOrder(t *testing.T) {
	valid := []struct {
		name   string
		events []Event
		want   Status
	}{
		{"ready", []Event{UploadStarted, UploadStarted, UploadStarted, FinishRequested, InventoryBuilt}, InventoryReady},
		{"failed", []Event{UploadStarted, FinishRequested, NoPlayableClip}, Failed},
		{"failed without clips", []Event{FinishRequested, NoPlayableClip}, Failed},
		{"still processing", []Event{UploadStarted, UploadStarted, FinishRequested}, Processing},
		{"still recording", []Event{UploadStarted, UploadStarted}, Recording},
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for _, tt := range valid {
		t.Run(tt.name, func(t *testing.T) {
			if got := apply(t, tt.events); got != tt.want {
				t.Fatalf("in order %v ends %q; want %q", tt.events, got, tt.want)
			}
			for range 2000 {
				seq := append([]Event(nil), tt.events...)
				for range rng.IntN(6) {
					seq = append(seq, tt.events[rng.IntN(len(tt.events))])
				}
				rng.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
				if got := apply(t, seq); got != tt.want {
					t.Fatalf("replayed as %v ends %q; want %q", seq, got, tt.want)
				}
			}
		})
	}
}

// FuzzNext: whatever events arrive, in whatever order, a survey never moves
// backwards, never leaves a final state, and stays in a known state.
func FuzzNext(f *testing.F) {
	f.Add([]byte{0, 1, 2})
	f.Add([]byte{3, 2, 1, 0, 0})
	f.Add([]byte{2, 3, 2, 3})
	events := []Event{UploadStarted, FinishRequested, InventoryBuilt, NoPlayableClip}
	f.Fuzz(func(t *testing.T, seq []byte) {
		evs := make([]Event, len(seq))
		for i, b := range seq {
			evs[i] = events[int(b)%len(events)]
		}
		if got := apply(t, evs); got.rank() == 0 {
			t.Errorf("events %v end in %q; want a stored state", evs, got)
		}
	})
}
