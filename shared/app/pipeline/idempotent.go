package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// Fingerprint is the digest an Idempotency-Key is bound to: the method,
// the path parameter, the query and the canonical body (key order and white
// space don't matter). The same key sent for another resource (another
// path parameter) or with another query is a different request and answers
// idempotency_key_reused.
func Fingerprint(c *Call) string {
	return FingerprintOf(c.Route.Method, c.PathParam, c.Query, c.Body)
}

// FingerprintOf is Fingerprint of a request's parts.
func FingerprintOf(method, pathParam string, query map[string]string, body []byte) string {
	h := sha256.New()
	write := func(s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }
	write(method)
	write(pathParam)
	keys := make([]string, 0, len(query))
	for k := range query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		write(k)
		write(query[k])
	}
	write(idempotency.RequestHash(body))
	return hex.EncodeToString(h.Sum(nil))
}

// idempotent runs work under the call's Idempotency-Key. A replay returns
// the stored status and body. When the work fails with a 5xx the key is
// released (keeping its pinned resource id) so a retry proceeds at once; a
// 4xx from the work is stored and replayed like a success, except for a
// Creation, whose claim already holds its success response: any failure
// gives its key back.
func (p *Pipeline) idempotent(ctx context.Context, c *Call, work Work) (int, []byte, bool, error) {
	key := *c.IdempotencyKey
	if err := idempotency.ValidateKey(key); err != nil {
		return 0, nil, false, err
	}
	scope := idempotency.Scope{
		PartnerID: c.Principal.PartnerID, Mode: string(c.Principal.Mode),
		Operation: string(c.Route.Operation), Key: key,
	}
	fp := Fingerprint(c)
	var claim *idempotency.Claim
	var replay *idempotency.Replay
	var err error
	if cr := work.Creates; cr != nil {
		var renderErr error
		claim, replay, err = p.keeper.BeginCreate(ctx, scope, fp, idempotency.Creation{
			Respond: func(id string) (int, []byte) {
				b, err := marshal(cr.Respond(id))
				if err != nil {
					renderErr = err
				}
				return 200, b
			},
			Exists: cr.Exists,
		})
		if err == nil && renderErr != nil {
			err = renderErr
		}
	} else {
		claim, replay, err = p.keeper.Begin(ctx, scope, fp)
	}
	if err != nil {
		if claim != nil {
			p.abandon(ctx, c, claim)
		}
		return 0, nil, false, err
	}
	if replay != nil {
		if sr := work.Secret; sr != nil && replay.Status == 200 {
			view, err := sr.Restore(ctx, replay.Body)
			if err != nil {
				return 0, nil, false, err
			}
			body, err := marshal(view)
			return 200, body, true, err
		}
		return replay.Status, replay.Body, true, nil
	}
	status, body, stored := 200, []byte(nil), []byte(nil)
	view, err := work.Run(ctx, claim.ResourceID())
	if err == nil {
		body, err = marshal(view)
		stored = body
	}
	if err == nil && work.Secret != nil {
		stored, err = marshal(work.Secret.Strip(view))
	}
	if err != nil {
		e := errcode.As(err)
		// A conflict (the resource changed concurrently) says "retry", so
		// it is not kept for the key's replays either.
		if work.Creates != nil || e == nil || errcode.Status(e.Code) >= 500 || e.Code == errcode.Conflict {
			p.abandon(ctx, c, claim)
			return 0, nil, false, err
		}
		status, body = Render(err)
		stored = body
	}
	if err := claim.Finish(ctx, status, stored); err != nil {
		p.abandon(ctx, c, claim)
		return 0, nil, false, err
	}
	return status, body, false, nil
}

func (p *Pipeline) abandon(ctx context.Context, c *Call, claim *idempotency.Claim) {
	if err := claim.Abandon(ctx); err != nil {
		p.d.Log.ErrorContext(ctx, "release idempotency key", "request_id", c.RequestID, "error", fmt.Sprint(err))
	}
}
