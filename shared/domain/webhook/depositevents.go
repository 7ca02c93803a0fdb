package webhook

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// DepositData is the data of the deposit events (deposit.paid,
// deposit.failed, deposit.refunded, deposit.disputed) and of lead.booked:
// the ids (lead, deposit, quote share link), the mode, and the deposit as
// getDeposit shows it (its public status, amount, currency and paid_at),
// with the lead's status after the change for lead.booked.
type DepositData struct {
	LeadID    string `json:"lead_id"`
	DepositID string `json:"deposit_id"`
	// QuoteShareLinkID is the quote the deposit is for, as getLead's
	// quote.quote_share_link_id names it.
	QuoteShareLinkID string  `json:"quote_share_link_id"`
	Mode             string  `json:"mode"`
	Status           string  `json:"status"`
	AmountCents      int64   `json:"amount_cents"`
	Currency         string  `json:"currency"`
	PaidAt           *string `json:"paid_at"`
	// LeadStatus is the lead's status after the change, in deposit.paid
	// and lead.booked: booked, or lost or completed for a lead closed
	// before its customer paid (which the payment does not reopen; no
	// lead.booked is sent then).
	LeadStatus string `json:"lead_status,omitempty"`
}

// DepositEvents returns the events d's transition tr owes (tr.Webhooks,
// in order), at at, for tenant mode mode; leadStatus is the lead's status
// after the change. Their ids are derived from the deposit and the type,
// so a deposit owes each type at most once however often the change is
// computed (a status is reached once: deposit.Apply never moves back).
func DepositEvents(mode string, d deposit.Deposit, tr deposit.Transition, leadStatus string, at time.Time) ([]Event, error) {
	types := tr.Webhooks()
	if len(types) == 0 {
		return nil, nil
	}
	dd := DepositData{
		LeadID: d.LeadID, DepositID: d.ID, QuoteShareLinkID: d.QuoteShareLinkID, Mode: mode, Status: string(d.Status.PublicStatus()),
		AmountCents: d.AmountCents, Currency: d.Currency, LeadStatus: leadStatus,
	}
	if !d.PaidAt.IsZero() {
		p := lead.FormatTime(d.PaidAt) // as getDeposit shows it
		dd.PaidAt = &p
	}
	data, err := json.Marshal(dd)
	if err != nil {
		return nil, fmt.Errorf("webhook: deposit event data: %w", err)
	}
	out := make([]Event, 0, len(types))
	for _, ty := range types {
		out = append(out, Event{ID: "evt_" + d.ID + "_" + ty, Type: Type(ty), Mode: mode, At: at, Data: data, LeadID: d.LeadID})
	}
	return out, nil
}

// WithLeadStatus returns e, a deposit event of DepositEvents, with its
// data's lead_status set to status: the store's, when the lead turned out
// not to be booked by the change (it was lost or completed).
func (e Event) WithLeadStatus(status string) (Event, error) {
	var dd DepositData
	if err := json.Unmarshal(e.Data, &dd); err != nil {
		return Event{}, fmt.Errorf("webhook: event %s is not a deposit event: %w", e.ID, err)
	}
	dd.LeadStatus = status
	data, err := json.Marshal(dd)
	if err != nil {
		return Event{}, fmt.Errorf("webhook: deposit event data: %w", err)
	}
	e.Data = data
	return e, nil
}
