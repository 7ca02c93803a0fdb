package leads

import (
	"context"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Endpoints returns the service's endpoints, for edges that serve them all
// (local tools, the agent tool server). Each function's main serves one.
func (s *Service) Endpoints() []pipeline.Endpoint {
	return []pipeline.Endpoint{s.CreateLead(), s.ListLeads(), s.GetLead()}
}

// CreateLead is the createLead endpoint: it validates the body, then builds
// the lead with its instant estimate under the partner's rate card and
// stores it. Its response is known before the write, so under an
// Idempotency-Key the claim stores it and the lead's existence completes
// the key: one claim write and one lead write.
func (s *Service) CreateLead() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.CreateLead, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		in, err := lead.ParseCreate(c.Body)
		if err != nil {
			return pipeline.Work{}, err
		}
		partner, err := c.Partner(ctx)
		if err != nil {
			return pipeline.Work{}, err
		}
		t, rc, now := c.Tenant(), partner.RateCard, c.Now
		pinned := c.IdempotencyKey != nil
		return pipeline.Work{
			Run: func(ctx context.Context, id string) (any, error) {
				l, err := s.Create(ctx, t, rc, in, id, pinned, now)
				if err != nil {
					return nil, err
				}
				return createView(l), nil
			},
			Creates: &pipeline.Creation{
				Respond: func(id string) any { return createView(lead.Build(id, in, rc, now)) },
				Exists:  func(ctx context.Context, id string) (bool, error) { return s.store.LeadExists(ctx, t, id) },
			},
		}, nil
	}}
}

// ListLeads is the listLeads endpoint: one page of the tenant's leads in
// (updated_at, lead_id) order.
func (s *Service) ListLeads() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.ListLeads, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		q, err := s.parseListQuery(ctx, c)
		if err != nil {
			return pipeline.Work{}, err
		}
		return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
			page, err := s.List(ctx, c.Tenant(), q)
			if err != nil {
				return nil, err
			}
			return listOf(page), nil
		}}, nil
	}}
}

// GetLead is the getLead endpoint: one lead's status, with its survey,
// quote (its stage as of the call's time) and deposit.
func (s *Service) GetLead() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.GetLead, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		now := c.Now
		return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
			l, ls, err := s.Get(ctx, c.Tenant(), c.ID)
			if err != nil {
				return nil, err
			}
			return detail(l, ls, now), nil
		}}, nil
	}}
}
