package deposit

import (
	"errors"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func openDeposit() Deposit {
	return Deposit{
		ID: "dep", Status: CheckoutOpen, SessionID: "cs_test_1",
		CheckoutURL: "https://checkout.stripe.com/c/pay/cs_test_1", CheckoutExpiresAt: t0.Add(time.Hour),
		CreatedAt: t0,
	}
}

func TestDepositApply(t *testing.T) {
	t.Run("paid books, sets paid_at and drops the URL", func(t *testing.T) {
		d := openDeposit()
		at := t0.Add(5 * time.Minute)
		tr, err := d.Apply(EventPaid, at)
		if err != nil || !tr.Books() {
			t.Fatalf("Apply(paid) = %+v, %v; want a booking transition", tr, err)
		}
		if d.Status != Paid || !d.PaidAt.Equal(at) || d.CheckoutURL != "" {
			t.Errorf("after paid: status %s, paid_at %v, url %q; want paid, %v, \"\"", d.Status, d.PaidAt, d.CheckoutURL, at)
		}
		// A late expiry changes nothing, paid_at included.
		tr, err = d.Apply(EventExpired, at.Add(time.Hour))
		if err != nil || tr.Changed() || d.Status != Paid || !d.PaidAt.Equal(at) {
			t.Errorf("expired after paid = %+v, %v, status %s, paid_at %v; want no change", tr, err, d.Status, d.PaidAt)
		}
	})
	t.Run("expired fails and drops the URL", func(t *testing.T) {
		d := openDeposit()
		if _, err := d.Apply(EventExpired, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if d.Status != Failed || d.CheckoutURL != "" || !d.PaidAt.IsZero() {
			t.Errorf("after expired: %+v; want failed without URL or paid_at", d)
		}
	})
	t.Run("completed unpaid keeps pending without URL", func(t *testing.T) {
		d := openDeposit()
		tr, err := d.Apply(EventUnpaid, t0)
		if err != nil || tr.Webhooks() != nil || d.Status != Pending || d.CheckoutURL != "" {
			t.Errorf("after unpaid: %+v, webhooks %q, %v; want pending, none, no URL", d, tr.Webhooks(), err)
		}
	})
	t.Run("late refund books once", func(t *testing.T) {
		d := openDeposit()
		tr, _ := d.Apply(EventRefunded, t0.Add(time.Minute))
		if !slices.Equal(tr.Webhooks(), []string{WebhookDepositPaid, WebhookLeadBooked, WebhookDepositRefunded}) || d.PaidAt.IsZero() {
			t.Errorf("refund first: webhooks %q, paid_at %v", tr.Webhooks(), d.PaidAt)
		}
		tr, _ = d.Apply(EventPaid, t0.Add(2*time.Minute))
		if tr.Changed() || !d.PaidAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("paid after refund: %+v, paid_at %v; want no change", tr, d.PaidAt)
		}
	})
	t.Run("unknown event leaves the deposit alone", func(t *testing.T) {
		d := openDeposit()
		before := d
		if _, err := d.Apply("won", t0); !errors.Is(err, ErrUnknownEvent) {
			t.Errorf("Apply(won) = %v; want ErrUnknownEvent", err)
		}
		if d != before {
			t.Errorf("deposit changed on error: %+v", d)
		}
	})
}

func TestPayable(t *testing.T) {
	d := openDeposit()
	tests := []struct {
		name string
		mod  func(*Deposit)
		now  time.Time
		want bool
	}{
		{"open before expiry", func(*Deposit) {}, t0.Add(59 * time.Minute), true},
		{"open at expiry", func(*Deposit) {}, t0.Add(time.Hour), false},
		{"open without URL", func(d *Deposit) { d.CheckoutURL = "" }, t0, false},
		{"pending", func(d *Deposit) { d.Status = Pending }, t0, false},
		{"paid", func(d *Deposit) { d.Status = Paid }, t0, false},
		{"failed", func(d *Deposit) { d.Status = Failed }, t0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := d
			tt.mod(&d)
			if got := d.Payable(tt.now); got != tt.want {
				t.Errorf("Payable(%v) = %v; want %v", tt.now, got, tt.want)
			}
		})
	}
}

func TestNeedsReconcile(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Deposit)
		now  time.Time
		want bool
	}{
		{"just created", func(*Deposit) {}, t0.Add(30 * time.Second), false},
		{"a minute after creation", func(*Deposit) {}, t0.Add(time.Minute), true},
		{"reconciled 59 s ago", func(d *Deposit) { d.ReconciledAt = t0.Add(10 * time.Minute) }, t0.Add(10*time.Minute + 59*time.Second), false},
		{"reconciled a minute ago", func(d *Deposit) { d.ReconciledAt = t0.Add(10 * time.Minute) }, t0.Add(11 * time.Minute), true},
		{"pending", func(d *Deposit) { d.Status = Pending }, t0.Add(time.Hour), true},
		{"clock behind the record", func(d *Deposit) { d.ReconciledAt = t0.Add(time.Hour) }, t0.Add(30 * time.Minute), false},
		{"no session yet", func(d *Deposit) { d.SessionID = "" }, t0.Add(time.Hour), false},
		{"paid", func(d *Deposit) { d.Status = Paid }, t0.Add(time.Hour), false},
		{"failed", func(d *Deposit) { d.Status = Failed }, t0.Add(time.Hour), false},
		{"refunded", func(d *Deposit) { d.Status = Refunded }, t0.Add(time.Hour), false},
		{"disputed", func(d *Deposit) { d.Status = Disputed }, t0.Add(time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openDeposit()
			tt.mod(&d)
			if got := NeedsReconcile(d, tt.now); got != tt.want {
				t.Errorf("NeedsReconcile(%+v, %v) = %v; want %v", d, tt.now, got, tt.want)
			}
		})
	}
}
