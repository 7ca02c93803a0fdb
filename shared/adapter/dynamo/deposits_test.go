package dynamo

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// acceptedLead stores tn's lead leadID with a quote accepted at t0+1h (the
// lead accepted) and returns the quote.
func acceptedLead(t testing.TB, s *Store, tn auth.Tenant, leadID string) quote.Quote {
	t.Helper()
	q := quotedLead(t, s, tn, leadID, quote.NonBinding)
	d := decide(t, q, t0.Add(time.Hour))
	if err := s.AcceptQuote(context.Background(), tn, accepted(d)); err != nil {
		t.Fatalf("AcceptQuote: %v", err)
	}
	return d.Quote
}

// newDeposit returns a deposit id of tn's lead for quote q, its checkout
// open since at.
func newDeposit(tn auth.Tenant, id string, q quote.Quote, at time.Time) deposit.Deposit {
	return deposit.Deposit{
		ID: id, PartnerID: tn.PartnerID, LeadID: q.LeadID, QuoteShareLinkID: q.ShareLinkID, ConnectedAccount: "acct_1Nv0FGQ9RKHgCVdK",
		Status: deposit.CheckoutOpen, AmountCents: 25_000, Currency: "usd", SessionID: "cs_test_" + id,
		CheckoutURL: "https://checkout.stripe.com/c/pay/cs_test_" + id, CheckoutExpiresAt: at.Add(23*time.Hour + 59*time.Minute).Truncate(time.Second),
		CreatedAt: at,
	}
}

// newDepositWrite is createDeposit's write of d on a lead in status from
// whose deposit is prev ("": none).
func newDepositWrite(d deposit.Deposit, quoteID, prev string, from lead.Status) record.NewDeposit {
	return record.NewDeposit{Deposit: d, QuoteID: quoteID, Token: pageToken(d.LeadID, quoteID, d.CreatedAt),
		PrevDepositID: prev, LeadFrom: from, LeadTo: lead.DepositPending, At: d.CreatedAt}
}

// leadWithDeposit stores tn's lead leadID, accepted, with a deposit id in
// checkout, and returns the deposit.
func leadWithDeposit(t testing.TB, s *Store, tn auth.Tenant, leadID, id string) deposit.Deposit {
	t.Helper()
	q := acceptedLead(t, s, tn, leadID)
	d := newDeposit(tn, id, q, t0.Add(2*time.Hour))
	if err := s.PutDeposit(context.Background(), tn, newDepositWrite(d, q.ID, "", lead.Accepted)); err != nil {
		t.Fatalf("PutDeposit: %v", err)
	}
	return d
}

// change applies event e at at to d as the Stripe receiver would, with
// Stripe event id evt ("": a reconciliation) and PaymentIntent pi.
func change(t testing.TB, tn auth.Tenant, d deposit.Deposit, e deposit.Event, evt, pi string, at time.Time) record.DepositChange {
	t.Helper()
	after := d
	tr, err := after.Apply(e, at)
	if err != nil {
		t.Fatal(err)
	}
	if after.PaymentIntentID == "" {
		after.PaymentIntentID = pi
	}
	events, err := webhook.DepositEvents(string(tn.Mode), after, tr, string(lead.Booked), at)
	if err != nil {
		t.Fatal(err)
	}
	return record.DepositChange{Before: d, After: after, Transition: tr, StripeEventID: evt, Events: events, At: at}
}

// snapshot returns the stored items (pk, sk) of keys, in order.
func snapshot(t testing.TB, s *Store, keys ...[2]string) []map[string]types.AttributeValue {
	t.Helper()
	out := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		out[i] = rawItem(t, s, k[0], k[1])
	}
	return out
}

func key2(pk, sk string) [2]string { return [2]string{pk, sk} }

func TestDepositRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	q := acceptedLead(t, s, quoteTenant, "lead_1")
	d := newDeposit(quoteTenant, "dep_1", q, t0.Add(2*time.Hour))
	w := newDepositWrite(d, q.ID, "", lead.Accepted)
	if err := s.PutDeposit(ctx, quoteTenant, w); err != nil {
		t.Fatalf("PutDeposit: %v", err)
	}
	got, err := s.GetDeposit(ctx, quoteTenant, "dep_1")
	if err != nil || !reflect.DeepEqual(got, d) {
		t.Fatalf("GetDeposit = %+v, %v; want %+v", got, err, d)
	}
	ql := quoteLead(t, s, quoteTenant, "lead_1")
	if want := (&record.DepositRef{DepositID: "dep_1", Status: deposit.CheckoutOpen}); !reflect.DeepEqual(ql.Deposit, want) ||
		ql.Status != lead.DepositPending || !ql.UpdatedAt.Equal(w.At) || ql.Quote == nil || ql.Quote.Stage != quote.StageAccepted {
		t.Errorf("lead status %s, updated_at %s, deposit %+v, quote %+v; want deposit_pending, %s, %+v, the accepted quote", ql.Status, ql.UpdatedAt, ql.Deposit, ql.Quote, w.At, want)
	}
	if got, want := gsi1SK(t, s, quoteTenant, "lead_1"), lead.FormatTime(w.At)+"#lead_1"; got != want {
		t.Errorf("gsi1sk = %q; want %q", got, want)
	}
	if _, ls := leadView(t, s, quoteTenant, "lead_1"); ls.Deposit == nil || ls.Deposit.Status != deposit.CheckoutOpen {
		t.Errorf("GetLeadWithSurvey deposit %+v; want dep_1 checkout_open", ls.Deposit)
	}
	g, _, err := s.AdmitQuoteToken(ctx, w.Token.Hash, t0, 10)
	if err != nil || g.LeadID != "lead_1" || g.QuoteID != q.ID {
		t.Errorf("the return page token resolves to %+v, %v; want lead_1's quote", g, err)
	}

	t.Run("every field", func(t *testing.T) {
		putLeadIn(t, s, quoteTenant, "lead_full", lead.New)
		full := newDeposit(quoteTenant, "dep_full", buildQuote("q_full", "lead_full", quote.Binding, t0), t0)
		full.Status, full.CheckoutURL, full.PaymentIntentID = deposit.Paid, "", "pi_3MtwBwLkdIwHu7ix28a3tqPa"
		full.PaidAt, full.ReconciledAt = t0.Add(time.Hour+time.Microsecond), t0.Add(2*time.Hour+3*time.Microsecond)
		if err := putItem(ctx, s, newDepositItem(quoteTenant, full)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetDeposit(ctx, quoteTenant, "dep_full"); err != nil || !reflect.DeepEqual(got, full) {
			t.Errorf("GetDeposit = %+v, %v; want %+v", got, err, full)
		}
	})
	t.Run("another tenant", func(t *testing.T) {
		for _, tn := range []auth.Tenant{{PartnerID: quoteTenant.PartnerID, Mode: auth.Live}, {PartnerID: "ptn_other", Mode: auth.Test}} {
			_, err := s.GetDeposit(ctx, tn, "dep_1")
			wantCode(t, err, errcode.NotFound)
		}
		_, err := s.GetDeposit(ctx, quoteTenant, "dep_nobody")
		wantCode(t, err, errcode.NotFound)
	})
}

func TestPutDepositConditions(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	q := acceptedLead(t, s, quoteTenant, "lead_1")
	first := leadWithDeposit(t, s, quoteTenant, "lead_2", "dep_first")
	at := t0.Add(3 * time.Hour)
	next := func(leadQuote quote.Quote, quoteID, prev string, from lead.Status) record.NewDeposit {
		return newDepositWrite(newDeposit(quoteTenant, "dep_new", leadQuote, at), quoteID, prev, from)
	}
	q2, err := s.GetQuoteLead(ctx, quoteTenant, "lead_2")
	if err != nil {
		t.Fatal(err)
	}
	lead2Quote := quote.Quote{ID: q2.Quote.QuoteID, LeadID: "lead_2", ShareLinkID: q2.Quote.ShareLinkID}
	nobody := quote.Quote{ID: "q_x", LeadID: "lead_nobody", ShareLinkID: "share-q_x"}
	tests := []struct {
		name   string
		tenant auth.Tenant
		w      record.NewDeposit
		code   errcode.Code
		cause  error
	}{
		{"unknown lead", quoteTenant, next(nobody, "q_x", "", lead.Accepted), errcode.NotFound, nil},
		{"another tenant's lead", auth.Tenant{PartnerID: quoteTenant.PartnerID, Mode: auth.Live}, next(q, q.ID, "", lead.Accepted), errcode.NotFound, nil},
		{"lead status changed", quoteTenant, next(q, q.ID, "", lead.Quoted), errcode.Conflict, ErrChanged},
		{"lead's quote changed", quoteTenant, next(q, "q_other", "", lead.Accepted), errcode.Conflict, ErrChanged},
		{"lead's deposit changed (none read)", quoteTenant, next(lead2Quote, lead2Quote.ID, "", lead.DepositPending), errcode.Conflict, ErrChanged},
		{"lead's deposit changed (another read)", quoteTenant, next(lead2Quote, lead2Quote.ID, "dep_older", lead.DepositPending), errcode.Conflict, ErrChanged},
		{"taken deposit id", quoteTenant, func() record.NewDeposit {
			w := next(lead2Quote, lead2Quote.ID, first.ID, lead.DepositPending)
			w.Deposit.ID = first.ID
			return w
		}(), errcode.Conflict, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			w.Deposit.PartnerID = tt.tenant.PartnerID
			lpk, lsk := leadKey(quoteTenant, w.Deposit.LeadID)
			dpk, dsk := depositKey(tt.tenant, w.Deposit.ID)
			tpk, tsk := quoteTokenKey(w.Token.Hash)
			keys := [][2]string{key2(lpk, lsk), key2(dpk, dsk), key2(tpk, tsk)}
			before := snapshot(t, s, keys...)
			err := s.PutDeposit(ctx, tt.tenant, w)
			wantCode(t, err, tt.code)
			if tt.cause != nil {
				wantCause(t, err, tt.code, tt.cause)
			} else if errors.Is(err, ErrChanged) {
				t.Errorf("err = %v; want no ErrChanged", err)
			}
			if after := snapshot(t, s, keys...); !reflect.DeepEqual(after, before) {
				t.Error("the lead, the deposit or the token record changed; want nothing written")
			}
		})
	}
	t.Run("a new deposit replacing the lead's", func(t *testing.T) {
		w := next(lead2Quote, lead2Quote.ID, first.ID, lead.DepositPending)
		if err := s.PutDeposit(ctx, quoteTenant, w); err != nil {
			t.Fatalf("PutDeposit: %v", err)
		}
		if ql := quoteLead(t, s, quoteTenant, "lead_2"); ql.Deposit == nil || ql.Deposit.DepositID != "dep_new" {
			t.Errorf("lead deposit %+v; want dep_new", ql.Deposit)
		}
	})
	t.Run("a deposit of another partner", func(t *testing.T) {
		w := next(q, q.ID, "", lead.Accepted)
		w.Deposit.PartnerID = "ptn_other"
		if err := s.PutDeposit(ctx, quoteTenant, w); err == nil || errcode.As(err) != nil {
			t.Errorf("PutDeposit = %v; want a plain error (the caller's bug)", err)
		}
	})
}

func TestMarkReconciled(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	d := leadWithDeposit(t, s, quoteTenant, "lead_1", "dep_1")
	now := t0.Add(5 * time.Hour)

	// Two readers of the same deposit race: exactly one wins.
	stores := []*Store{s, other(t, s)}
	won := make([]bool, len(stores))
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			won[i], errs[i] = st.MarkReconciled(ctx, quoteTenant, d, now.Add(time.Duration(i)*time.Microsecond))
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || won[0] == won[1] {
		t.Fatalf("MarkReconciled = %v (%v), %v (%v); want exactly one true", won[0], errs[0], won[1], errs[1])
	}
	winner := 0
	if won[1] {
		winner = 1
	}
	got, err := s.GetDeposit(ctx, quoteTenant, "dep_1")
	if want := now.Add(time.Duration(winner) * time.Microsecond); err != nil || !got.ReconciledAt.Equal(want) {
		t.Fatalf("reconciled_at %s, %v; want the winner's %s", got.ReconciledAt, err, want)
	}

	later := now.Add(time.Minute)
	if ok, err := s.MarkReconciled(ctx, quoteTenant, d, later); ok || err != nil {
		t.Errorf("with the stale (zero) reconciled_at: %v, %v; want false, nil", ok, err)
	}
	if ok, err := s.MarkReconciled(ctx, quoteTenant, got, later); !ok || err != nil {
		t.Errorf("with the stored reconciled_at: %v, %v; want true, nil", ok, err)
	}
	got2, _ := s.GetDeposit(ctx, quoteTenant, "dep_1")
	if !got2.ReconciledAt.Equal(later) {
		t.Errorf("reconciled_at %s; want %s", got2.ReconciledAt, later)
	}
	moved := got2
	moved.Status = deposit.Pending
	if ok, err := s.MarkReconciled(ctx, quoteTenant, moved, later.Add(time.Minute)); ok || err != nil {
		t.Errorf("with another status: %v, %v; want false, nil", ok, err)
	}
	if got3, _ := s.GetDeposit(ctx, quoteTenant, "dep_1"); !reflect.DeepEqual(got3, got2) {
		t.Errorf("refused marks changed the deposit: %+v; want %+v", got3, got2)
	}
	_, err = s.MarkReconciled(ctx, auth.Tenant{PartnerID: "ptn_other", Mode: auth.Test}, got2, later)
	wantCode(t, err, errcode.NotFound)
}

func TestApplyDepositBooks(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	d := leadWithDeposit(t, s, quoteTenant, "lead_1", "dep_1")
	at := t0.Add(3 * time.Hour)
	ch := change(t, quoteTenant, d, deposit.EventPaid, "evt_paid_1", "pi_1", at)
	if len(ch.Events) != 2 {
		t.Fatalf("events %v; want deposit.paid and lead.booked", ch.Events)
	}
	if err := s.ApplyDeposit(ctx, quoteTenant, ch); err != nil {
		t.Fatalf("ApplyDeposit: %v", err)
	}
	got, err := s.GetDeposit(ctx, quoteTenant, "dep_1")
	if err != nil || !reflect.DeepEqual(got, ch.After) {
		t.Fatalf("GetDeposit = %+v, %v; want %+v", got, err, ch.After)
	}
	ql := quoteLead(t, s, quoteTenant, "lead_1")
	if ql.Status != lead.Booked || ql.Deposit == nil || ql.Deposit.Status != deposit.Paid || !ql.UpdatedAt.Equal(at) {
		t.Errorf("lead status %s, deposit %+v, updated_at %s; want booked, paid, %s", ql.Status, ql.Deposit, ql.UpdatedAt, at)
	}
	if got, want := gsi1SK(t, s, quoteTenant, "lead_1"), lead.FormatTime(at)+"#lead_1"; got != want {
		t.Errorf("gsi1sk = %q; want %q", got, want)
	}
	for _, e := range ch.Events {
		if got, err := s.GetEvent(ctx, quoteTenant, e.ID); err != nil || got.Type != e.Type {
			t.Errorf("event %s: %+v, %v; want it owed", e.ID, got, err)
		}
	}
	if seen, err := s.StripeEventSeen(ctx, "evt_paid_1"); !seen || err != nil {
		t.Errorf("StripeEventSeen = %v, %v; want true", seen, err)
	}
	if seen, err := s.StripeEventSeen(ctx, "evt_other"); seen || err != nil {
		t.Errorf("StripeEventSeen(unknown) = %v, %v; want false", seen, err)
	}
	tn, id, found, err := s.DepositByPaymentIntent(ctx, auth.Test, "pi_1")
	if !found || err != nil || tn != quoteTenant || id != "dep_1" {
		t.Errorf("DepositByPaymentIntent = %+v, %q, %v, %v; want the tenant's dep_1", tn, id, found, err)
	}
	if _, _, found, err := s.DepositByPaymentIntent(ctx, auth.Live, "pi_1"); found || err != nil {
		t.Errorf("DepositByPaymentIntent in live = %v, %v; want not found", found, err)
	}

	lpk, lsk := leadKey(quoteTenant, "lead_1")
	dpk, dsk := depositKey(quoteTenant, "dep_1")
	keys := [][2]string{key2(lpk, lsk), key2(dpk, dsk)}
	t.Run("the same event again", func(t *testing.T) {
		before := snapshot(t, s, keys...)
		for _, redelivery := range []record.DepositChange{
			change(t, quoteTenant, got, deposit.EventPaid, "evt_paid_1", "pi_1", at.Add(time.Minute)), // read after the first
			change(t, quoteTenant, d, deposit.EventPaid, "evt_paid_1", "pi_1", at.Add(time.Minute)),   // read before it
		} {
			err := s.ApplyDeposit(ctx, quoteTenant, redelivery)
			if !errors.Is(err, ErrDuplicate) {
				t.Errorf("ApplyDeposit of a redelivery from %s = %v; want ErrDuplicate", redelivery.Before.Status, err)
			}
		}
		if !reflect.DeepEqual(snapshot(t, s, keys...), before) {
			t.Error("a redelivery changed the lead or the deposit; want nothing written")
		}
	})
	t.Run("a stale read with a new event", func(t *testing.T) {
		before := snapshot(t, s, keys...)
		err := s.ApplyDeposit(ctx, quoteTenant, change(t, quoteTenant, d, deposit.EventPaid, "evt_paid_2", "pi_1", at.Add(time.Minute)))
		wantCause(t, err, errcode.Conflict, ErrChanged)
		if seen, _ := s.StripeEventSeen(ctx, "evt_paid_2"); seen || !reflect.DeepEqual(snapshot(t, s, keys...), before) {
			t.Errorf("the refused change wrote something (event seen %v); want nothing written", seen)
		}
	})
	t.Run("an event that changes nothing", func(t *testing.T) {
		before := snapshot(t, s, keys...)
		ch := change(t, quoteTenant, got, deposit.EventUnpaid, "evt_unpaid", "", at.Add(time.Minute))
		if ch.Transition.Changed() {
			t.Fatal("unpaid after paid changes the deposit; want no change")
		}
		if err := s.ApplyDeposit(ctx, quoteTenant, ch); err != nil {
			t.Fatalf("ApplyDeposit: %v", err)
		}
		if seen, _ := s.StripeEventSeen(ctx, "evt_unpaid"); !seen {
			t.Error("the event's dedupe record was not written")
		}
		if !reflect.DeepEqual(snapshot(t, s, keys...), before) {
			t.Error("a change that moves nothing changed the lead or the deposit")
		}
		err := s.ApplyDeposit(ctx, quoteTenant, ch)
		if !errors.Is(err, ErrDuplicate) {
			t.Errorf("again: %v; want ErrDuplicate", err)
		}
	})
	t.Run("a dispute found by its PaymentIntent", func(t *testing.T) {
		tn, id, found, err := s.DepositByPaymentIntent(ctx, auth.Test, "pi_1")
		if err != nil || !found {
			t.Fatal(found, err)
		}
		cur, err := s.GetDeposit(ctx, tn, id)
		if err != nil {
			t.Fatal(err)
		}
		ch := change(t, tn, cur, deposit.EventDisputed, "evt_dispute", "", at.Add(time.Hour))
		if err := s.ApplyDeposit(ctx, tn, ch); err != nil {
			t.Fatalf("ApplyDeposit: %v", err)
		}
		ql := quoteLead(t, s, quoteTenant, "lead_1")
		if ql.Status != lead.Booked || ql.Deposit.Status != deposit.Disputed {
			t.Errorf("lead %s, deposit %s; want booked, disputed", ql.Status, ql.Deposit.Status)
		}
		if e, err := s.GetEvent(ctx, tn, "evt_dep_1_deposit.disputed"); err != nil || e.Type != webhook.DepositDisputed {
			t.Errorf("dispute event %+v, %v; want deposit.disputed owed", e, err)
		}
	})
}

func TestApplyDepositLeavesTheLead(t *testing.T) {
	ctx := context.Background()
	at := t0.Add(3 * time.Hour)
	t.Run("lost", func(t *testing.T) {
		s := newStore(t)
		d := leadWithDeposit(t, s, quoteTenant, "lead_1", "dep_1")
		if _, err := s.SetLeadStatus(ctx, quoteTenant, "lead_1", lead.Lost, t0.Add(150*time.Minute)); err != nil {
			t.Fatal(err)
		}
		ch := change(t, quoteTenant, d, deposit.EventPaid, "evt_1", "pi_1", at)
		if err := s.ApplyDeposit(ctx, quoteTenant, ch); err != nil {
			t.Fatalf("ApplyDeposit: %v", err)
		}
		if got, _ := s.GetDeposit(ctx, quoteTenant, "dep_1"); got.Status != deposit.Paid {
			t.Errorf("deposit %s; want paid", got.Status)
		}
		ql := quoteLead(t, s, quoteTenant, "lead_1")
		if ql.Status != lead.Lost || ql.Deposit.Status != deposit.Paid || !ql.UpdatedAt.Equal(at) {
			t.Errorf("lead %s, deposit %s, updated_at %s; want lost kept, paid, %s", ql.Status, ql.Deposit.Status, ql.UpdatedAt, at)
		}
		if e, err := s.GetEvent(ctx, quoteTenant, "evt_dep_1_deposit.paid"); err != nil {
			t.Errorf("deposit.paid: %v; want it owed", err)
		} else if !strings.Contains(string(e.Data), `"lead_status":"lost"`) {
			t.Errorf("deposit.paid data %s; want lead_status lost (the lead was not booked)", e.Data)
		}
		_, err := s.GetEvent(ctx, quoteTenant, "evt_dep_1_lead.booked")
		wantCode(t, err, errcode.NotFound)
	})
	t.Run("another deposit is the lead's", func(t *testing.T) {
		s := newStore(t)
		d := leadWithDeposit(t, s, quoteTenant, "lead_1", "dep_1")
		ql := quoteLead(t, s, quoteTenant, "lead_1")
		q := quote.Quote{ID: ql.Quote.QuoteID, LeadID: "lead_1", ShareLinkID: ql.Quote.ShareLinkID}
		if err := s.PutDeposit(ctx, quoteTenant, newDepositWrite(newDeposit(quoteTenant, "dep_2", q, t0.Add(150*time.Minute)), q.ID, "dep_1", lead.DepositPending)); err != nil {
			t.Fatal(err)
		}
		lpk, lsk := leadKey(quoteTenant, "lead_1")
		before := rawItem(t, s, lpk, lsk)
		ch := change(t, quoteTenant, d, deposit.EventExpired, "evt_1", "", at)
		if err := s.ApplyDeposit(ctx, quoteTenant, ch); err != nil {
			t.Fatalf("ApplyDeposit: %v", err)
		}
		if got, _ := s.GetDeposit(ctx, quoteTenant, "dep_1"); !reflect.DeepEqual(got, ch.After) {
			t.Errorf("deposit %+v; want %+v", got, ch.After)
		}
		if !reflect.DeepEqual(rawItem(t, s, lpk, lsk), before) {
			t.Error("the lead changed; want it left to its latest deposit")
		}
	})
}

func TestApplyDepositRefusals(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	d := leadWithDeposit(t, s, quoteTenant, "lead_1", "dep_1")
	other := leadWithDeposit(t, s, quoteTenant, "lead_2", "dep_2")
	at := t0.Add(3 * time.Hour)
	if err := s.ApplyDeposit(ctx, quoteTenant, change(t, quoteTenant, other, deposit.EventPaid, "evt_other", "pi_taken", at)); err != nil {
		t.Fatal(err)
	}
	lpk, lsk := leadKey(quoteTenant, "lead_1")
	dpk, dsk := depositKey(quoteTenant, "dep_1")
	keys := [][2]string{key2(lpk, lsk), key2(dpk, dsk)}
	tests := []struct {
		name   string
		tenant auth.Tenant
		ch     record.DepositChange
		code   errcode.Code
	}{
		{"unknown deposit", quoteTenant, change(t, quoteTenant, newDeposit(quoteTenant, "dep_nobody", quote.Quote{LeadID: "lead_1"}, at), deposit.EventPaid, "evt_a", "", at), errcode.NotFound},
		{"another tenant's deposit", auth.Tenant{PartnerID: quoteTenant.PartnerID, Mode: auth.Live},
			change(t, auth.Tenant{PartnerID: quoteTenant.PartnerID, Mode: auth.Live}, d, deposit.EventPaid, "evt_b", "", at), errcode.NotFound},
		{"a PaymentIntent of another deposit", quoteTenant, change(t, quoteTenant, d, deposit.EventPaid, "evt_c", "pi_taken", at), errcode.Conflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, s, keys...)
			err := s.ApplyDeposit(ctx, tt.tenant, tt.ch)
			wantCode(t, err, tt.code)
			if errors.Is(err, ErrDuplicate) || errors.Is(err, ErrChanged) {
				t.Errorf("err = %v; want neither ErrDuplicate nor ErrChanged", err)
			}
			if seen, _ := s.StripeEventSeen(ctx, tt.ch.StripeEventID); seen || !reflect.DeepEqual(snapshot(t, s, keys...), before) {
				t.Errorf("the refused change wrote something (event seen %v); want nothing written", seen)
			}
		})
	}
	t.Run("a transition that is not the deposit's", func(t *testing.T) {
		ch := change(t, quoteTenant, d, deposit.EventPaid, "evt_d", "", at)
		ch.Transition.From = deposit.Pending
		if err := s.ApplyDeposit(ctx, quoteTenant, ch); err == nil || errcode.As(err) != nil {
			t.Errorf("ApplyDeposit = %v; want a plain error (the caller's bug)", err)
		}
	})
}

func TestDepositSettings(t *testing.T) {
	ctx := context.Background()
	rec := &calls{}
	s := newStore(t, rec.install)
	pid := newPartner(t, s)
	if p, err := s.GetPartner(ctx, pid); err != nil || p.Deposits != (partner.DepositSettings{}) {
		t.Fatalf("new partner's deposit settings %+v, %v; want none", p.Deposits, err)
	}
	want := partner.DepositSettings{CarrierLegalName: "Acme Movers, Inc.", USDOTNumber: "01234567", StripeAccount: "acct_1Nv0FGQ9RKHgCVdK",
		DefaultCents: 25_000, CheckoutTTL: 2 * time.Hour}
	p, err := s.SetDepositSettings(ctx, pid, want)
	if err != nil || p.Deposits != want || p.ID != pid || p.Name != "Acme Movers" {
		t.Fatalf("SetDepositSettings = %+v, %v; want the partner with %+v", p, err, want)
	}
	if got, err := s.GetPartner(ctx, pid); err != nil || !reflect.DeepEqual(got, p) {
		t.Errorf("GetPartner = %+v, %v; want %+v", got, err, p)
	}
	partial := partner.DepositSettings{StripeAccount: "acct_2"}
	if p, err := s.SetDepositSettings(ctx, pid, partial); err != nil || p.Deposits != partial {
		t.Errorf("SetDepositSettings(partial) = %+v, %v; want %+v (the rest removed)", p.Deposits, err, partial)
	}

	tests := []struct {
		name  string
		d     partner.DepositSettings
		field string
	}{
		{"legal name too long", partner.DepositSettings{CarrierLegalName: string(make([]rune, 201))}, "carrier_legal_name"},
		{"USDOT with a letter", partner.DepositSettings{USDOTNumber: "12345a"}, "usdot_number"},
		{"USDOT too long", partner.DepositSettings{USDOTNumber: "123456789"}, "usdot_number"},
		{"Stripe account without acct_", partner.DepositSettings{StripeAccount: "ba_123"}, "stripe_account"},
		{"Stripe account with a dash", partner.DepositSettings{StripeAccount: "acct_12-3"}, "stripe_account"},
		{"Stripe account empty after acct_", partner.DepositSettings{StripeAccount: "acct_"}, "stripe_account"},
		{"default too small", partner.DepositSettings{DefaultCents: deposit.MinAmountCents - 1}, "deposit_default_cents"},
		{"default too large", partner.DepositSettings{DefaultCents: deposit.MaxAmountCents + 1}, "deposit_default_cents"},
		{"checkout lifetime too short", partner.DepositSettings{CheckoutTTL: deposit.MinCheckoutTTL - time.Second}, "checkout_ttl_seconds"},
		{"checkout lifetime too long", partner.DepositSettings{CheckoutTTL: deposit.MaxCheckoutTTL + time.Second}, "checkout_ttl_seconds"},
		{"checkout lifetime with a fraction", partner.DepositSettings{CheckoutTTL: time.Hour + time.Millisecond}, "checkout_ttl_seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.reset()
			_, err := s.SetDepositSettings(ctx, pid, tt.d)
			e := wantCode(t, err, errcode.ValidationFailed)
			if f := e.Fields(); len(f) != 1 || f[tt.field] == "" {
				t.Errorf("fields %v; want %s alone", f, tt.field)
			}
			if ops, _ := rec.taken(); len(ops) != 0 {
				t.Errorf("refused settings made calls %v; want none", ops)
			}
		})
	}
	if got, _ := s.GetPartner(ctx, pid); got.Deposits != partial {
		t.Errorf("after refusals: %+v; want %+v kept", got.Deposits, partial)
	}
	_, err = s.SetDepositSettings(ctx, "ptn_nobody", want)
	wantCode(t, err, errcode.NotFound)
	_, err = s.GetPartner(ctx, "ptn_nobody")
	wantCode(t, err, errcode.NotFound)

	t.Run("at creation", func(t *testing.T) {
		np := partner.Partner{ID: "ptn_dep", Name: "A", RateCard: p.RateCard, Deposits: want, CreatedAt: t0}
		if err := s.CreatePartner(ctx, np); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetPartner(ctx, "ptn_dep"); err != nil || got.Deposits != want {
			t.Errorf("GetPartner deposits %+v, %v; want %+v", got.Deposits, err, want)
		}
		np.ID, np.Deposits = "ptn_baddep", partner.DepositSettings{USDOTNumber: "x"}
		wantCode(t, s.CreatePartner(ctx, np), errcode.ValidationFailed)
	})
}
