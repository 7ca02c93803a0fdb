package webhooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// EndpointStore is the storage the endpoints' management needs
// (shared/adapter/dynamo's Store).
type EndpointStore interface {
	GetPartner(ctx context.Context, id string) (partner.Partner, error)
	PutEndpoint(ctx context.Context, e webhook.Endpoint, audits ...audit.Entry) error
	GetEndpoint(ctx context.Context, id string) (webhook.Endpoint, error)
	TenantEndpoints(ctx context.Context, t auth.Tenant) ([]webhook.Endpoint, error)
	UpdateEndpoint(ctx context.Context, e webhook.Endpoint, audits ...audit.Entry) error
	EndpointDeliveries(ctx context.Context, endpointID string, limit int) ([]webhook.Delivery, error)
	FindDelivery(ctx context.Context, endpointID, eventID string) (webhook.Delivery, error)
	Attempts(ctx context.Context, endpointID string, e webhook.Event) ([]webhook.Attempt, error)
	Redeliver(ctx context.Context, d webhook.Delivery, now time.Time) (webhook.Delivery, error)
	PutEvent(ctx context.Context, t auth.Tenant, e webhook.Event) (bool, error)
	PutAudit(ctx context.Context, e audit.Entry) error
}

// EndpointDeps is what Endpoints needs.
type EndpointDeps struct {
	Store EndpointStore
	// Sealer seals new signing secrets (add, rotate); read on first use.
	Sealer func(context.Context) (*webhook.Sealer, error)
	// CheckURL is the endpoints' URL rule (webhookhttp.CheckURL: scheme,
	// https when live, no userinfo): required.
	CheckURL func(url string, live bool) error
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Endpoints manages partners' webhook endpoints, for opctl and the
// dashboard alike: every method works within one partner (an endpoint or
// delivery of another partner is not_found), and every change takes an
// audit.Actor and writes its audit entry (with the change where the store
// can, right after it otherwise).
type Endpoints struct{ d EndpointDeps }

// NewEndpoints returns the service over d.
func NewEndpoints(d EndpointDeps) *Endpoints {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Endpoints{d: d}
}

// ErrDisabled is the cause of the conflict error of sending to a disabled
// endpoint (a test event, a redelivery): enable it first.
var ErrDisabled = errors.New("webhook endpoint disabled")

// Added is a new endpoint and its signing secret, shown once.
type Added struct {
	Endpoint webhook.Endpoint
	Secret   string
}

// Add registers an endpoint of tenant t at url receiving types (nil:
// every type; kept in catalogue order) on behalf of actor. A URL the rule
// refuses or an invalid actor → validation_failed; unknown partner →
// not_found; nothing is written then.
func (s *Endpoints) Add(ctx context.Context, actor audit.Actor, t auth.Tenant, url string, types []webhook.Type) (Added, error) {
	if err := actor.Check(); err != nil {
		return Added{}, errcode.New(errcode.ValidationFailed, "%s", err)
	}
	if s.d.CheckURL == nil {
		return Added{}, errors.New("webhooks: EndpointDeps.CheckURL is not set")
	}
	if err := s.d.CheckURL(url, t.Mode == auth.Live); err != nil {
		return Added{}, errcode.New(errcode.ValidationFailed, "url: %s", err)
	}
	sl, err := s.d.Sealer(ctx)
	if err != nil {
		return Added{}, err
	}
	if _, err := s.d.Store.GetPartner(ctx, t.PartnerID); err != nil {
		return Added{}, err
	}
	now := s.d.Now()
	e, secret, err := webhook.NewEndpoint(t, url, CatalogueOrder(types), sl, now)
	if err != nil {
		return Added{}, fmt.Errorf("new webhook endpoint: %w", err)
	}
	if err := s.d.Store.PutEndpoint(ctx, e, entry(actor, audit.EndpointAdded, e, string(t.Mode)+" "+url, now)); err != nil {
		return Added{}, err
	}
	return Added{Endpoint: e, Secret: secret}, nil
}

// CatalogueOrder returns ts without repeats, in the order of
// webhook.Catalogue; nil stays nil (every type).
func CatalogueOrder(ts []webhook.Type) []webhook.Type {
	if ts == nil {
		return nil
	}
	var out []webhook.Type
	for _, k := range webhook.Catalogue {
		if slices.Contains(ts, k.Type) {
			out = append(out, k.Type)
		}
	}
	return out
}

func entry(actor audit.Actor, a audit.Action, e webhook.Endpoint, detail string, at time.Time) audit.Entry {
	return audit.Entry{
		PartnerID: e.Tenant.PartnerID, Actor: actor, Action: a, TargetKind: audit.TargetEndpoint, TargetID: e.ID,
		Detail: detail, At: at,
	}
}

// List returns partner partnerID's endpoints of modes (none: both),
// each mode's oldest first. Unknown partner → not_found.
func (s *Endpoints) List(ctx context.Context, partnerID string, modes ...auth.Mode) ([]webhook.Endpoint, error) {
	if _, err := s.d.Store.GetPartner(ctx, partnerID); err != nil {
		return nil, err
	}
	if len(modes) == 0 {
		modes = []auth.Mode{auth.Test, auth.Live}
	}
	out := []webhook.Endpoint{}
	for _, m := range modes {
		eps, err := s.d.Store.TenantEndpoints(ctx, auth.Tenant{PartnerID: partnerID, Mode: m})
		if err != nil {
			return nil, err
		}
		out = append(out, eps...)
	}
	return out, nil
}

// Get returns partner partnerID's endpoint id; another partner's, or
// none, → not_found.
func (s *Endpoints) Get(ctx context.Context, partnerID, id string) (webhook.Endpoint, error) {
	e, err := s.d.Store.GetEndpoint(ctx, id)
	if ec := errcode.As(err); (ec != nil && ec.Code == errcode.NotFound) || (err == nil && e.Tenant.PartnerID != partnerID) {
		return webhook.Endpoint{}, errcode.New(errcode.NotFound, "No webhook endpoint %s in this account.", id)
	}
	return e, err
}

// Disable stops deliveries to partner partnerID's endpoint id, recording
// reason, on behalf of actor. An endpoint disabled already keeps its
// reason and time (why it stopped first is what the partner will ask) and
// nothing is written.
func (s *Endpoints) Disable(ctx context.Context, actor audit.Actor, partnerID, id, reason string) (webhook.Endpoint, error) {
	e, err := s.change(ctx, actor, partnerID, id)
	if err != nil || e.Disabled {
		return e, err
	}
	now := s.d.Now()
	e.Disabled, e.DisabledReason, e.DisabledAt = true, reason, now
	return e, s.d.Store.UpdateEndpoint(ctx, e, entry(actor, audit.EndpointDisabled, e, reason, now))
}

// Enable resumes deliveries to partner partnerID's endpoint id and ends
// its run of failures, on behalf of actor; an enabled, healthy endpoint
// is left as it is. Deliveries that failed meanwhile are not sent again
// (Redeliver each).
func (s *Endpoints) Enable(ctx context.Context, actor audit.Actor, partnerID, id string) (webhook.Endpoint, error) {
	e, err := s.change(ctx, actor, partnerID, id)
	if err != nil || (!e.Disabled && e.FailingSince.IsZero()) {
		return e, err
	}
	e.Disabled, e.DisabledReason, e.DisabledAt, e.FailingSince = false, "", time.Time{}, time.Time{}
	return e, s.d.Store.UpdateEndpoint(ctx, e, entry(actor, audit.EndpointEnabled, e, "", s.d.Now()))
}

// change checks actor and returns partner partnerID's endpoint id.
func (s *Endpoints) change(ctx context.Context, actor audit.Actor, partnerID, id string) (webhook.Endpoint, error) {
	if err := actor.Check(); err != nil {
		return webhook.Endpoint{}, errcode.New(errcode.ValidationFailed, "%s", err)
	}
	return s.Get(ctx, partnerID, id)
}

// Rotated is a rotation's outcome: the endpoint, its new secret (shown
// once), when the secret it replaced stops signing, and, when a secret
// from an earlier rotation was still signing, until when it would have
// (it stopped now; zero otherwise).
type Rotated struct {
	Endpoint      webhook.Endpoint
	Secret        string
	PreviousUntil time.Time
	CutShort      time.Time
}

// RotateSecret gives partner partnerID's endpoint id a new signing
// secret on behalf of actor; until Next.PreviousUntil deliveries are
// signed with both. Secrets that do not open with the sealing key → an
// error wrapping webhook.ErrSealed, nothing changed.
func (s *Endpoints) RotateSecret(ctx context.Context, actor audit.Actor, partnerID, id string) (Rotated, error) {
	sl, err := s.d.Sealer(ctx)
	if err != nil {
		return Rotated{}, err
	}
	e, err := s.change(ctx, actor, partnerID, id)
	if err != nil {
		return Rotated{}, err
	}
	cur, err := e.Open(sl)
	if err != nil {
		return Rotated{}, fmt.Errorf("open the signing secrets of webhook endpoint %s: %w", id, err)
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return Rotated{}, err
	}
	now := s.d.Now()
	next := cur.Rotate(secret, now)
	if e.Sealed, err = next.Seal(sl, e.ID); err != nil {
		return Rotated{}, fmt.Errorf("seal the signing secret: %w", err)
	}
	if err := s.d.Store.UpdateEndpoint(ctx, e, entry(actor, audit.EndpointSecretRotated, e, "", now)); err != nil {
		return Rotated{}, err
	}
	out := Rotated{Endpoint: e, Secret: secret, PreviousUntil: next.PreviousUntil}
	if cur.Previous != "" && now.Before(cur.PreviousUntil) {
		out.CutShort = cur.PreviousUntil
	}
	return out, nil
}
