package dashboardapp

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/app/apikeys"
	"github.com/moveleads/partnerapi/shared/app/eventfeed"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/app/webhooks"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Store is what the dashboard needs of storage (dynamo.Store).
type Store interface {
	pipeline.SessionStore
	Invitation(ctx context.Context, hash string, now time.Time) (dashboard.Invitation, error)
	AcceptInvitation(ctx context.Context, hash string, p dashboard.Person, c dashboard.Credential, s dashboard.Session, a audit.Entry) error
	PutCeremony(ctx context.Context, hash string, data []byte, now time.Time) error
	TakeCeremony(ctx context.Context, hash string, now time.Time) ([]byte, error)
	Person(ctx context.Context, id string) (dashboard.Person, error)
	People(ctx context.Context, partnerID string) ([]dashboard.Person, error)
	Passkeys(ctx context.Context, personID string) ([]dashboard.Credential, error)
	AddPasskey(ctx context.Context, c dashboard.Credential, a audit.Entry) error
	SavePasskey(ctx context.Context, c dashboard.Credential) error
	RemovePerson(ctx context.Context, personID string, a audit.Entry) error
	CreateSession(ctx context.Context, s dashboard.Session) error
	DeleteSession(ctx context.Context, hash string) error
	SetSessionMode(ctx context.Context, hash string, mode auth.Mode) error
	VerifySession(ctx context.Context, hash string, now time.Time) error
	ListAudit(ctx context.Context, partnerID string, limit int) ([]audit.Entry, error)
	// GetQuote reads a lead's quote: its terms for the lead's page.
	GetQuote(ctx context.Context, t auth.Tenant, leadID, quoteID string) (record.Quote, error)
}

// Passkeys runs WebAuthn ceremonies (passkey.Passkeys).
type Passkeys interface {
	BeginRegistration(p dashboard.Person, creds []dashboard.Credential) (options, state []byte, err error)
	FinishRegistration(p dashboard.Person, creds []dashboard.Credential, state, response []byte, now time.Time) (dashboard.Credential, error)
	BeginSignIn() (options, state []byte, err error)
	FinishSignIn(state, response []byte, lookup func(personID string) (dashboard.Person, []dashboard.Credential, error), now time.Time) (dashboard.Person, dashboard.Credential, error)
}

// Deps is what the dashboard's endpoints need.
type Deps struct {
	Store    Store
	Passkeys Passkeys
	// Keys, Hooks and Events serve the Developers pages; Events also a
	// lead's page.
	Keys   *apikeys.Service
	Hooks  *webhooks.Endpoints
	Events *eventfeed.Service
	// BaseURL is the public base URL; its origin is the only one a state
	// change is accepted from.
	BaseURL string
	// Leads, Clips and SurveyLinks serve the leads pages (with Events).
	Leads       Leads
	Clips       Clips
	SurveyLinks SurveyLinks
}

// Service serves the dashboard's routes.
type Service struct {
	d    Deps
	gate *pipeline.DashboardGate
}

// New returns the Service over d.
func New(d Deps) *Service {
	return &Service{d: d, gate: &pipeline.DashboardGate{Sessions: d.Store, Origin: dashboard.SiteURL(d.BaseURL)}}
}

// Endpoints returns one endpoint per manifest.DashboardRoutes route.
func (s *Service) Endpoints() []pipeline.Endpoint {
	h := map[manifest.Operation]func(context.Context, *pipeline.Call) (any, error){
		manifest.DashboardAsset: s.asset, manifest.DashboardSignInPage: s.signInPage,
		manifest.DashboardSignInBegin: s.signInBegin, manifest.DashboardSignInFinish: s.signInFinish,
		manifest.DashboardInvitationPage: s.invitationPage, manifest.DashboardInvitationBegin: s.invitationBegin,
		manifest.DashboardInvitationFinish: s.invitationFinish, manifest.DashboardHome: s.home,
		manifest.DashboardSignOut: s.signOut, manifest.DashboardMode: s.mode,
		manifest.DashboardReauthBegin: s.reauthBegin, manifest.DashboardReauthFinish: s.reauthFinish,
		manifest.DashboardPeople: s.people, manifest.DashboardPasskeyBegin: s.passkeyBegin,
		manifest.DashboardPasskeyFinish: s.passkeyFinish, manifest.DashboardPersonRemove: s.removePerson,
		manifest.DashboardAudit: s.audit,
		manifest.DashboardKeys:  s.keys, manifest.DashboardKeyCreate: s.keyCreate, manifest.DashboardKeyRevoke: s.keyRevoke,
		manifest.DashboardWebhooks: s.webhooks, manifest.DashboardWebhookAdd: s.webhookAdd, manifest.DashboardWebhook: s.webhook,
		manifest.DashboardWebhookDisable: s.webhookDisable, manifest.DashboardWebhookEnable: s.webhookEnable,
		manifest.DashboardWebhookRotate: s.webhookRotate, manifest.DashboardWebhookTest: s.webhookTest,
		manifest.DashboardRedeliver: s.redeliver, manifest.DashboardEvents: s.events, manifest.DashboardEvent: s.event,
		manifest.DashboardLeads: s.leads, manifest.DashboardLead: s.lead, manifest.DashboardLeadSurveyLink: s.surveyLink,
	}
	var eps []pipeline.Endpoint
	for _, rt := range manifest.DashboardRoutes() {
		run := h[rt.Operation]
		eps = append(eps, pipeline.Endpoint{
			Operation: rt.Operation, Dashboard: s.gate, RenderError: renderError,
			Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
				return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) { return run(ctx, c) }}, nil
			},
		})
	}
	return eps
}

// renderError is a page's error as a page.
func renderError(err error) pipeline.Document {
	e := errcode.As(err)
	status, title, msg := 500, "Something went wrong", "An internal error occurred; nothing was changed. Try again."
	if e != nil && e.Code != errcode.Internal {
		status, title, msg = errcode.Status(e.Code), "This did not work", e.Message
	}
	d, rerr := page(status, errorDocument(title, msg))
	if rerr != nil {
		return pipeline.Document{Status: 500, Header: Headers(), Body: []byte("Internal error")}
	}
	return d
}

func redirect(to string, cookie string) pipeline.Document {
	h := map[string]string{"Location": to, "Cache-Control": "no-store"}
	if cookie != "" {
		h["Set-Cookie"] = cookie
	}
	return pipeline.Document{Status: 303, Header: h}
}

func (s *Service) asset(_ context.Context, c *pipeline.Call) (any, error) {
	if d, ok := asset(c.PathParam); ok {
		return d, nil
	}
	return nil, errcode.New(errcode.NotFound, "No such dashboard asset.")
}

func (s *Service) signInPage(_ context.Context, _ *pipeline.Call) (any, error) {
	return page(200, signInDocument())
}

// ceremony is what a WebAuthn ceremony keeps between begin and finish.
type ceremony struct {
	State      []byte `json:"state"`
	Kind       string `json:"kind"`
	PersonID   string `json:"person_id,omitempty"`
	Invitation string `json:"invitation,omitempty"`
	Session    string `json:"session,omitempty"`
}

// begin stores c and answers the options with the ceremony's id.
func (s *Service) begin(ctx context.Context, now time.Time, options []byte, c ceremony) (any, error) {
	id, err := linktoken.New()
	if err != nil {
		return nil, err
	}
	hash, _ := linktoken.Parse(id)
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if err := s.d.Store.PutCeremony(ctx, hash, b, now); err != nil {
		return nil, err
	}
	return map[string]any{"ceremony": id, "options": json.RawMessage(options)}, nil
}

// finishBody is a finish call's body.
type finishBody struct {
	Ceremony   string          `json:"ceremony"`
	Credential json.RawMessage `json:"credential"`
}

// finish takes the ceremony the body names, of kind.
func (s *Service) finish(ctx context.Context, c *pipeline.Call, kind string) (ceremony, []byte, error) {
	var b finishBody
	if err := json.Unmarshal(c.Body, &b); err != nil || len(b.Credential) == 0 {
		return ceremony{}, nil, errcode.New(errcode.PasskeyFailed, "The passkey response is missing or malformed; start again.")
	}
	hash, err := linktoken.Parse(b.Ceremony)
	if err != nil {
		return ceremony{}, nil, errcode.New(errcode.PasskeyFailed, "This passkey request is unknown; start again.")
	}
	data, err := s.d.Store.TakeCeremony(ctx, hash, c.Now)
	if err != nil {
		return ceremony{}, nil, err
	}
	var cer ceremony
	if err := json.Unmarshal(data, &cer); err != nil {
		return ceremony{}, nil, err
	}
	if cer.Kind != kind {
		return ceremony{}, nil, errcode.New(errcode.PasskeyFailed, "This passkey request is of another kind; start again.")
	}
	return cer, b.Credential, nil
}

// lookup finds a passkey's person for a sign-in.
func (s *Service) lookup(ctx context.Context) func(string) (dashboard.Person, []dashboard.Credential, error) {
	return func(id string) (dashboard.Person, []dashboard.Credential, error) {
		p, err := s.d.Store.Person(ctx, id)
		if err != nil {
			return dashboard.Person{}, nil, err
		}
		creds, err := s.d.Store.Passkeys(ctx, id)
		return p, creds, err
	}
}

// newSession opens a session for p at now and answers with its cookie.
func (s *Service) newSession(ctx context.Context, p dashboard.Person, now time.Time) (dashboard.Session, string, error) {
	token, err := linktoken.New()
	if err != nil {
		return dashboard.Session{}, "", err
	}
	hash, _ := linktoken.Parse(token)
	return dashboard.Session{Hash: hash, PersonID: p.ID, PartnerID: p.PartnerID, Mode: auth.Test,
		CreatedAt: now, LastSeen: now, VerifiedAt: now}, token, nil
}

func signedIn(token string) pipeline.Document {
	return pipeline.Document{Status: 200, Header: map[string]string{
		"Content-Type": "application/json", "Set-Cookie": dashboard.SessionCookie(token), "Cache-Control": "no-store",
	}, Body: []byte(`{"redirect":"/dashboard"}`)}
}

func (s *Service) signInBegin(ctx context.Context, c *pipeline.Call) (any, error) {
	opts, state, err := s.d.Passkeys.BeginSignIn()
	if err != nil {
		return nil, err
	}
	return s.begin(ctx, c.Now, opts, ceremony{State: state, Kind: "signin"})
}

func (s *Service) signInFinish(ctx context.Context, c *pipeline.Call) (any, error) {
	cer, resp, err := s.finish(ctx, c, "signin")
	if err != nil {
		return nil, err
	}
	p, cred, err := s.d.Passkeys.FinishSignIn(cer.State, resp, s.lookup(ctx), c.Now)
	if err != nil {
		return nil, unknownPasskey(err)
	}
	if err := s.d.Store.SavePasskey(ctx, cred); err != nil {
		return nil, unknownPasskey(err)
	}
	ses, token, err := s.newSession(ctx, p, c.Now)
	if err != nil {
		return nil, err
	}
	if err := s.d.Store.CreateSession(ctx, ses); err != nil {
		return nil, err
	}
	return signedIn(token), nil
}

// unknownPasskey is the one answer to a passkey of a removed person.
func unknownPasskey(err error) error {
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return errcode.New(errcode.PasskeyFailed, "This passkey is not known here (its person may have been removed).")
	}
	return err
}

// invitation resolves the invitation in the path, counting the attempt
// against it too.
func (s *Service) invitation(ctx context.Context, c *pipeline.Call) (dashboard.Invitation, string, error) {
	hash, err := linktoken.Parse(c.PathParam)
	if err != nil {
		return dashboard.Invitation{}, "", invitationGone()
	}
	u, err := s.d.Store.CountAttempt(ctx, "inv#"+hash, c.Now, dashboard.AttemptLimit)
	if err != nil {
		return dashboard.Invitation{}, "", err
	}
	if !u.Admitted {
		return dashboard.Invitation{}, "", errcode.New(errcode.RateLimited, "Too many attempts with this invitation; retry in a minute.")
	}
	inv, err := s.d.Store.Invitation(ctx, hash, c.Now)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return dashboard.Invitation{}, "", invitationGone()
	}
	return inv, hash, err
}

func invitationGone() error {
	return errcode.New(errcode.NotFound, "This invitation is not valid: it was already used, it expired (invitations last 24 hours), or the link is incomplete. Ask for a new one.")
}

func (s *Service) invitationPage(ctx context.Context, c *pipeline.Call) (any, error) {
	inv, _, err := s.invitation(ctx, c)
	if err != nil {
		return nil, err
	}
	return page(200, invitationDocument(invitationView{Email: inv.Email, Role: string(inv.Role),
		Expires: inv.ExpiresAt.UTC().Format("2 Jan 2006 15:04 UTC"), Path: "/dashboard/invitations/" + c.PathParam}))
}

func (s *Service) invitationBegin(ctx context.Context, c *pipeline.Call) (any, error) {
	inv, hash, err := s.invitation(ctx, c)
	if err != nil {
		return nil, err
	}
	p := dashboard.Person{ID: uuid.NewString(), PartnerID: inv.PartnerID, Email: inv.Email, Role: inv.Role}
	opts, state, err := s.d.Passkeys.BeginRegistration(p, nil)
	if err != nil {
		return nil, err
	}
	return s.begin(ctx, c.Now, opts, ceremony{State: state, Kind: "invite", PersonID: p.ID, Invitation: hash})
}

func (s *Service) invitationFinish(ctx context.Context, c *pipeline.Call) (any, error) {
	inv, hash, err := s.invitation(ctx, c)
	if err != nil {
		return nil, err
	}
	cer, resp, err := s.finish(ctx, c, "invite")
	if err != nil {
		return nil, err
	}
	if cer.Invitation != hash {
		return nil, errcode.New(errcode.PasskeyFailed, "This passkey request belongs to another invitation; start again.")
	}
	p := dashboard.Person{ID: cer.PersonID, PartnerID: inv.PartnerID, Email: inv.Email, Role: inv.Role, CreatedAt: c.Now}
	cred, err := s.d.Passkeys.FinishRegistration(p, nil, cer.State, resp, c.Now)
	if err != nil {
		return nil, err
	}
	ses, token, err := s.newSession(ctx, p, c.Now)
	if err != nil {
		return nil, err
	}
	a := personEntry(p, audit.PersonJoined, p, c.Now)
	if err := s.d.Store.AcceptInvitation(ctx, hash, p, cred, ses, a); err != nil {
		if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
			return nil, invitationGone()
		}
		return nil, err
	}
	return signedIn(token), nil
}

// personEntry is the audit entry of person by doing action to target.
func personEntry(by dashboard.Person, action audit.Action, target dashboard.Person, at time.Time) audit.Entry {
	return audit.Entry{PartnerID: by.PartnerID, Actor: audit.ByPerson(by.ID, by.Email), Action: action,
		TargetKind: audit.TargetPerson, TargetID: target.ID, Detail: target.Email + " (" + string(target.Role) + ")", At: at}
}

func (s *Service) home(_ context.Context, c *pipeline.Call) (any, error) {
	return page(200, homeDocument(newShell("Home", c.Viewer)))
}

func (s *Service) signOut(ctx context.Context, c *pipeline.Call) (any, error) {
	if err := s.d.Store.DeleteSession(ctx, c.Viewer.Session.Hash); err != nil {
		return nil, err
	}
	return redirect(pipeline.SignInPath, dashboard.ClearCookie()), nil
}

func (s *Service) mode(ctx context.Context, c *pipeline.Call) (any, error) {
	f, _ := dashboard.ParseForm(c.Body)
	m := auth.Mode(f["mode"])
	if m != auth.Test && m != auth.Live {
		return nil, errcode.New(errcode.ValidationFailed, "mode must be test or live.").WithDetail("fields", map[string]string{"mode": "must be test or live"})
	}
	if err := s.d.Store.SetSessionMode(ctx, c.Viewer.Session.Hash, m); err != nil {
		return nil, err
	}
	return redirect("/dashboard", ""), nil
}

func (s *Service) reauthBegin(ctx context.Context, c *pipeline.Call) (any, error) {
	opts, state, err := s.d.Passkeys.BeginSignIn()
	if err != nil {
		return nil, err
	}
	return s.begin(ctx, c.Now, opts, ceremony{State: state, Kind: "reauth", Session: c.Viewer.Session.Hash})
}

func (s *Service) reauthFinish(ctx context.Context, c *pipeline.Call) (any, error) {
	cer, resp, err := s.finish(ctx, c, "reauth")
	if err != nil {
		return nil, err
	}
	p, cred, err := s.d.Passkeys.FinishSignIn(cer.State, resp, s.lookup(ctx), c.Now)
	if err != nil {
		return nil, unknownPasskey(err)
	}
	if p.ID != c.Viewer.Person.ID || cer.Session != c.Viewer.Session.Hash {
		return nil, errcode.New(errcode.PasskeyFailed, "Use your own passkey to confirm it is you.")
	}
	if err := s.d.Store.SavePasskey(ctx, cred); err != nil {
		return nil, err
	}
	if err := s.d.Store.VerifySession(ctx, c.Viewer.Session.Hash, c.Now); err != nil {
		return nil, err
	}
	// Back to the page that asked (the script sends its path), never to
	// another origin.
	var back struct {
		ReturnTo string `json:"return_to"`
	}
	_ = json.Unmarshal(c.Body, &back)
	return map[string]string{"redirect": dashboard.ReturnPath(back.ReturnTo)}, nil
}

func (s *Service) passkeyBegin(ctx context.Context, c *pipeline.Call) (any, error) {
	creds, err := s.d.Store.Passkeys(ctx, c.Viewer.Person.ID)
	if err != nil {
		return nil, err
	}
	opts, state, err := s.d.Passkeys.BeginRegistration(c.Viewer.Person, creds)
	if err != nil {
		return nil, err
	}
	return s.begin(ctx, c.Now, opts, ceremony{State: state, Kind: "passkey", PersonID: c.Viewer.Person.ID})
}

func (s *Service) passkeyFinish(ctx context.Context, c *pipeline.Call) (any, error) {
	cer, resp, err := s.finish(ctx, c, "passkey")
	if err != nil {
		return nil, err
	}
	me := c.Viewer.Person
	if cer.PersonID != me.ID {
		return nil, errcode.New(errcode.PasskeyFailed, "This passkey request belongs to someone else; start again.")
	}
	creds, err := s.d.Store.Passkeys(ctx, me.ID)
	if err != nil {
		return nil, err
	}
	cred, err := s.d.Passkeys.FinishRegistration(me, creds, cer.State, resp, c.Now)
	if err != nil {
		return nil, err
	}
	if err := s.d.Store.AddPasskey(ctx, cred, personEntry(me, audit.PasskeyAdded, me, c.Now)); err != nil {
		return nil, err
	}
	return map[string]string{"redirect": "/dashboard/settings/people"}, nil
}

// personRow is one row of the People page.
type personRow struct {
	ID, Email, Role, Created string
	Passkeys                 int
	Self                     bool
}

// peopleView is the People page.
type peopleView struct {
	shell
	People []personRow
}

func (s *Service) people(ctx context.Context, c *pipeline.Call) (any, error) {
	ps, err := s.d.Store.People(ctx, c.Viewer.Person.PartnerID)
	if err != nil {
		return nil, err
	}
	rows := make([]personRow, len(ps))
	for i, p := range ps {
		creds, err := s.d.Store.Passkeys(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		rows[i] = personRow{ID: p.ID, Email: p.Email, Role: string(p.Role), Created: p.CreatedAt.UTC().Format("2 Jan 2006"),
			Passkeys: len(creds), Self: p.ID == c.Viewer.Person.ID}
	}
	return page(200, peopleDocument(peopleView{newShell("People", c.Viewer), rows}))
}

func (s *Service) removePerson(ctx context.Context, c *pipeline.Call) (any, error) {
	me := c.Viewer.Person
	p, err := s.d.Store.Person(ctx, c.ID)
	if err != nil || p.PartnerID != me.PartnerID {
		return nil, errcode.New(errcode.NotFound, "No person with that id exists in your company.")
	}
	if p.ID == me.ID {
		return nil, errcode.New(errcode.Conflict, "You cannot remove yourself; ask another admin.")
	}
	if err := s.d.Store.RemovePerson(ctx, p.ID, personEntry(me, audit.PersonRemoved, p, c.Now)); err != nil {
		return nil, err
	}
	return redirect("/dashboard/settings/people", ""), nil
}

// actorName is who acted, as the Audit log shows it.
func actorName(a audit.Actor) string {
	if a.Kind == audit.Person {
		return a.Email
	}
	return string(a.Kind)
}

// targetName is what an entry changed, as the Audit log shows it.
func targetName(e audit.Entry) string {
	if e.Detail != "" {
		return string(e.TargetKind) + " " + e.Detail
	}
	return string(e.TargetKind) + " " + e.TargetID
}

// auditRow is one row of the Audit log page.
type auditRow struct{ At, Actor, Action, Target string }

// auditView is the Audit log page.
type auditView struct {
	shell
	Entries []auditRow
}

func (s *Service) audit(ctx context.Context, c *pipeline.Call) (any, error) {
	es, err := s.d.Store.ListAudit(ctx, c.Viewer.Person.PartnerID, 200)
	if err != nil {
		return nil, err
	}
	rows := make([]auditRow, len(es))
	for i, e := range es {
		rows[i] = auditRow{At: e.At.UTC().Format("2006-01-02 15:04:05 UTC"), Actor: actorName(e.Actor), Action: string(e.Action), Target: targetName(e)}
	}
	return page(200, auditDocument(auditView{newShell("Audit log", c.Viewer), rows}))
}
