package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// depositItem is a deposit. Times that are not set yet (paid_at,
// reconciled_at) are absent. The checkout's expiry is not in expires_at,
// the table's TTL attribute: a deposit outlives its checkout.
type depositItem struct {
	PK                string `dynamodbav:"pk"`
	SK                string `dynamodbav:"sk"`
	Type              string `dynamodbav:"type"`
	DepositID         string `dynamodbav:"deposit_id"`
	PartnerID         string `dynamodbav:"partner_id"`
	Mode              string `dynamodbav:"mode"`
	LeadID            string `dynamodbav:"lead_id"`
	QuoteShareLinkID  string `dynamodbav:"quote_share_link_id"`
	ConnectedAccount  string `dynamodbav:"connected_account"`
	Status            string `dynamodbav:"status"`
	AmountCents       int64  `dynamodbav:"amount_cents"`
	Currency          string `dynamodbav:"currency"`
	SessionID         string `dynamodbav:"session_id,omitempty"`
	CheckoutURL       string `dynamodbav:"checkout_url,omitempty"`
	CheckoutExpiresAt string `dynamodbav:"checkout_expires_at,omitempty"`
	PaymentIntentID   string `dynamodbav:"payment_intent_id,omitempty"`
	CreatedAt         string `dynamodbav:"created_at"`
	PaidAt            string `dynamodbav:"paid_at,omitempty"`
	ReconciledAt      string `dynamodbav:"reconciled_at,omitempty"`
}

// The deposit item's attributes that change after it is made.
const (
	attrCheckoutURL   = "checkout_url"
	attrPaymentIntent = "payment_intent_id"
	attrSessionID     = "session_id"
	attrPaidAt        = "paid_at"
	attrReconciledAt  = "reconciled_at"
)

func newDepositItem(t auth.Tenant, d deposit.Deposit) depositItem {
	pk, sk := depositKey(t, d.ID)
	return depositItem{
		PK: pk, SK: sk, Type: "deposit", DepositID: d.ID, PartnerID: d.PartnerID, Mode: string(t.Mode), LeadID: d.LeadID,
		QuoteShareLinkID: d.QuoteShareLinkID, ConnectedAccount: d.ConnectedAccount, Status: string(d.Status),
		AmountCents: d.AmountCents, Currency: d.Currency, SessionID: d.SessionID, CheckoutURL: d.CheckoutURL,
		CheckoutExpiresAt: optionalTime(d.CheckoutExpiresAt), PaymentIntentID: d.PaymentIntentID,
		CreatedAt: lead.FormatTime(d.CreatedAt), PaidAt: optionalTime(d.PaidAt), ReconciledAt: optionalTime(d.ReconciledAt),
	}
}

// optionalTime is t in lead.TimeLayout, or "" (no attribute) when zero.
func optionalTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return lead.FormatTime(t)
}

// deposit returns the stored deposit; a stored time that does not parse is
// an error naming the item.
func (it depositItem) deposit() (deposit.Deposit, error) {
	var err error
	parse := func(attr, v string) time.Time {
		if err != nil || v == "" {
			return time.Time{}
		}
		var tm time.Time
		tm, err = parseTime(it.PK, attr, v)
		return tm
	}
	d := deposit.Deposit{
		ID: it.DepositID, PartnerID: it.PartnerID, LeadID: it.LeadID, QuoteShareLinkID: it.QuoteShareLinkID,
		ConnectedAccount: it.ConnectedAccount, Status: deposit.Status(it.Status), AmountCents: it.AmountCents,
		Currency: it.Currency, SessionID: it.SessionID, CheckoutURL: it.CheckoutURL,
		CheckoutExpiresAt: parse("checkout_expires_at", it.CheckoutExpiresAt), PaymentIntentID: it.PaymentIntentID,
		CreatedAt: parse("created_at", it.CreatedAt), PaidAt: parse(attrPaidAt, it.PaidAt),
		ReconciledAt: parse(attrReconciledAt, it.ReconciledAt),
	}
	if it.CreatedAt == "" && err == nil {
		err = fmt.Errorf("item %s: no created_at", it.PK)
	}
	if err != nil {
		return deposit.Deposit{}, err
	}
	return d, nil
}

// GetDeposit returns tenant t's deposit id (strongly consistent). Unknown
// (or another tenant's) → not_found; a failed read is upstream_failed.
func (s *Store) GetDeposit(ctx context.Context, t auth.Tenant, id string) (deposit.Deposit, error) {
	pk, sk := depositKey(t, id)
	var it depositItem
	if err := s.getItem(ctx, pk, sk, "deposit", &it); err != nil {
		return deposit.Deposit{}, err
	}
	return it.deposit()
}

// PutDeposit writes d (see record.NewDeposit) in one TransactWriteItems.
// Errors: unknown lead → not_found; a lead whose status, quote or deposit
// changed since it was read → conflict wrapping record.ErrChanged; a
// taken deposit id or token hash → conflict; any other failure →
// upstream_failed. On every error nothing was written.
//
// A deposit of another partner than t's, or a token for another lead, is
// the caller's bug: an error before any write.
func (s *Store) PutDeposit(ctx context.Context, t auth.Tenant, d record.NewDeposit) error {
	dep := d.Deposit
	if dep.ID == "" || dep.PartnerID != t.PartnerID {
		return fmt.Errorf("put deposit %q of partner %q for tenant %s: want a deposit of the tenant's partner", dep.ID, dep.PartnerID, t.PartnerID)
	}
	if err := checkPageToken(d.Token, dep.LeadID, d.QuoteID); err != nil {
		return fmt.Errorf("put deposit %s: %w", dep.ID, err)
	}
	items := make([]types.TransactWriteItem, 0, 3)
	for _, it := range []any{newDepositItem(t, dep), newQuoteTokenItem(t, d.Token)} {
		put, err := s.putNew(it)
		if err != nil {
			return fmt.Errorf("put deposit %s: %w", dep.ID, err)
		}
		items = append(items, put)
	}
	upd := leadTouched(t, dep.LeadID, d.At).
		Set(expression.Name("status"), expression.Value(string(d.LeadTo))).
		Set(expression.Name(attrDepositID), expression.Value(dep.ID)).
		Set(expression.Name(attrDepositStatus), expression.Value(string(dep.Status)))
	cond := expression.AttributeExists(expression.Name(table.PK)).
		And(expression.Name("status").Equal(expression.Value(string(d.LeadFrom)))).
		And(expression.Name(attrQuoteID).Equal(expression.Value(d.QuoteID))).
		And(equalsOrAbsent(attrDepositID, d.PrevDepositID))
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("build deposit lead update: %w", err)
	}
	pk, sk := leadKey(t, dep.LeadID)
	items = append(items, s.update(pk, sk, expr))

	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: capacity})
	if err == nil {
		return nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(2); failed {
		return leadCondFailed(old)
	}
	if tx.anyFailed(0, 2) {
		return errcode.New(errcode.Conflict, "A deposit with id %s or the same page token already exists; nothing was written.", dep.ID)
	}
	return tx.otherwise("lead", "put deposit")
}

// MarkReconciled sets tenant t's deposit d's reconciled_at to now in one
// UpdateItem conditioned on it still being d.ReconciledAt (zero: absent)
// and its status d.Status: true when this caller won the right to ask
// Stripe, false when another read did (or the deposit moved). An unknown
// deposit (or another tenant's) → not_found; a failed write is
// upstream_failed.
func (s *Store) MarkReconciled(ctx context.Context, t auth.Tenant, d deposit.Deposit, now time.Time) (bool, error) {
	cond := expression.AttributeExists(expression.Name(table.PK)).
		And(expression.Name("status").Equal(expression.Value(string(d.Status)))).
		And(equalsOrAbsent(attrReconciledAt, optionalTime(d.ReconciledAt)))
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name(attrReconciledAt), expression.Value(lead.FormatTime(now)))).
		WithCondition(cond).Build()
	if err != nil {
		return false, fmt.Errorf("build reconciliation mark: %w", err)
	}
	pk, sk := depositKey(t, d.ID)
	failed, old, err := s.updateIf(ctx, pk, sk, expr)
	switch {
	case failed && len(old) == 0:
		return false, notFound("deposit")
	case failed:
		return false, nil
	case err != nil:
		return false, upstream("mark deposit reconciled", err)
	}
	return true, nil
}
