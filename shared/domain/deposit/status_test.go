package deposit

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestParseStatus(t *testing.T) {
	for _, s := range Statuses {
		if got, err := ParseStatus(string(s)); got != s || err != nil {
			t.Errorf("ParseStatus(%q) = %q, %v; want %q, nil", s, got, err, s)
		}
	}
	for _, s := range []string{"", "open", "PAID", "none", "unknown", "checkout_open "} {
		if got, err := ParseStatus(s); !errors.Is(err, ErrUnknownStatus) {
			t.Errorf("ParseStatus(%q) = %q, %v; want ErrUnknownStatus", s, got, err)
		}
	}
}

func TestParseEvent(t *testing.T) {
	for _, e := range Events {
		if got, err := ParseEvent(string(e)); got != e || err != nil {
			t.Errorf("ParseEvent(%q) = %q, %v; want %q, nil", e, got, err, e)
		}
	}
	for _, s := range []string{"", "checkout.session.completed", "Paid", "failed"} {
		if got, err := ParseEvent(s); !errors.Is(err, ErrUnknownEvent) {
			t.Errorf("ParseEvent(%q) = %q, %v; want ErrUnknownEvent", s, got, err)
		}
	}
}

func TestPublicStatus(t *testing.T) {
	tests := []struct {
		in   Status
		want PublicStatus
	}{
		{CheckoutOpen, PublicPending},
		{Pending, PublicPending},
		{Failed, PublicFailed},
		{Paid, PublicPaid},
		{Refunded, PublicRefunded},
		{Disputed, PublicDisputed},
		{"", PublicUnknown},
		{"expired", PublicUnknown},
	}
	for _, tt := range tests {
		if got := tt.in.PublicStatus(); got != tt.want {
			t.Errorf("Status(%q).PublicStatus() = %q; want %q", tt.in, got, tt.want)
		}
	}
	// Every public status but none (no deposit at all) is reachable.
	for _, p := range PublicStatuses {
		reached := p == PublicNone
		for _, tt := range tests {
			reached = reached || tt.want == p
		}
		if !reached {
			t.Errorf("public status %q is reported for no status", p)
		}
	}
}

// TestApplyEveryPair spells out the whole machine: the status each event
// leads to from each status.
func TestApplyEveryPair(t *testing.T) {
	// want[from][event] = to
	want := map[Status]map[Event]Status{
		CheckoutOpen: {EventPaid: Paid, EventUnpaid: Pending, EventAsyncPaid: Paid, EventAsyncFailed: Failed, EventExpired: Failed, EventRefunded: Refunded, EventDisputed: Disputed},
		Pending:      {EventPaid: Paid, EventUnpaid: Pending, EventAsyncPaid: Paid, EventAsyncFailed: Failed, EventExpired: Failed, EventRefunded: Refunded, EventDisputed: Disputed},
		Failed:       {EventPaid: Paid, EventUnpaid: Failed, EventAsyncPaid: Paid, EventAsyncFailed: Failed, EventExpired: Failed, EventRefunded: Refunded, EventDisputed: Disputed},
		Paid:         {EventPaid: Paid, EventUnpaid: Paid, EventAsyncPaid: Paid, EventAsyncFailed: Paid, EventExpired: Paid, EventRefunded: Refunded, EventDisputed: Disputed},
		Refunded:     {EventPaid: Refunded, EventUnpaid: Refunded, EventAsyncPaid: Refunded, EventAsyncFailed: Refunded, EventExpired: Refunded, EventRefunded: Refunded, EventDisputed: Disputed},
		Disputed:     {EventPaid: Disputed, EventUnpaid: Disputed, EventAsyncPaid: Disputed, EventAsyncFailed: Disputed, EventExpired: Disputed, EventRefunded: Disputed, EventDisputed: Disputed},
	}
	for _, from := range Statuses {
		for _, e := range Events {
			t.Run(fmt.Sprintf("%s+%s", from, e), func(t *testing.T) {
				tr, err := Apply(from, e)
				if err != nil {
					t.Fatalf("Apply(%s, %s) error: %v", from, e, err)
				}
				if to := want[from][e]; tr.To != to || tr.From != from || tr.Event != e {
					t.Errorf("Apply(%s, %s) = %+v; want To %s", from, e, tr, to)
				}
				if tr.Changed() != (tr.To != from) {
					t.Errorf("Changed() = %v for %s -> %s", tr.Changed(), from, tr.To)
				}
			})
		}
	}
}

func TestApplyRefusesUnknownValues(t *testing.T) {
	if _, err := Apply("archived", EventPaid); !errors.Is(err, ErrUnknownStatus) {
		t.Errorf("Apply(unknown status) = %v; want ErrUnknownStatus", err)
	}
	if _, err := Apply(CheckoutOpen, "checkout.session.completed"); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("Apply(unknown event) = %v; want ErrUnknownEvent", err)
	}
}

func TestApplyTwiceChangesNothing(t *testing.T) {
	for _, from := range Statuses {
		for _, e := range Events {
			first, _ := Apply(from, e)
			second, err := Apply(first.To, e)
			if err != nil || second.Changed() || second.Webhooks() != nil || second.Books() {
				t.Errorf("Apply(%s, %s) after %s -> %s = %+v, %v; want no change", first.To, e, from, first.To, second, err)
			}
		}
	}
}

func TestTransitionEffects(t *testing.T) {
	tests := []struct {
		from Status
		e    Event
		to   Status
		book bool
		hook []string
	}{
		{CheckoutOpen, EventPaid, Paid, true, []string{"deposit.paid", "lead.booked"}},
		{CheckoutOpen, EventUnpaid, Pending, false, nil},
		{Pending, EventAsyncPaid, Paid, true, []string{"deposit.paid", "lead.booked"}},
		{Pending, EventAsyncFailed, Failed, false, []string{"deposit.failed"}},
		{CheckoutOpen, EventExpired, Failed, false, []string{"deposit.failed"}},
		{Paid, EventRefunded, Refunded, false, []string{"deposit.refunded"}},
		{Paid, EventDisputed, Disputed, false, []string{"deposit.disputed"}},
		{Refunded, EventDisputed, Disputed, false, []string{"deposit.disputed"}},
		{Failed, EventPaid, Paid, true, []string{"deposit.paid", "lead.booked"}},
		// The paid event is late: the refund proves the payment.
		{CheckoutOpen, EventRefunded, Refunded, true, []string{"deposit.paid", "lead.booked", "deposit.refunded"}},
		{Pending, EventDisputed, Disputed, true, []string{"deposit.paid", "lead.booked", "deposit.disputed"}},
		{Paid, EventExpired, Paid, false, nil},
		{Disputed, EventRefunded, Disputed, false, nil},
		{Paid, EventPaid, Paid, false, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s+%s", tt.from, tt.e), func(t *testing.T) {
			tr, err := Apply(tt.from, tt.e)
			if err != nil {
				t.Fatal(err)
			}
			if tr.To != tt.to || tr.Books() != tt.book || !slices.Equal(tr.Webhooks(), tt.hook) {
				t.Errorf("Apply(%s, %s) = to %s, books %v, webhooks %q; want %s, %v, %q",
					tt.from, tt.e, tr.To, tr.Books(), tr.Webhooks(), tt.to, tt.book, tt.hook)
			}
		})
	}
}

// run applies events in turn from checkout_open and returns the final
// status and how many transitions booked.
func run(t *testing.T, events []Event) (Status, int) {
	t.Helper()
	s, books := CheckoutOpen, 0
	for _, e := range events {
		tr, err := Apply(s, e)
		if err != nil {
			t.Fatalf("Apply(%s, %s): %v", s, e, err)
		}
		if tr.Books() {
			books++
		}
		s = tr.To
	}
	return s, books
}

// permutations returns every ordering of events.
func permutations(events []Event) [][]Event {
	if len(events) <= 1 {
		return [][]Event{slices.Clone(events)}
	}
	var out [][]Event
	for i := range events {
		rest := slices.Concat(events[:i], events[i+1:])
		for _, p := range permutations(rest) {
			out = append(out, append([]Event{events[i]}, p...))
		}
	}
	return out
}

// TestSequencesInOrderShuffledDuplicated runs the event sequences Stripe
// sends for each path of a deposit in order, in every other order, and
// with every event delivered twice: the final status is the same, and the
// lead is booked exactly once when the money was collected.
func TestSequencesInOrderShuffledDuplicated(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		want   Status
	}{
		{"card paid", []Event{EventPaid}, Paid},
		{"async paid", []Event{EventUnpaid, EventAsyncPaid}, Paid},
		{"async failed", []Event{EventUnpaid, EventAsyncFailed}, Failed},
		{"expired", []Event{EventExpired}, Failed},
		{"only completed unpaid", []Event{EventUnpaid}, Pending},
		{"paid then refunded", []Event{EventPaid, EventRefunded}, Refunded},
		{"paid then disputed", []Event{EventPaid, EventDisputed}, Disputed},
		{"async paid then refunded", []Event{EventUnpaid, EventAsyncPaid, EventRefunded}, Refunded},
		{"refunded then disputed", []Event{EventPaid, EventRefunded, EventDisputed}, Disputed},
		{"async paid, refunded, disputed", []Event{EventUnpaid, EventAsyncPaid, EventRefunded, EventDisputed}, Disputed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantBooks := 0
			if tt.want.collected() {
				wantBooks = 1
			}
			for _, order := range permutations(tt.events) {
				for _, seq := range [][]Event{order, slices.Concat(order, order), doubled(order)} {
					got, books := run(t, seq)
					if got != tt.want || books != wantBooks {
						t.Errorf("events %v: final %s, booked %d times; want %s, %d", seq, got, books, tt.want, wantBooks)
					}
				}
			}
		})
	}
}

// doubled delivers each event twice in a row.
func doubled(events []Event) []Event {
	var out []Event
	for _, e := range events {
		out = append(out, e, e)
	}
	return out
}
