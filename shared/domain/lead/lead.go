// Package lead is the lead domain: the lifecycle, what a lead holds, and the
// validation of a createLead request body. It knows nothing of HTTP or
// DynamoDB; the API edge renders its types and the dynamo adapter stores them.
package lead

import (
	"time"

	"github.com/moveleads/partnerapi/shared/domain/estimate"
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

// Details are what a partner tells about a lead: the createLead request's
// fields, validated (ParseCreate). The field names are the API's and the
// stored item's attribute names alike.
type Details struct {
	CustomerName string   `json:"customer_name,omitempty" dynamodbav:"customer_name,omitempty"`
	Email        string   `json:"email,omitempty" dynamodbav:"email,omitempty"`
	Phone        string   `json:"phone,omitempty" dynamodbav:"phone,omitempty"`
	FromAddress  string   `json:"from_address,omitempty" dynamodbav:"from_address,omitempty"`
	ToAddress    string   `json:"to_address,omitempty" dynamodbav:"to_address,omitempty"`
	HomeSize     string   `json:"home_size,omitempty" dynamodbav:"home_size,omitempty"`
	MoveDate     string   `json:"move_date,omitempty" dynamodbav:"move_date,omitempty"` // YYYY-MM-DD
	SpecialItems []string `json:"special_items,omitempty" dynamodbav:"special_items,omitempty"`
	Source       string   `json:"source,omitempty" dynamodbav:"source,omitempty"`
}

// Lead is one prospective move for a partner.
type Lead struct {
	ID     string
	Status Status
	Details
	Estimate  *estimate.Estimate
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Build returns a lead with id built from in, in status New, created at now.
// When from_address, to_address, home_size and email are all present it
// carries an instant estimate under rc (nil when the home size cannot be read).
func Build(id string, in Details, rc estimate.RateCard, now time.Time) Lead {
	l := Lead{ID: id, Status: New, Details: in, CreatedAt: now, UpdatedAt: now}
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

// ListQuery selects a page of a tenant's leads in (updated_at, lead_id)
// order: those strictly after After (when set) and updated at or after
// Since (when set), at most Limit of them.
type ListQuery struct {
	After *Position
	Since *time.Time
	Limit int
}
