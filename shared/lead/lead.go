// Package lead is the lead domain: the lifecycle, what a lead holds, and the
// validation of a createLead request body. It knows nothing of HTTP or
// DynamoDB; the API edge renders its types and the dynamo adapter stores them.
package lead

import (
	"time"

	"github.com/moveleads/partnerapi/shared/estimate"
)

// Status is a lead's lifecycle state (LeadLifecycle in the spec).
type Status string

// The lifecycle states.
const (
	New            Status = "new"
	Surveying      Status = "surveying"
	Quoted         Status = "quoted"
	Accepted       Status = "accepted"
	DepositPending Status = "deposit_pending"
	Booked         Status = "booked"
	Completed      Status = "completed"
	Lost           Status = "lost"
	Unknown        Status = "unknown"
)

// Statuses lists every lifecycle state.
var Statuses = []Status{New, Surveying, Quoted, Accepted, DepositPending, Booked, Completed, Lost, Unknown}

// Lead is one prospective move for a partner.
type Lead struct {
	ID           string
	Status       Status
	CustomerName string
	Email        string
	Phone        string
	FromAddress  string
	ToAddress    string
	HomeSize     string
	MoveDate     string // YYYY-MM-DD
	SpecialItems []string
	Source       string
	Estimate     *estimate.Estimate
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Build returns a lead with id built from in, in status New, created at now.
// When from_address, to_address, home_size and email are all present it
// carries an instant estimate under rc (nil when the home size cannot be read).
func Build(id string, in CreateInput, rc estimate.RateCard, now time.Time) Lead {
	l := Lead{
		ID: id, Status: New,
		CustomerName: in.CustomerName, Email: in.Email, Phone: in.Phone,
		FromAddress: in.FromAddress, ToAddress: in.ToAddress, HomeSize: in.HomeSize,
		MoveDate: in.MoveDate, SpecialItems: in.SpecialItems, Source: in.Source,
		CreatedAt: now, UpdatedAt: now,
	}
	if in.FromAddress != "" && in.ToAddress != "" && in.HomeSize != "" && in.Email != "" {
		l.Estimate = estimate.Compute(rc, estimate.Input{
			FromAddress: in.FromAddress, ToAddress: in.ToAddress, HomeSize: in.HomeSize,
		})
	}
	return l
}

// TimeLayout is the form in which lead timestamps are stored and reported:
// RFC 3339 in UTC with a fixed six-digit fraction, so that the string order
// is the time order (the listing index sorts on it).
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// Position is a place in the listing order (updated_at, lead_id): just
// after the lead with these values. UpdatedAt is in TimeLayout.
type Position struct {
	UpdatedAt string
	LeadID    string
}
