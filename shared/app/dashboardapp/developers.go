package dashboardapp

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/webhooks"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// stamp is how the Developers pages show a time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func actor(v *pipeline.Viewer) audit.Actor { return audit.ByPerson(v.Person.ID, v.Person.Email) }

// form parses a posted form; a malformed one is a validation error.
func form(c *pipeline.Call) (map[string]string, error) {
	f, ok := dashboard.ParseForm(c.Body)
	if !ok {
		return nil, errcode.New(errcode.ValidationFailed, "The form could not be read; reload the page and try again.")
	}
	return f, nil
}

// keyRow is one row of the API keys page.
type keyRow struct {
	ID, Prefix, Mode, Scopes, Created, LastUsed, CreatedBy, Revoked string
}

// shownSecret is a secret shown once after it was made.
type shownSecret struct{ Label, Value, Note string }

// keysView is the API keys page.
type keysView struct {
	shell
	Keys   []keyRow
	Scopes []string
	Recent bool
	Shown  *shownSecret
}

func (s *Service) keys(ctx context.Context, c *pipeline.Call) (any, error) {
	return s.keysPage(ctx, c, nil)
}

func (s *Service) keysPage(ctx context.Context, c *pipeline.Call, shown *shownSecret) (any, error) {
	v := c.Viewer
	ks, err := s.d.Keys.List(ctx, v.Person.PartnerID)
	if err != nil {
		return nil, err
	}
	var rows []keyRow
	for _, k := range ks {
		if k.Mode != v.Session.Mode {
			continue
		}
		r := keyRow{ID: k.KeyID, Prefix: k.Prefix() + "…", Mode: string(k.Mode), Scopes: scopeList(k.Scopes),
			Created: stamp(k.CreatedAt), LastUsed: "never", CreatedBy: actorName(k.CreatedBy)}
		if k.CreatedBy.IsZero() {
			r.CreatedBy = "—"
		}
		if k.LastUsedAt != nil {
			r.LastUsed = stamp(*k.LastUsedAt)
		}
		if k.RevokedAt != nil {
			r.Revoked = stamp(*k.RevokedAt)
		}
		rows = append(rows, r)
	}
	scopes := make([]string, len(auth.AllScopes))
	for i, sc := range auth.AllScopes {
		scopes[i] = string(sc)
	}
	return page(200, keysDocument(keysView{newShell("API keys", v), rows, scopes, v.Session.Recent(c.Now), shown}))
}

func scopeList(ss []auth.Scope) string {
	names := make([]string, len(ss))
	for i, sc := range ss {
		names[i] = string(sc)
	}
	return strings.Join(names, ", ")
}

// keyCreate makes a key of the session's mode with the ticked scopes
// (fields scope_<name>=on) and shows it once.
func (s *Service) keyCreate(ctx context.Context, c *pipeline.Call) (any, error) {
	f, err := form(c)
	if err != nil {
		return nil, err
	}
	var scopes []auth.Scope
	for _, sc := range auth.AllScopes {
		if f["scope_"+string(sc)] == "on" {
			scopes = append(scopes, sc)
		}
	}
	v := c.Viewer
	k, err := s.d.Keys.Create(ctx, actor(v), v.Person.PartnerID, v.Session.Mode, scopes)
	if err != nil {
		return nil, err
	}
	return s.keysPage(ctx, c, &shownSecret{Label: "Your new " + string(k.Mode) + " key " + k.KeyID, Value: k.Secret,
		Note: "Copy it now: this is the only time it is shown. Only its digest is stored."})
}

func (s *Service) keyRevoke(ctx context.Context, c *pipeline.Call) (any, error) {
	v := c.Viewer
	k, err := s.d.Keys.Get(ctx, v.Person.PartnerID, c.PathParam)
	if err != nil {
		return nil, err
	}
	if k.Mode != v.Session.Mode {
		return nil, errcode.New(errcode.NotFound, "No API key %s in this account's %s data.", c.PathParam, v.Session.Mode)
	}
	if _, err := s.d.Keys.Revoke(ctx, actor(v), v.Person.PartnerID, k.KeyID); err != nil {
		return nil, err
	}
	return redirect("/dashboard/developers/keys", ""), nil
}

// endpointRow is one webhook endpoint as the pages show it.
type endpointRow struct {
	ID, URL, Types, Created, State string
	Disabled                       bool
}

func endpointView(e webhook.Endpoint) endpointRow {
	r := endpointRow{ID: e.ID, URL: e.URL, Types: "all events", Created: stamp(e.CreatedAt), State: "enabled", Disabled: e.Disabled}
	if e.Types != nil {
		ts := make([]string, len(e.Types))
		for i, t := range e.Types {
			ts[i] = string(t)
		}
		r.Types = strings.Join(ts, ", ")
	}
	switch {
	case e.Disabled:
		r.State = "disabled: " + e.DisabledReason
	case !e.FailingSince.IsZero():
		r.State = "failing since " + stamp(e.FailingSince)
	}
	return r
}

// webhooksView is the Webhooks page.
type webhooksView struct {
	shell
	Endpoints []endpointRow
	Shown     *shownSecret
}

// schemeRule says which endpoint addresses the mode takes.
func (v webhooksView) schemeRule() string {
	if v.Live {
		return "Live endpoints must use https."
	}
	return "Test endpoints may use http."
}

func (s *Service) webhooksPage(ctx context.Context, c *pipeline.Call, shown *shownSecret) (any, error) {
	v := c.Viewer
	eps, err := s.d.Hooks.List(ctx, v.Person.PartnerID, v.Session.Mode)
	if err != nil {
		return nil, err
	}
	rows := make([]endpointRow, len(eps))
	for i, e := range eps {
		rows[i] = endpointView(e)
	}
	return page(200, webhooksDocument(webhooksView{newShell("Webhooks", v), rows, shown}))
}

func (s *Service) webhooks(ctx context.Context, c *pipeline.Call) (any, error) {
	return s.webhooksPage(ctx, c, nil)
}

func (s *Service) webhookAdd(ctx context.Context, c *pipeline.Call) (any, error) {
	f, err := form(c)
	if err != nil {
		return nil, err
	}
	v := c.Viewer
	u := strings.TrimSpace(f["url"])
	if u == "" {
		return nil, errcode.New(errcode.ValidationFailed, "Enter the endpoint's URL.").WithDetail("fields", map[string]string{"url": "required"})
	}
	added, err := s.d.Hooks.Add(ctx, actor(v), v.Session.Tenant(), u, nil)
	if err != nil {
		return nil, err
	}
	return s.webhooksPage(ctx, c, &shownSecret{Label: "Signing secret of " + added.Endpoint.URL, Value: added.Secret,
		Note: "Copy it now: this is the only time it is shown. Verify each delivery's webhook-signature with it (Standard Webhooks)."})
}

// endpoint is the session's endpoint in the path: another partner's, or
// one of the other mode, is not found.
func (s *Service) endpoint(ctx context.Context, c *pipeline.Call) (webhook.Endpoint, error) {
	v := c.Viewer
	e, err := s.d.Hooks.Get(ctx, v.Person.PartnerID, c.PathParam)
	if err == nil && e.Tenant.Mode != v.Session.Mode {
		err = errcode.New(errcode.NotFound, "No webhook endpoint %s in this account's %s data.", c.PathParam, v.Session.Mode)
	}
	return e, err
}

// attemptRow is one attempt of the delivery log.
type attemptRow struct {
	N                         int
	At, Status, Latency, Body string
	OK                        bool
}

// deliveryRow is one delivery of the log.
type deliveryRow struct {
	EventID, Type, Status, Endpoint, URL string
	Attempts                             []attemptRow
}

func deliveryView(l webhooks.Logged) deliveryRow {
	d := deliveryRow{EventID: l.Event.ID, Type: string(l.Event.Type), Status: string(l.Status), Endpoint: l.EndpointID}
	for _, a := range l.Attempts {
		r := attemptRow{N: a.N, At: stamp(a.At), Latency: a.Latency.Round(time.Millisecond).String(), Body: a.Body, OK: a.OK()}
		r.Status = "no answer: " + a.Error
		if a.Status != 0 {
			r.Status = strconv.Itoa(a.Status)
		}
		d.Attempts = append(d.Attempts, r)
	}
	return d
}

// webhookView is one endpoint's page.
type webhookView struct {
	shell
	Endpoint   endpointRow
	Deliveries []deliveryRow
	Shown      *shownSecret
	Note       string
	Recent     bool // rotating needs a recent sign-in: else the page offers the passkey
}

func (s *Service) webhookPage(ctx context.Context, c *pipeline.Call, shown *shownSecret, note string) (any, error) {
	e, err := s.endpoint(ctx, c)
	if err != nil {
		return nil, err
	}
	_, ls, err := s.d.Hooks.Deliveries(ctx, e.Tenant.PartnerID, e.ID, 50)
	if err != nil {
		return nil, err
	}
	rows := make([]deliveryRow, len(ls))
	for i, l := range ls {
		rows[i] = deliveryView(l)
	}
	return page(200, webhookDocument(webhookView{newShell("Webhook endpoint", c.Viewer), endpointView(e), rows, shown, note, c.Viewer.Session.Recent(c.Now)}))
}

func (s *Service) webhook(ctx context.Context, c *pipeline.Call) (any, error) {
	return s.webhookPage(ctx, c, nil, "")
}

func (s *Service) back(c *pipeline.Call) pipeline.Document {
	return redirect("/dashboard/developers/webhooks/"+url.PathEscape(c.PathParam), "")
}

func (s *Service) webhookDisable(ctx context.Context, c *pipeline.Call) (any, error) {
	if _, err := s.endpoint(ctx, c); err != nil {
		return nil, err
	}
	if _, err := s.d.Hooks.Disable(ctx, actor(c.Viewer), c.Viewer.Person.PartnerID, c.PathParam, "disabled in the dashboard by "+c.Viewer.Person.Email); err != nil {
		return nil, err
	}
	return s.back(c), nil
}

func (s *Service) webhookEnable(ctx context.Context, c *pipeline.Call) (any, error) {
	if _, err := s.endpoint(ctx, c); err != nil {
		return nil, err
	}
	if _, err := s.d.Hooks.Enable(ctx, actor(c.Viewer), c.Viewer.Person.PartnerID, c.PathParam); err != nil {
		return nil, err
	}
	return s.back(c), nil
}

func (s *Service) webhookRotate(ctx context.Context, c *pipeline.Call) (any, error) {
	if _, err := s.endpoint(ctx, c); err != nil {
		return nil, err
	}
	r, err := s.d.Hooks.RotateSecret(ctx, actor(c.Viewer), c.Viewer.Person.PartnerID, c.PathParam)
	if err != nil {
		return nil, err
	}
	return s.webhookPage(ctx, c, &shownSecret{Label: "New signing secret", Value: r.Secret,
		Note: "Copy it now: this is the only time it is shown. Deliveries are signed with the old secret too until " + stamp(r.PreviousUntil) + "."}, "")
}

func (s *Service) webhookTest(ctx context.Context, c *pipeline.Call) (any, error) {
	if _, err := s.endpoint(ctx, c); err != nil {
		return nil, err
	}
	ev, err := s.d.Hooks.SendTest(ctx, actor(c.Viewer), c.Viewer.Person.PartnerID, c.PathParam)
	if err != nil {
		return nil, err
	}
	return s.webhookPage(ctx, c, nil, "Test event "+ev.ID+" is on its way; reload to see its attempt.")
}

func (s *Service) redeliver(ctx context.Context, c *pipeline.Call) (any, error) {
	f, err := form(c)
	if err != nil {
		return nil, err
	}
	if !webhook.ValidID(f["event_id"]) {
		return nil, errcode.New(errcode.ValidationFailed, "event_id must name an event of this endpoint's log.").WithDetail("fields", map[string]string{"event_id": "must be an event id"})
	}
	if _, err := s.endpoint(ctx, c); err != nil {
		return nil, err
	}
	if _, err := s.d.Hooks.Redeliver(ctx, actor(c.Viewer), c.Viewer.Person.PartnerID, c.PathParam, f["event_id"]); err != nil {
		return nil, err
	}
	return s.webhookPage(ctx, c, nil, "Delivery of "+f["event_id"]+" is due again: the retrier sends it within a minute, with the same webhook-id; reload to see its attempt.")
}

// eventRow is one event of the Events page.
type eventRow struct{ ID, Type, Created, LeadID string }

// eventsView is the Events page.
type eventsView struct {
	shell
	Events       []eventRow
	Types        []string
	Type, LeadID string
	Next         string
}

func (s *Service) events(ctx context.Context, c *pipeline.Call) (any, error) {
	params := map[string]string{"limit": "25"}
	for _, k := range []string{"type", "lead_id", "cursor"} {
		if v := strings.TrimSpace(c.Query[k]); v != "" {
			params[k] = v
		}
	}
	lv, err := s.d.Events.ListParams(ctx, c.Viewer.Session.Tenant(), params, c.Now)
	if err != nil {
		return nil, err
	}
	rows := make([]eventRow, len(lv.Data))
	for i, e := range lv.Data {
		var d struct {
			LeadID string `json:"lead_id"`
		}
		_ = json.Unmarshal(e.Data, &d)
		rows[i] = eventRow{ID: e.ID, Type: string(e.Type), Created: e.CreatedAt, LeadID: d.LeadID}
	}
	var next string
	if lv.NextCursor != nil {
		q := url.Values{"cursor": {*lv.NextCursor}}
		for _, k := range []string{"type", "lead_id"} {
			if params[k] != "" {
				q.Set(k, params[k])
			}
		}
		next = "/dashboard/developers/events?" + q.Encode()
	}
	var types []string
	for _, k := range webhook.Catalogue {
		if k.Type != webhook.Test {
			types = append(types, string(k.Type))
		}
	}
	return page(200, eventsDocument(eventsView{newShell("Events", c.Viewer), rows, types, params["type"], params["lead_id"], next}))
}

// eventPageView is one event's page.
type eventPageView struct {
	shell
	ID, Type, Created, Payload string
	Deliveries                 []deliveryRow
}

func (s *Service) event(ctx context.Context, c *pipeline.Call) (any, error) {
	t := c.Viewer.Session.Tenant()
	e, err := s.d.Events.Get(ctx, t, c.ID, c.Now)
	if err != nil {
		return nil, err
	}
	ls, err := s.d.Hooks.EventDeliveries(ctx, t, e.ID)
	if err != nil {
		return nil, err
	}
	eps, err := s.d.Hooks.List(ctx, t.PartnerID, t.Mode)
	if err != nil {
		return nil, err
	}
	urls := map[string]string{}
	for _, ep := range eps {
		urls[ep.ID] = ep.URL
	}
	rows := make([]deliveryRow, len(ls))
	for i, l := range ls {
		rows[i] = deliveryView(l)
		rows[i].URL = urls[l.EndpointID]
	}
	payload, _ := json.MarshalIndent(e, "", "  ")
	return page(200, eventDocument(eventPageView{newShell("Event "+e.ID, c.Viewer), e.ID, string(e.Type), e.CreatedAt, string(payload), rows}))
}
