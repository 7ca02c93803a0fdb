package leads

import (
	"context"
	"slices"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pagecursor"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// RowsPerPage is the size of a page of the dashboard's leads list.
const RowsPerPage = 50

// RowQuery is the dashboard leads list's filters and place: a lifecycle
// status ("" for all), leads updated at or after Since, after a cursor.
type RowQuery struct {
	Status lead.Status
	Since  *time.Time
	After  *lead.Position
}

// RowPage is one page of the dashboard's leads list.
type RowPage struct {
	Rows []record.LeadRow
	// NextCursor continues the list (listLeads' cursor, signed and bound
	// to the tenant); "" at the end.
	NextCursor string
}

// Rows returns the page of tenant t's leads that q selects, in
// listLeads' order (by last update, oldest first), with the cursor of the
// next.
func (s *Service) Rows(ctx context.Context, t auth.Tenant, q RowQuery) (RowPage, error) {
	rows, next, err := s.store.ListLeadRows(ctx, t, lead.ListQuery{After: q.After, Since: q.Since, Limit: RowsPerPage}, q.Status)
	if err != nil {
		return RowPage{}, err
	}
	p := RowPage{Rows: rows}
	if next != nil {
		signer, err := s.cursor(ctx)
		if err != nil {
			return RowPage{}, err
		}
		p.NextCursor = signer.Encode(pagecursor.Leads, t.PartnerID, string(t.Mode), pagecursor.Position{At: next.UpdatedAt, ID: next.LeadID})
	}
	return p, nil
}

// ParseRowQuery validates the leads list's query parameters (status,
// updated_since as a date "2027-03-01" or an RFC 3339 date-time, cursor),
// naming every failing one in a validation_failed error. An empty value
// is no filter (an empty form field).
func (s *Service) ParseRowQuery(ctx context.Context, t auth.Tenant, params map[string]string) (RowQuery, error) {
	fe := errcode.FieldErrors{}
	var q RowQuery
	for name, v := range params {
		switch name {
		case "status":
			if v != "" && !slices.Contains(lead.Statuses, lead.Status(v)) {
				fe.Add("status", "is not a lead status")
			}
			q.Status = lead.Status(v)
		case "updated_since":
			if v == "" {
				continue
			}
			at, err := parseDay(v)
			if err != nil {
				fe.Add("updated_since", "must be a date (2027-03-01) or an RFC 3339 date-time")
			}
			q.Since = &at
		case "cursor":
		default:
			fe.Add(name, "unknown query parameter (known: status, updated_since, cursor)")
		}
	}
	if params["cursor"] != "" {
		pos, err := pagecursor.ParseCursor(ctx, s.cursor, pagecursor.Leads, t.PartnerID, string(t.Mode), params, fe)
		if err != nil {
			return RowQuery{}, err
		}
		if pos != nil {
			q.After = &lead.Position{UpdatedAt: pos.At, LeadID: pos.ID}
		}
	}
	return q, fe.Err()
}

// parseDay parses a date input's value (the start of that day, UTC) or
// an RFC 3339 date-time (ParseSince).
func parseDay(v string) (time.Time, error) {
	if len(v) == len(time.DateOnly) {
		return time.Parse(time.DateOnly, v)
	}
	return ParseSince(v)
}
