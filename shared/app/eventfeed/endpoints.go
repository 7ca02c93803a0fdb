package eventfeed

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/leads"
	"github.com/moveleads/partnerapi/shared/app/pagecursor"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Endpoints returns the service's endpoints, for edges that serve them all.
func (s *Service) Endpoints() []pipeline.Endpoint {
	return []pipeline.Endpoint{s.ListEvents(), s.GetEvent()}
}

// ListEvents is the listEvents endpoint: one page of the tenant's events,
// newest first.
func (s *Service) ListEvents() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.ListEvents, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		q, err := s.parseListQuery(ctx, c)
		if err != nil {
			return pipeline.Work{}, err
		}
		return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
			return s.List(ctx, c.Tenant(), q)
		}}, nil
	}}
}

// GetEvent is the getEvent endpoint: one event (the pipeline checked the
// id's form: manifest.ParamEventID).
func (s *Service) GetEvent() pipeline.Endpoint {
	return pipeline.Endpoint{Operation: manifest.GetEvent, Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
		return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
			return s.Get(ctx, c.Tenant(), c.ID, c.Now)
		}}, nil
	}}
}

var listParams = []string{"limit", "cursor", "type", "lead_id", "created_since"}

// parseListQuery validates listEvents' query parameters, naming every
// failing one. The signer is loaded only when a cursor is sent.
func (s *Service) parseListQuery(ctx context.Context, c *pipeline.Call) (webhook.ListQuery, error) {
	return s.parseParams(ctx, c.Tenant(), c.Query, c.Now)
}

// ListParams is listEvents for tenant t from its query parameters (the
// dashboard's Events page takes the same ones, and the same cursors).
func (s *Service) ListParams(ctx context.Context, t auth.Tenant, params map[string]string, now time.Time) (ListView, error) {
	q, err := s.parseParams(ctx, t, params, now)
	if err != nil {
		return ListView{}, err
	}
	return s.List(ctx, t, q)
}

func (s *Service) parseParams(ctx context.Context, t auth.Tenant, params map[string]string, now time.Time) (webhook.ListQuery, error) {
	fe := errcode.FieldErrors{}
	for name := range params {
		if !slices.Contains(listParams, name) {
			fe.Add(name, "unknown query parameter (known: "+strings.Join(listParams, ", ")+")")
		}
	}
	q := webhook.ListQuery{Limit: pagecursor.ParseLimit(params, fe), Now: now}
	if v, ok := params["type"]; ok {
		q.Type = webhook.Type(v)
		if !webhook.Known(q.Type) || q.Type == webhook.Test {
			fe.Add("type", fmt.Sprintf("must be one of the listed event types: %s", strings.Join(listedTypes(), ", ")))
		}
	}
	if v, ok := params["lead_id"]; ok {
		id, err := uuid.Parse(v)
		if err != nil || len(v) != 36 {
			fe.Add("lead_id", "must be a lead id: a UUID in its 36-character form")
		}
		q.LeadID = id.String()
	}
	if v, ok := params["created_since"]; ok {
		t, err := leads.ParseSince(v)
		if err != nil {
			fe.Add("created_since", "must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z")
		}
		q.Since = &t
	}
	pos, err := pagecursor.ParseCursor(ctx, s.cursor, pagecursor.Events, t.PartnerID, string(t.Mode), params, fe)
	if err != nil {
		return webhook.ListQuery{}, err
	}
	if pos != nil {
		q.After = &webhook.Position{At: pos.At, ID: pos.ID}
	}
	return q, fe.Err()
}

// listedTypes are the types listEvents shows: every type but webhook.test.
func listedTypes() []string {
	var out []string
	for _, k := range webhook.Catalogue {
		if k.Type != webhook.Test {
			out = append(out, string(k.Type))
		}
	}
	return out
}
