// Package leads is the lead feature's service: createLead, listLeads and
// getLead as plain Go over the lead domain, and their endpoints (request
// decoding, validation, response views, listLeads' signed cursors
// from shared/app/pagecursor) for the
// request pipeline in shared/app/pipeline. Every edge (API Gateway, the
// agent tool server) runs these same endpoints. It imports no AWS or HTTP
// package: storage is the Store interface below, which
// shared/adapter/dynamo implements.
package leads

import (
	"context"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pagecursor"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// Store is the lead storage the service needs.
type Store interface {
	// PutLead stores a new lead. pinned marks an id fixed by an
	// Idempotency-Key: if that lead already exists (an earlier attempt
	// wrote it and its answer was lost) it is left as it is and PutLead
	// succeeds.
	PutLead(ctx context.Context, t auth.Tenant, l lead.Lead, pinned bool) error
	// LeadExists reports whether the lead id was written (consistent read).
	LeadExists(ctx context.Context, t auth.Tenant, id string) (bool, error)
	// GetLeadDetail returns the lead with what it says about its latest
	// survey and, once that is inventory_ready, its inventory; or
	// not_found.
	GetLeadDetail(ctx context.Context, t auth.Tenant, id string) (lead.Lead, record.LeadSurvey, error)
	// ListLeads returns up to q.Limit leads and whether more follow.
	ListLeads(ctx context.Context, t auth.Tenant, q lead.ListQuery) ([]lead.Lead, bool, error)
	// ListLeadRows is ListLeads with each lead's survey, quote and
	// deposit refs, filtered by status ("" for all), and the position of
	// the next page (nil at the end).
	ListLeadRows(ctx context.Context, t auth.Tenant, q lead.ListQuery, status lead.Status) ([]record.LeadRow, *lead.Position, error)
}

// Service runs the lead operations.
type Service struct {
	store Store
	// cursor returns the signer of list cursors, loaded on first use.
	cursor func(context.Context) (*pagecursor.Signer, error)
}

// New returns the lead service over store. cursorKey returns the key that
// signs list cursors (read lazily; only listLeads calls it).
func New(store Store, cursorKey func(context.Context) ([]byte, error)) *Service {
	return &Service{store: store, cursor: pagecursor.Lazy(cursorKey)}
}

// Create builds the lead with id from a validated request and stores it,
// with its instant estimate under the partner's rate card rc.
func (s *Service) Create(ctx context.Context, t auth.Tenant, rc estimate.RateCard, in lead.Details, id string, pinned bool, now time.Time) (lead.Lead, error) {
	l := lead.Build(id, in, rc, now)
	if err := s.store.PutLead(ctx, t, l, pinned); err != nil {
		return lead.Lead{}, err
	}
	return l, nil
}

// Get returns tenant t's lead id, a canonical UUID (the pipeline checked
// the path's: manifest.ParamUUID); an unknown one is not_found.
func (s *Service) Get(ctx context.Context, t auth.Tenant, id string) (lead.Lead, record.LeadSurvey, error) {
	return s.store.GetLeadDetail(ctx, t, id)
}

// Page is one page of a listing.
type Page struct {
	Leads      []lead.Lead
	NextCursor *string
}

// List returns the page q selects and, when more follow, the cursor of the
// next page (signed, bound to t).
func (s *Service) List(ctx context.Context, t auth.Tenant, q lead.ListQuery) (Page, error) {
	leads, more, err := s.store.ListLeads(ctx, t, q)
	if err != nil {
		return Page{}, err
	}
	page := Page{Leads: leads}
	if more && len(leads) > 0 {
		signer, err := s.cursor(ctx)
		if err != nil {
			return Page{}, err
		}
		last := leads[len(leads)-1]
		c := signer.Encode(pagecursor.Leads, t.PartnerID, string(t.Mode), pagecursor.Position{At: lead.FormatTime(last.UpdatedAt), ID: last.ID})
		page.NextCursor = &c
	}
	return page, nil
}
