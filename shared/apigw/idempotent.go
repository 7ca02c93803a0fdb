package apigw

import (
	"context"
	"fmt"

	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/idempotency"
)

// idempotent runs an operation under the request's Idempotency-Key, when it
// sent one. Call it only after the request has passed validation, so that an
// invalid request stores nothing.
//
// run gets the claim (nil without a key). With create, the claim is made
// with the response create describes and completes when run writes the
// resource; otherwise run's response is stored after it returns. A replay
// returns the stored status and body. When run fails with a 5xx the key is
// released (keeping its pinned resource id) so a retry proceeds at once; a
// 4xx from run is stored and replayed like a success.
func (h *Handler) idempotent(ctx context.Context, req *request, create *idempotency.Creation, run func(context.Context, *idempotency.Claim) (*response, error)) (*response, error) {
	key, present := req.header("idempotency-key")
	if !present {
		return run(ctx, nil)
	}
	if err := idempotency.ValidateKey(key); err != nil {
		return nil, err
	}
	scope := idempotency.Scope{
		PartnerID: req.principal.PartnerID, Mode: string(req.principal.Mode),
		Operation: string(req.route.Operation), Key: key,
	}
	var claim *idempotency.Claim
	var replay *idempotency.Replay
	var err error
	if create != nil {
		claim, replay, err = h.keeper.BeginCreate(ctx, scope, idempotency.RequestHash(req.body), *create)
	} else {
		claim, replay, err = h.keeper.Begin(ctx, scope, idempotency.RequestHash(req.body))
	}
	if err != nil {
		return nil, err
	}
	if replay != nil {
		return &response{status: replay.Status, body: replay.Body, replayed: true}, nil
	}
	resp, err := run(ctx, claim)
	if err != nil {
		// A creation's claim already holds its success response, so any
		// failure gives the key back; otherwise only a 5xx does, and a 4xx
		// is stored and replayed like a success.
		if create != nil || errcode.As(err) == nil || errcode.Status(errcode.As(err).Code) >= 500 {
			h.abandon(ctx, req, claim)
			return nil, err
		}
		resp = errorResponse(err)
	}
	if err := claim.Finish(ctx, resp.status, resp.body); err != nil {
		h.abandon(ctx, req, claim)
		return nil, err
	}
	return resp, nil
}

func (h *Handler) abandon(ctx context.Context, req *request, claim *idempotency.Claim) {
	if err := claim.Abandon(); err != nil {
		h.d.Log.ErrorContext(ctx, "release idempotency key", "request_id", req.id, "error", fmt.Sprint(err))
	}
}
