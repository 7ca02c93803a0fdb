package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// stripeEventRetention is how long a Stripe event's dedupe record is kept
// (DynamoDB's TTL deletes it later). Stripe retries a delivery for up to
// three days, so a month covers every redelivery.
const stripeEventRetention = 30 * 24 * time.Hour

// stripeEventItem records that a Stripe event was applied, for dedupe.
type stripeEventItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	EventID   string `dynamodbav:"event_id"`
	PartnerID string `dynamodbav:"partner_id"`
	Mode      string `dynamodbav:"mode"`
	DepositID string `dynamodbav:"deposit_id"`
	At        string `dynamodbav:"at"`
	ExpiresAt int64  `dynamodbav:"expires_at"` // TTL
}

// paymentIntentItem leads from a PaymentIntent to its deposit.
type paymentIntentItem struct {
	PK              string `dynamodbav:"pk"`
	SK              string `dynamodbav:"sk"`
	Type            string `dynamodbav:"type"`
	PaymentIntentID string `dynamodbav:"payment_intent_id"`
	PartnerID       string `dynamodbav:"partner_id"`
	Mode            string `dynamodbav:"mode"`
	DepositID       string `dynamodbav:"deposit_id"`
}

// depositLead is what ApplyDeposit's transaction does to the lead.
type depositLead int

const (
	// leadBooks sets the deposit ref's status and the lead's status
	// booked, conditioned on the lead being neither lost nor completed.
	leadBooks depositLead = iota
	// leadDepositRef sets the deposit ref's status only (conditioned on
	// the lead's status being seen, when set).
	leadDepositRef
	// leadUntouched leaves the lead alone: its deposit ref names another
	// deposit.
	leadUntouched
)

// depositPlan is one attempt of ApplyDeposit.
type depositPlan struct {
	lead depositLead
	// seen is the lead's status as read: leadDepositRef's condition
	// ("": any), and the lead_status of the events of a paid deposit that
	// does not book.
	seen lead.Status
}

// depositTx is an ApplyDeposit transaction and where each of its items
// is (-1: absent).
type depositTx struct {
	in                    *dynamodb.TransactWriteItemsInput
	deposit, dedupe, pi   int
	lead, eventsFrom, end int
}

// ApplyDeposit writes ch (see record.DepositChange) in one
// TransactWriteItems. Errors: a Stripe event already applied → an error
// wrapping ErrDuplicate; a deposit whose status moved since Before was
// read → conflict wrapping record.ErrChanged; unknown deposit →
// not_found; any other failure → upstream_failed. Nothing is written on
// error.
//
// DynamoDB cannot set the lead's status depending on its own value, so,
// as StartSurvey does, a first transaction books the lead on condition
// that it is neither lost nor completed and that its deposit ref names
// this deposit; when that condition fails it reads why from the lead as
// it was and runs a second one:
//   - a lost or completed lead keeps its status (conditioned on it) and
//     only its deposit ref's status moves;
//   - a lead whose deposit ref names another (newer) deposit is left
//     alone: the deposit's change is still recorded.
//
// In both cases the lead is not booked, so the events of type lead.booked
// among ch.Events are not written, and the others (deposit.paid) carry the
// lead's status as read instead of booked. A lead that keeps changing → conflict
// wrapping ErrChanged.
//
// The deposit gets After's status, session, checkout URL, PaymentIntent
// and paid_at; reconciled_at is MarkReconciled's alone, and the fields
// fixed at creation are not rewritten. A change that moves nothing but
// brings the PaymentIntent (After has it, Before had not) writes it too,
// with its record, so that a later dispute finds the deposit. A
// PaymentIntent whose record names another deposit → conflict. Events
// with a change that moves nothing, ids that differ between Before and
// After, or a transition that does not match them are the caller's bug:
// an error before any write.
func (s *Store) ApplyDeposit(ctx context.Context, t auth.Tenant, ch record.DepositChange) error {
	if err := checkDepositChange(t, ch); err != nil {
		return err
	}
	tr := ch.Transition
	newPI := ch.After.PaymentIntentID != "" && ch.Before.PaymentIntentID == ""
	if !tr.Changed() && !newPI && ch.StripeEventID == "" {
		return nil
	}
	plan := depositPlan{lead: leadUntouched}
	switch {
	case tr.Books():
		plan.lead = leadBooks
	case tr.Changed():
		plan.lead = leadDepositRef
	}
	for attempt := 1; ; attempt++ {
		tx, err := s.applyDepositInput(t, ch, plan, newPI)
		if err != nil {
			return err
		}
		_, err = s.db.TransactWriteItems(ctx, tx.in)
		if err == nil {
			return nil
		}
		failure := cancelled(err)
		at := failure.failedAt
		if failed, _ := at(tx.dedupe); failed {
			e := errcode.New(errcode.Conflict, "That Stripe event was already applied; nothing was written.")
			e.Cause = fmt.Errorf("stripe event %s: %w", ch.StripeEventID, ErrDuplicate)
			return e
		}
		if failed, old := at(tx.deposit); failed {
			if len(old) == 0 {
				return notFound("deposit")
			}
			return changed("deposit")
		}
		if failed, _ := at(tx.pi); failed {
			return errcode.New(errcode.Conflict, "PaymentIntent %s already belongs to another deposit; nothing was written.", ch.After.PaymentIntentID)
		}
		if failed, old := at(tx.lead); failed {
			if len(old) == 0 {
				return notFound("lead")
			}
			next, err := replan(plan, ch.After.ID, old)
			if err != nil || attempt == 2 {
				return changed("lead")
			}
			plan = next
			continue
		}
		if failure.anyFailed(tx.eventsFrom, tx.end) {
			return changed("deposit")
		}
		return failure.otherwise("deposit", "apply deposit change")
	}
}

// replan returns the plan of the second attempt from the lead as it was
// when the first failed its condition (old), or an error when the lead
// changed otherwise (a race the caller retries).
func replan(plan depositPlan, depositID string, old map[string]types.AttributeValue) (depositPlan, error) {
	var cur struct {
		Status    string `dynamodbav:"status"`
		DepositID string `dynamodbav:"deposit_id"`
	}
	if err := attributevalue.UnmarshalMap(old, &cur); err != nil {
		return depositPlan{}, fmt.Errorf("unmarshal lead: %w", err)
	}
	switch st := lead.Status(cur.Status); {
	case cur.DepositID != depositID:
		return depositPlan{lead: leadUntouched, seen: st}, nil
	case plan.lead == leadBooks && (st == lead.Lost || st == lead.Completed):
		return depositPlan{lead: leadDepositRef, seen: st}, nil
	}
	return depositPlan{}, ErrChanged
}

// checkDepositChange refuses a change that is not one: the caller's bug.
func checkDepositChange(t auth.Tenant, ch record.DepositChange) error {
	b, a, tr := ch.Before, ch.After, ch.Transition
	switch {
	case a.ID == "" || a.ID != b.ID || a.PartnerID != b.PartnerID || a.LeadID != b.LeadID || a.PartnerID != t.PartnerID:
		return fmt.Errorf("apply deposit change: before %q (partner %q, lead %q), after %q (partner %q, lead %q), tenant partner %q: want one deposit of the tenant",
			b.ID, b.PartnerID, b.LeadID, a.ID, a.PartnerID, a.LeadID, t.PartnerID)
	case tr.From != b.Status || tr.To != a.Status:
		return fmt.Errorf("apply deposit %s change: transition %s → %s, deposit %s → %s: want the same", a.ID, tr.From, tr.To, b.Status, a.Status)
	case !tr.Changed() && len(ch.Events) > 0:
		return fmt.Errorf("apply deposit %s change: %d events with no change", a.ID, len(ch.Events))
	}
	for _, e := range ch.Events {
		if e.Mode != string(t.Mode) {
			return fmt.Errorf("apply deposit %s change: event %s of mode %q in tenant mode %q", a.ID, e.ID, e.Mode, t.Mode)
		}
	}
	return nil
}

// applyDepositInput is one ApplyDeposit transaction under plan: the
// deposit (when it changes or brings its PaymentIntent), the event's
// dedupe record, the PaymentIntent's record, the lead and the events.
func (s *Store) applyDepositInput(t auth.Tenant, ch record.DepositChange, plan depositPlan, newPI bool) (depositTx, error) {
	tx := depositTx{deposit: -1, dedupe: -1, pi: -1, lead: -1}
	var items []types.TransactWriteItem
	if ch.Transition.Changed() || newPI {
		upd, err := s.depositUpdate(t, ch)
		if err != nil {
			return depositTx{}, err
		}
		tx.deposit, items = len(items), append(items, upd)
	}
	a := ch.After
	if ch.StripeEventID != "" {
		pk, sk := stripeEventKey(ch.StripeEventID)
		put, err := s.putNew(stripeEventItem{PK: pk, SK: sk, Type: "stripe_event", EventID: ch.StripeEventID,
			PartnerID: t.PartnerID, Mode: string(t.Mode), DepositID: a.ID, At: lead.FormatTime(ch.At),
			ExpiresAt: ch.At.Add(stripeEventRetention).Unix()})
		if err != nil {
			return depositTx{}, fmt.Errorf("apply deposit %s: %w", a.ID, err)
		}
		tx.dedupe, items = len(items), append(items, put)
	}
	if newPI {
		put, err := s.paymentIntentPut(t, a.PaymentIntentID, a.ID)
		if err != nil {
			return depositTx{}, err
		}
		tx.pi, items = len(items), append(items, put)
	}
	if ch.Transition.Changed() && plan.lead != leadUntouched {
		upd, err := s.depositLeadUpdate(t, ch, plan)
		if err != nil {
			return depositTx{}, err
		}
		tx.lead, items = len(items), append(items, upd)
	}
	tx.eventsFrom = len(items)
	for _, e := range ch.Events {
		if ch.Transition.Books() && plan.lead != leadBooks {
			if e.Type == webhook.LeadBooked {
				continue // the lead is not booked
			}
			var err error
			if e, err = e.WithLeadStatus(string(plan.seen)); err != nil {
				return depositTx{}, fmt.Errorf("apply deposit %s: %w", a.ID, err)
			}
		}
		put, err := s.putNewEvent(t, e)
		if err != nil {
			return depositTx{}, fmt.Errorf("apply deposit %s: %w", a.ID, err)
		}
		items = append(items, put)
	}
	tx.end = len(items)
	tx.in = &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: capacity}
	return tx, nil
}

// depositUpdate moves the deposit to ch.After, conditioned on its status
// still being ch.Before's.
func (s *Store) depositUpdate(t auth.Tenant, ch record.DepositChange) (types.TransactWriteItem, error) {
	a := ch.After
	upd := expression.Set(expression.Name("status"), expression.Value(string(a.Status)))
	for _, f := range []struct{ name, v string }{
		{attrSessionID, a.SessionID}, {attrCheckoutURL, a.CheckoutURL},
		{attrPaymentIntent, a.PaymentIntentID}, {attrPaidAt, optionalTime(a.PaidAt)},
	} {
		if f.v == "" {
			upd = upd.Remove(expression.Name(f.name))
		} else {
			upd = upd.Set(expression.Name(f.name), expression.Value(f.v))
		}
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(
		expression.AttributeExists(expression.Name(table.PK)).
			And(expression.Name("status").Equal(expression.Value(string(ch.Before.Status))))).Build()
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("build deposit update: %w", err)
	}
	pk, sk := depositKey(t, a.ID)
	return s.update(pk, sk, expr), nil
}

// paymentIntentPut writes mode's PaymentIntent pi's record, unless one
// names another deposit (rewriting the same is harmless).
func (s *Store) paymentIntentPut(t auth.Tenant, pi, depositID string) (types.TransactWriteItem, error) {
	pk, sk := paymentIntentKey(t.Mode, pi)
	av, err := attributevalue.MarshalMap(paymentIntentItem{PK: pk, SK: sk, Type: "stripe_payment_intent",
		PaymentIntentID: pi, PartnerID: t.PartnerID, Mode: string(t.Mode), DepositID: depositID})
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("marshal payment intent record: %w", err)
	}
	cond := expression.AttributeNotExists(expression.Name(table.PK)).Or(
		expression.Name("deposit_id").Equal(expression.Value(depositID)).
			And(expression.Name("partner_id").Equal(expression.Value(t.PartnerID))))
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("build payment intent condition: %w", err)
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: av,
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}}, nil
}

// depositLeadUpdate is the lead's part of a deposit change under plan.
func (s *Store) depositLeadUpdate(t auth.Tenant, ch record.DepositChange, plan depositPlan) (types.TransactWriteItem, error) {
	a := ch.After
	status := expression.Name("status")
	upd := leadTouched(t, a.LeadID, ch.At).Set(expression.Name(attrDepositStatus), expression.Value(string(a.Status)))
	cond := expression.AttributeExists(expression.Name(table.PK)).And(expression.Name(attrDepositID).Equal(expression.Value(a.ID)))
	switch {
	case plan.lead == leadBooks:
		upd = upd.Set(status, expression.Value(string(lead.Booked)))
		cond = cond.And(expression.Not(status.In(expression.Value(string(lead.Lost)), expression.Value(string(lead.Completed)))))
	case plan.seen != "":
		cond = cond.And(status.Equal(expression.Value(string(plan.seen))))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("build deposit lead update: %w", err)
	}
	pk, sk := leadKey(t, a.LeadID)
	return s.update(pk, sk, expr), nil
}

// StripeEventSeen reports whether Stripe event id was applied (its dedupe
// record exists), from one strongly consistent GetItem. A failed read is
// upstream_failed.
func (s *Store) StripeEventSeen(ctx context.Context, id string) (bool, error) {
	pk, sk := stripeEventKey(id)
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String(table.PK), ReturnConsumedCapacity: capacity,
	})
	if err != nil {
		return false, upstream("get stripe event", err)
	}
	return out.Item != nil, nil
}

// DepositByPaymentIntent returns the tenant and deposit id of mode's
// PaymentIntent pi (from its record, one strongly consistent GetItem);
// found is false when there is none. A failed read is upstream_failed.
func (s *Store) DepositByPaymentIntent(ctx context.Context, mode auth.Mode, pi string) (t auth.Tenant, depositID string, found bool, err error) {
	pk, sk := paymentIntentKey(mode, pi)
	var it paymentIntentItem
	err = s.getItem(ctx, pk, sk, "payment intent", &it)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return auth.Tenant{}, "", false, nil
	}
	if err != nil {
		return auth.Tenant{}, "", false, err
	}
	return auth.Tenant{PartnerID: it.PartnerID, Mode: auth.Mode(it.Mode)}, it.DepositID, true, nil
}
