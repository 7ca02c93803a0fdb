package dashboardapp

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
	"github.com/moveleads/partnerapi/shared/app/leads"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/app/surveys"
	"github.com/moveleads/partnerapi/shared/app/videolinks/viewerpage"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Leads is the lead service as the leads pages use it (leads.Service).
type Leads interface {
	ParseRowQuery(ctx context.Context, t auth.Tenant, params map[string]string) (leads.RowQuery, error)
	Rows(ctx context.Context, t auth.Tenant, q leads.RowQuery) (leads.RowPage, error)
	Get(ctx context.Context, t auth.Tenant, id string) (lead.Lead, record.LeadSurvey, error)
}

// Clips plays a survey's clips as the viewer page does
// (videolinks.Service).
type Clips interface {
	Playback(ctx context.Context, t auth.Tenant, surveyID string) ([]viewerpage.Clip, error)
	MediaOrigin() string
}

// SurveyLinks mints capture links (surveys.Service).
type SurveyLinks interface {
	Link(ctx context.Context, t auth.Tenant, leadID string, lifetime time.Duration, now time.Time) (surveys.LinkView, error)
}

// leadEvents is how many of a lead's events its page shows, newest first.
const leadEvents = 20

// leadRow is one row of the Leads page.
type leadRow struct {
	ID, Customer, Status, Survey, Estimate, Recommended, Quote, Deposit, Updated string
}

// leadsView is the Leads page.
type leadsView struct {
	shell
	Rows          []leadRow
	Statuses      []string
	Status, Since string
	Errors        map[string]string
	Next          string
}

func (s *Service) leads(ctx context.Context, c *pipeline.Call) (any, error) {
	t := c.Tenant()
	v := leadsView{shell: newShell("Leads", c.Viewer), Status: c.Query["status"], Since: c.Query["updated_since"]}
	for _, st := range lead.Statuses {
		v.Statuses = append(v.Statuses, string(st))
	}
	q, err := s.d.Leads.ParseRowQuery(ctx, t, c.Query)
	if e := errcode.As(err); e != nil && e.Code == errcode.ValidationFailed {
		v.Errors = fieldErrors(e)
		return page(400, leadsDocument(v))
	}
	if err != nil {
		return nil, err
	}
	p, err := s.d.Leads.Rows(ctx, t, q)
	if err != nil {
		return nil, err
	}
	for _, r := range p.Rows {
		v.Rows = append(v.Rows, newLeadRow(r, c.Now))
	}
	if p.NextCursor != "" {
		v.Next = p.NextCursor
	}
	return page(200, leadsDocument(v))
}

// nextPage is the address of the next page of the same filters.
func (v leadsView) nextPage() string {
	return "/dashboard/leads?" + url.Values{"status": {v.Status}, "updated_since": {v.Since}, "cursor": {v.Next}}.Encode()
}

// fieldErrors are a validation error's fields, as a form shows them.
func fieldErrors(e *errcode.Error) map[string]string {
	out := map[string]string(e.Fields())
	if len(out) == 0 {
		out["form"] = e.Message
	}
	return out
}

func newLeadRow(r record.LeadRow, now time.Time) leadRow {
	l, ls := r.Lead, r.Survey
	row := leadRow{ID: l.ID, Customer: orDash(l.CustomerName), Status: words(string(l.Status)), Survey: words(string(ls.Status)),
		Estimate: money(l.Estimate), Recommended: money(ls.Recommended), Quote: "—", Deposit: depositWords(ls.Deposit),
		Updated: l.UpdatedAt.UTC().Format("2 Jan 2006 15:04")}
	if ls.Quote != nil {
		row.Quote = words(string(ls.Quote.Summary(now).Stage))
	}
	return row
}

// words shows a status value to office staff: "deposit_pending" reads
// "deposit pending".
func words(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "_", " ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func depositWords(d *record.DepositRef) string {
	if d == nil {
		return words(string(deposit.PublicNone))
	}
	return words(string(d.Status.PublicStatus()))
}

// money shows an estimate's range in whole units as the quote beside it
// reads: "$1,200–$1,800".
func money(e *estimate.Estimate) string {
	if e == nil {
		return "—"
	}
	return htmlpage.FormatWholeRange(e.Min, e.Max, e.Currency)
}

// clipView is one clip the lead page plays.
type clipView struct {
	Name    string
	Sources []viewerpage.Source
}

// itemView is one inventory line.
type itemView struct {
	Room, Name, Source string
	Count, Detected    int
}

// eventView is one event about the lead.
type eventView struct{ At, Type, ID string }

// leadView is a lead's page.
type leadView struct {
	shell
	ID, Customer, Status, Created, Updated, From, To, Home, Estimate, Recommended string
	SurveyStatus, SurveyID                                                        string
	CanSendLink                                                                   bool
	Clips                                                                         []clipView
	Items                                                                         []itemView
	BySource                                                                      string
	Quote                                                                         *quoteView
	Deposit                                                                       string
	Events                                                                        []eventView
	CaptureURL                                                                    string
}

// countText is a line's count, with the detector's when it saw some.
func (it itemView) countText() string {
	if it.Detected != 0 {
		return strconv.Itoa(it.Count) + " (AI saw " + strconv.Itoa(it.Detected) + ")"
	}
	return strconv.Itoa(it.Count)
}

// linkAction is the survey link button's label.
func (v leadView) linkAction() string {
	if v.SurveyID != "" {
		return "Get a fresh survey link"
	}
	return "Start a video survey"
}

// quoteView is the lead's current quote: its terms and where it stands.
type quoteView struct {
	Type, PriceLabel, Price, Deposit, Stage, Expires, Accepted, Signed string
	// By is who accepted or signed it, and Protection the liability option
	// a signer chose; "" until then.
	By, Protection string
}

func (s *Service) lead(ctx context.Context, c *pipeline.Call) (any, error) {
	v, err := s.leadView(ctx, c, "")
	if err != nil {
		return nil, err
	}
	return leadPage(v, s.d.Clips.MediaOrigin())
}

// quote reads the lead's current quote ref's terms (one GetItem).
func (s *Service) quote(ctx context.Context, t auth.Tenant, leadID string, ref record.QuoteRef, now time.Time) (*quoteView, error) {
	q, err := s.d.Store.GetQuote(ctx, t, leadID, ref.QuoteID)
	if err != nil {
		return nil, err
	}
	sum := ref.Summary(now)
	v := &quoteView{Type: words(string(q.EstimateType)), PriceLabel: "Price", Price: htmlpage.FormatMoney(q.PriceCents, q.Currency),
		Deposit: "none", Stage: words(string(sum.Stage)), Expires: htmlpage.FormatTime(ref.ExpiresAt),
		Accepted: optTime(sum.AcceptedAt), Signed: optTime(sum.SignedAt)}
	if q.EstimateType == quote.BindingNotToExceed {
		v.PriceLabel = "Most the customer pays"
	}
	if q.DepositRequired() {
		v.Deposit = htmlpage.FormatMoney(q.DepositCents, q.Currency)
	}
	if a := q.Acceptance; a != nil {
		v.By = a.Email
		if a.Evidence != nil {
			v.By = a.Evidence.SignerName + " (" + a.Evidence.SignerEmail + ")"
			v.Protection = words(string(a.Evidence.LiabilityElection))
		}
	}
	return v, nil
}

func (s *Service) leadView(ctx context.Context, c *pipeline.Call, captureURL string) (leadView, error) {
	t := c.Tenant()
	l, ls, err := s.d.Leads.Get(ctx, t, c.ID)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return leadView{}, errcode.New(errcode.NotFound, "No lead with that id exists in your company's %s data.", t.Mode)
	}
	if err != nil {
		return leadView{}, err
	}
	name := orDash(l.CustomerName)
	v := leadView{shell: newShell("Lead: "+name, c.Viewer), ID: l.ID, Customer: name, Status: words(string(l.Status)),
		Created: htmlpage.FormatTime(l.CreatedAt), Updated: htmlpage.FormatTime(l.UpdatedAt),
		From: orDash(l.FromAddress), To: orDash(l.ToAddress), Home: orDash(l.HomeSize),
		Estimate: money(l.Estimate), Recommended: money(ls.Recommended),
		SurveyStatus: words(string(ls.Status)), SurveyID: ls.SurveyID,
		CanSendLink: ls.SurveyID == "" || !ls.Status.Final(), Deposit: depositWords(ls.Deposit), CaptureURL: captureURL}
	if ls.Quote != nil {
		if v.Quote, err = s.quote(ctx, t, l.ID, *ls.Quote, c.Now); err != nil {
			return leadView{}, err
		}
	}
	if ls.SurveyID != "" {
		clips, err := s.d.Clips.Playback(ctx, t, ls.SurveyID)
		if err != nil {
			return leadView{}, err
		}
		for i, cl := range clips {
			name := "Clip " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(clips)) + ": " + cl.Room
			if d := viewerpage.FormatDuration(cl.Duration); d != "" {
				name += ", " + d
			}
			v.Clips = append(v.Clips, clipView{Name: name, Sources: viewerpage.Sources(cl)})
		}
	}
	if ls.Inventory != nil {
		v.Items, v.BySource = inventoryLines(*ls.Inventory)
	}
	evs, err := s.d.Events.List(ctx, t, webhook.ListQuery{LeadID: l.ID, Limit: leadEvents, Now: c.Now})
	if err != nil {
		return leadView{}, err
	}
	for _, e := range evs.Data {
		at, _ := time.Parse(lead.TimeLayout, e.CreatedAt)
		v.Events = append(v.Events, eventView{At: htmlpage.FormatTime(at), Type: string(e.Type), ID: e.ID})
	}
	return v, nil
}

func optTime(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return htmlpage.FormatTime(*t)
}

// sourceWords names an item's source as office staff know it.
var sourceWords = map[inventory.Source]string{inventory.FromChecklist: "Customer's count", inventory.FromDetector: "Found by AI"}

// inventoryLines are inv's items, room by room, and how many came from
// each source.
func inventoryLines(inv inventory.Inventory) ([]itemView, string) {
	var out []itemView
	for _, r := range inv.Rooms {
		for _, it := range r.Items {
			out = append(out, itemView{Room: r.Name, Name: it.Name, Count: it.Count, Detected: it.Detected, Source: sourceWords[it.Source]})
		}
	}
	d := inv.Detail()
	by := strconv.Itoa(d.ItemsBySource[inventory.FromChecklist]) + " counted by the customer, " +
		strconv.Itoa(d.ItemsBySource[inventory.FromDetector]) + " found by AI"
	return out, by
}

// surveyLink mints a fresh capture link for the lead's open survey (or
// starts one when it has none) and shows it once, to copy and send.
func (s *Service) surveyLink(ctx context.Context, c *pipeline.Call) (any, error) {
	t := c.Tenant()
	_, ls, err := s.d.Leads.Get(ctx, t, c.ID)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return nil, errcode.New(errcode.NotFound, "No lead with that id exists in your company's %s data.", t.Mode)
	}
	if err != nil {
		return nil, err
	}
	if ls.SurveyID != "" && ls.Status.Final() {
		return nil, errcode.New(errcode.Conflict, "This lead's video survey is finished; a new link would start a new survey. Use the API to start one.")
	}
	ptn, err := c.Partner(ctx)
	if err != nil {
		return nil, err
	}
	link, err := s.d.SurveyLinks.Link(ctx, t, c.ID, ptn.CaptureLinkTTL(), c.Now)
	if err != nil {
		return nil, err
	}
	v, err := s.leadView(ctx, c, link.CaptureURL)
	if err != nil {
		return nil, err
	}
	return leadPage(v, s.d.Clips.MediaOrigin())
}

// leadPage renders a lead's page, whose videos play from mediaOrigin.
func leadPage(v leadView, mediaOrigin string) (pipeline.Document, error) {
	d, err := page(200, leadDocument(v))
	if err != nil {
		return d, err
	}
	d.Header = MediaHeaders(mediaOrigin)
	return d, nil
}

// MediaHeaders are Headers with media allowed from mediaOrigin (the clip
// bucket's presigned addresses), when it is exactly an origin.
func MediaHeaders(mediaOrigin string) map[string]string {
	h := Headers()
	if o, ok := htmlpage.Origin(mediaOrigin); ok {
		h["Content-Security-Policy"] += "; media-src " + o
	}
	return h
}
