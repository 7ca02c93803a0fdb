package apigw

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/cursor"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/idempotency"
	"github.com/moveleads/partnerapi/shared/lead"
)

// createLead validates the body, then (under the Idempotency-Key, if any)
// builds the lead with its instant estimate and stores it. Its response is
// known before the write, so the key's claim stores it and the lead's
// existence completes the key: one claim write and one lead write.
func createLead(ctx context.Context, h *Handler, req *request) (*response, error) {
	in, err := lead.ParseCreate(req.body)
	if err != nil {
		return nil, err
	}
	build := func(id string) lead.Lead { return lead.Build(id, in, req.principal.RateCard, req.now) }
	create := &idempotency.Creation{
		Respond: func(id string) (int, []byte) {
			r := jsonResponse(200, createView(build(id)))
			return r.status, r.body
		},
		Exists: func(ctx context.Context, id string) (bool, error) {
			return h.d.Store.LeadExists(ctx, req.tenant(), id)
		},
	}
	return h.idempotent(ctx, req, create, func(ctx context.Context, claim *idempotency.Claim) (*response, error) {
		id := h.d.NewID()
		if claim != nil {
			id = claim.ResourceID()
		}
		l := build(id)
		if err := h.d.Store.PutLead(ctx, req.tenant(), l, claim != nil); err != nil {
			return nil, err
		}
		return jsonResponse(200, createView(l)), nil
	})
}

// List query parameters and bounds.
const (
	defaultLimit = 25
	maxLimit     = 100
)

var listParams = map[string]bool{"limit": true, "updated_since": true, "cursor": true}

// listLeads answers one page of the tenant's leads in (updated_at, lead_id)
// order.
func listLeads(ctx context.Context, h *Handler, req *request) (*response, error) {
	signer, err := h.d.Cursor(ctx)
	if err != nil {
		return nil, err
	}
	q, err := parseListQuery(signer, req)
	if err != nil {
		return nil, err
	}
	leads, more, err := h.d.Store.ListLeads(ctx, req.tenant(), q)
	if err != nil {
		return nil, err
	}
	view := listView{Data: make([]summaryView, len(leads)), HasMore: more}
	for i, l := range leads {
		view.Data[i] = summary(l)
	}
	if more {
		last := leads[len(leads)-1]
		c := signer.Encode(req.principal.PartnerID, string(req.principal.Mode),
			lead.Position{UpdatedAt: lead.FormatTime(last.UpdatedAt), LeadID: last.ID})
		view.NextCursor = &c
	}
	return jsonResponse(200, view), nil
}

func parseListQuery(signer *cursor.Signer, req *request) (dynamo.ListQuery, error) {
	params := req.ev.QueryStringParameters
	fe := errcode.FieldErrors{}
	for name := range params {
		if !listParams[name] {
			fe.Add(name, "unknown query parameter (known: limit, updated_since, cursor)")
		}
	}
	q := dynamo.ListQuery{Limit: defaultLimit}
	if v, ok := params["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit || strconv.Itoa(n) != v {
			fe.Add("limit", "must be an integer from 1 to 100")
		}
		q.Limit = n
	}
	if v, ok := params["updated_since"]; ok {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			fe.Add("updated_since", "must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z")
		}
		q.Since = &t
	}
	if v, ok := params["cursor"]; ok {
		pos, err := signer.Decode(req.principal.PartnerID, string(req.principal.Mode), v)
		if errors.Is(err, cursor.ErrInvalid) || err != nil {
			fe.Add("cursor", "is not a cursor this API issued for this key; pass next_cursor back unchanged")
		}
		q.After = &pos
	}
	return q, fe.Err()
}

// getLead answers one lead. A lead id that is not a UUID cannot exist, so
// it answers 404 like any other unknown id.
func getLead(ctx context.Context, h *Handler, req *request) (*response, error) {
	raw := req.route.PathParam(req.ev.PathParameters)
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return nil, errcode.New(errcode.NotFound, "No lead with that id exists for this API key.")
	}
	l, err := h.d.Store.GetLead(ctx, req.tenant(), id.String())
	if err != nil {
		return nil, err
	}
	return jsonResponse(200, detail(l)), nil
}
