// Package eventfeed is the events API: listEvents and getEvent as plain Go
// over the webhook domain, and their endpoints for the request pipeline.
// An event is shown with the type and data of its webhook payload, its id
// and created_at, for 30 days (webhook.Retention), newest first, paged by
// the same signed keyset cursors as listLeads (shared/app/pagecursor).
// A webhook.test sent to one endpoint is never shown (webhook.Event.Listed).
// Storage is the Store interface below, which shared/adapter/dynamo
// implements. See docs/API.md, "Events".
package eventfeed

import (
	"context"
	"encoding/json"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pagecursor"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Store is the event storage the service needs.
type Store interface {
	// ListEvents returns up to q.Limit of the tenant's listed events,
	// newest first, and whether more follow.
	ListEvents(ctx context.Context, t auth.Tenant, q webhook.ListQuery) ([]webhook.Event, bool, error)
	// GetEvent returns the tenant's event id, whatever its age, or
	// not_found.
	GetEvent(ctx context.Context, t auth.Tenant, id string) (webhook.Event, error)
}

// Service runs the event operations.
type Service struct {
	store  Store
	cursor func(context.Context) (*pagecursor.Signer, error)
}

// New returns the event service over store. cursorKey returns the key
// that signs list cursors (read lazily; only listEvents calls it).
func New(store Store, cursorKey func(context.Context) ([]byte, error)) *Service {
	return &Service{store: store, cursor: pagecursor.Lazy(cursorKey)}
}

// View is one event as the API shows it.
type View struct {
	ID        string          `json:"id"`
	Type      webhook.Type    `json:"type"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

func view(e webhook.Event) View {
	return View{ID: e.ID, Type: e.Type, CreatedAt: lead.FormatTime(e.At), Data: e.Data}
}

// ListView is listEvents' answer, in listLeads' shape.
type ListView struct {
	Data       []View  `json:"data"`
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// List returns the page q selects and, when more follow, the cursor of
// the next page (signed, bound to t and to this listing).
func (s *Service) List(ctx context.Context, t auth.Tenant, q webhook.ListQuery) (ListView, error) {
	evs, more, err := s.store.ListEvents(ctx, t, q)
	if err != nil {
		return ListView{}, err
	}
	v := ListView{Data: make([]View, len(evs))}
	for i, e := range evs {
		v.Data[i] = view(e)
	}
	if more && len(evs) > 0 {
		signer, err := s.cursor(ctx)
		if err != nil {
			return ListView{}, err
		}
		last := evs[len(evs)-1]
		c := signer.Encode(pagecursor.Events, t.PartnerID, string(t.Mode), pagecursor.Position{At: lead.FormatTime(last.At), ID: last.ID})
		v.NextCursor, v.HasMore = &c, true
	}
	return v, nil
}

// Get returns tenant t's event id as listEvents shows it: not_found when
// there is none, or it is not listed at now (older than 30 days, or a
// webhook.test to one endpoint), like another tenant's.
func (s *Service) Get(ctx context.Context, t auth.Tenant, id string, now time.Time) (View, error) {
	e, err := s.store.GetEvent(ctx, t, id)
	if err != nil {
		return View{}, err
	}
	if !e.Listed(now) {
		return View{}, errcode.New(errcode.NotFound, "No event with that id exists for this API key.")
	}
	return view(e), nil
}
