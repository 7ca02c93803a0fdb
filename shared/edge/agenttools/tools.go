package agenttools

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moveleads/partnerapi/shared/app/deposits"
	"github.com/moveleads/partnerapi/shared/app/eventfeed"
	"github.com/moveleads/partnerapi/shared/app/leads"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/quotes"
	"github.com/moveleads/partnerapi/shared/app/surveys"
	"github.com/moveleads/partnerapi/shared/app/videolinks"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Tool is one tool of the server: a partner operation called with
// arguments instead of an HTTP request.
type Tool struct {
	// Name is the tool's name in tools/list and tools/call.
	Name string
	// Operation is the partner operation the tool runs: its route's scope
	// and beta gate decide who sees the tool, its endpoint does the work.
	Operation manifest.Operation
	// Description is the text a model reads to choose and call the tool.
	Description string
	// ReadOnly, Destructive and Idempotent are the tool's annotations.
	ReadOnly, Destructive, Idempotent bool

	register func(s *mcp.Server, t *Tool, run runFunc)
	// schemas infers the input and output schemas from the tool's Go
	// types, once, when first asked for: reflection a function's init
	// need not pay (about 2 ms for the ten tools).
	schemas func() (in, out *jsonschema.Schema)
}

// InputSchema is the schema of the tool's arguments, inferred from its Go
// type (see args.go).
func (t *Tool) InputSchema() *jsonschema.Schema { in, _ := t.schemas(); return in }

// OutputSchema is the schema of the tool's answer: the operation's view.
func (t *Tool) OutputSchema() *jsonschema.Schema { _, out := t.schemas(); return out }

// Route returns the manifest route of the tool's operation.
func (t *Tool) Route() manifest.Route { return manifest.ByOperation(t.Operation) }

// call is what a tool's arguments make of the operation's HTTP request.
type call struct {
	PathParam      string
	Query          map[string]string
	Body           any // marshalled as the request body; nil: none
	IdempotencyKey string
}

// runFunc runs op with c as the caller of the server and returns the
// pipeline's status and JSON body.
type runFunc func(ctx context.Context, op manifest.Operation, c call) (int, []byte)

// Tools are the server's tools, in tools/list order (that of
// manifest.AgentToolOperations; a test checks they match).
var Tools = []*Tool{
	define[CreateLeadArgs, leads.CreateLeadView]("create_lead", manifest.CreateLead, tool{
		Description: "Create a lead: a prospective move for the moving company. Use it as soon as you know who the customer is (a name, an email address or a phone number; at least one is required). " +
			"Give every detail you have: with from_address, to_address, home_size and email the answer carries an instant price estimate (estimate; null when it cannot be computed). " +
			"Returns the new lead's lead_id (keep it for the other tools) and its status (new).",
		Idempotent: true,
	}, func(a CreateLeadArgs) call { return call{Body: a.LeadFields, IdempotencyKey: a.IdempotencyKey} }),

	define[ListLeadsArgs, leads.ListView]("list_leads", manifest.ListLeads, tool{
		Description: "List the moving company's leads, oldest change first (by updated_at, then lead_id), a page at a time. " +
			"Use it to find a lead whose lead_id you do not have, or with updated_since to see what changed since a time. " +
			"Returns data (lead summaries: lead_id, status, customer_name, lead_source, estimate, created_at, updated_at), has_more, and next_cursor: pass it back as cursor for the next page while has_more is true.",
		ReadOnly: true,
	}, func(a ListLeadsArgs) call {
		q := map[string]string{}
		if a.Limit != nil {
			q["limit"] = strconv.Itoa(*a.Limit)
		}
		if a.UpdatedSince != "" {
			q["updated_since"] = a.UpdatedSince
		}
		if a.Cursor != "" {
			q["cursor"] = a.Cursor
		}
		return call{Query: q}
	}),

	define[LeadArgs, leads.DetailView]("get_lead", manifest.GetLead, tool{
		Description: "Read one lead's current state, to answer the customer's or the mover's questions about where things stand. " +
			"Returns its status (new, surveying, quoted, accepted, deposit_pending, booked, completed, lost), " +
			"its video survey (survey_id, status and, once the survey is inventory_ready, the inventory of the home), the recommended_estimate from the survey, its current quote (quote_share_link_id, for create_deposit; stage: open, accepted, signed, expired) and its latest deposit (deposit_id, for get_deposit, also when the customer started it on the quote page; and status).",
		ReadOnly: true,
	}, func(a LeadArgs) call { return call{PathParam: a.LeadID} }),

	define[SurveyLinkArgs, surveys.LinkView]("get_survey_link", manifest.GetSurveyLink, tool{
		Description: "Get the link to the video survey for a lead: a web page where the customer films their home with a phone, room by room, for an inventory and a price. " +
			"Send the returned capture_url to the customer yourself (text or email); nothing is sent by this tool. Calling it again returns a fresh link to the same survey. " +
			"Returns survey_id (for create_video_access), capture_url and status (awaiting_recording until the first clip).",
		Idempotent: true,
	}, func(a SurveyLinkArgs) call { return call{PathParam: a.LeadID, IdempotencyKey: a.IdempotencyKey} }),

	define[CreateVideoAccessArgs, videolinks.AccessView]("create_video_access", manifest.CreateSurveyVideoAccess, tool{
		Description: "Make a link to a survey's walkthrough video that anyone can open without an account, for handing to a carrier or a colleague. It expires (ttl_hours) and every open is recorded. " +
			"Needs the survey_id (from get_survey_link or get_lead), not the lead_id, and a survey with at least one recorded clip. " +
			"Returns view_url (shown only this once: pass it on), grant_id, expires_at and clip_count.",
	}, func(a CreateVideoAccessArgs) call { return call{PathParam: a.SurveyID, Body: a.VideoAccessFields} }),

	define[SurveyArgs, videolinks.RevokeView]("revoke_video_access", manifest.RevokeSurveyVideoAccess, tool{
		Description: "Close every live video link of a survey at once (single links cannot be closed alone). Safe to call again: grants_revoked 0 means nothing was left open. " +
			"A video already playing can go on for up to ten minutes.",
		Destructive: true, Idempotent: true,
	}, func(a SurveyArgs) call { return call{PathParam: a.SurveyID} }),

	define[CreateQuoteArgs, quotes.QuoteView]("create_quote", manifest.CreateQuote, tool{
		Description: "Beta. Make a price quote for a lead; it replaces an open quote the lead had. " +
			"Returns quote_id, quote_share_link_id (for create_deposit), and quote_url: send it to the customer, who reads the terms there and accepts (or, for a binding quote, signs) on their phone. " +
			"The lead moves to quoted.",
		Idempotent: true,
	}, func(a CreateQuoteArgs) call {
		return call{PathParam: a.LeadID, Body: a.QuoteFields, IdempotencyKey: a.IdempotencyKey}
	}),

	define[AcceptQuoteArgs, quotes.AcceptView]("accept_quote", manifest.AcceptQuote, tool{
		Description: "Beta. Record that the customer accepted the lead's current quote, when they told you so. A non-binding quote needs accepter_email. " +
			"A binding quote needs a drawn signature and the signer's consent: for those, send the customer the quote_url to sign instead. " +
			"Accepting never books the move; a paid deposit does. Returns status (accepted or signed) and deposit_required.",
		Idempotent: true,
	}, func(a AcceptQuoteArgs) call {
		return call{PathParam: a.LeadID, Body: a.AcceptFields, IdempotencyKey: a.IdempotencyKey}
	}),

	define[CreateDepositArgs, deposits.CreateView]("create_deposit", manifest.CreateDeposit, tool{
		Description: "Beta. Start the deposit that books an accepted quote: returns checkout_url, a secure payment page to send the customer, with deposit_id and status (checkout_open). " +
			"The money goes to the moving company's own payment account. Calling it again while that payment is open returns the same deposit. Check it with get_deposit.",
		Idempotent: true,
	}, func(a CreateDepositArgs) call { return call{Body: a.DepositFields, IdempotencyKey: a.IdempotencyKey} }),

	define[DepositArgs, deposits.StatusView]("get_deposit", manifest.GetDeposit, tool{
		Description: "Beta. Read a deposit's status: pending, paid (the move is booked), failed, refunded or disputed, with amount_cents, currency, paid_at, and checkout_url while it can still be paid.",
		ReadOnly:    true,
	}, func(a DepositArgs) call { return call{PathParam: a.DepositID} }),

	define[ListEventsArgs, eventfeed.ListView]("list_events", manifest.ListEvents, tool{
		Description: "List what happened to the moving company's leads in the last 30 days, newest first, a page at a time: surveys completed or failed, estimates ready, deposits paid, failed, refunded or disputed, leads booked. " +
			"Filter by type, lead_id and created_since. Returns data (events: id, type, created_at, and data, which names the lead and what changed), has_more, and next_cursor: pass it back as cursor for the next page while has_more is true.",
		ReadOnly: true,
	}, func(a ListEventsArgs) call {
		q := map[string]string{}
		if a.Limit != nil {
			q["limit"] = strconv.Itoa(*a.Limit)
		}
		for name, v := range map[string]string{"type": a.Type, "lead_id": a.LeadID, "created_since": a.CreatedSince, "cursor": a.Cursor} {
			if v != "" {
				q[name] = v
			}
		}
		return call{Query: q}
	}),

	define[EventArgs, eventfeed.View]("get_event", manifest.GetEvent, tool{
		Description: "Read one event of the last 30 days by its id (from list_events): its type, created_at and data.",
		ReadOnly:    true,
	}, func(a EventArgs) call { return call{PathParam: a.EventID} }),
}

// toolError is a failed call's result: the API's error body as its text.
func toolError(body []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
}

// tool is what define takes of a Tool.
type tool struct {
	Description                       string
	ReadOnly, Destructive, Idempotent bool
}

// define makes the tool name that runs op with the call build makes of
// its arguments In, and answers the operation's view Out.
func define[In, Out any](name string, op manifest.Operation, d tool, build func(In) call) *Tool {
	t := &Tool{
		Name: name, Operation: op, Description: d.Description,
		ReadOnly: d.ReadOnly, Destructive: d.Destructive, Idempotent: d.Idempotent,
		schemas: sync.OnceValues(func() (*jsonschema.Schema, *jsonschema.Schema) {
			return inputSchema[In](), mustSchema[Out]()
		}),
	}
	t.register = func(s *mcp.Server, t *Tool, run runFunc) {
		closed := false
		// The raw AddTool: the arguments are checked and decoded by
		// decodeArgs, so that their errors are the API's.
		s.AddTool(&mcp.Tool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema(), OutputSchema: t.OutputSchema(),
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint: t.ReadOnly, DestructiveHint: &t.Destructive, IdempotentHint: t.Idempotent || t.ReadOnly,
				OpenWorldHint: &closed,
			},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args In
			if err := decodeArgs(req.Params.Arguments, t.InputSchema(), &args); err != nil {
				_, body := pipeline.Render(err)
				return toolError(body), nil
			}
			status, body := run(ctx, t.Operation, build(args))
			if status != 200 {
				return toolError(body), nil
			}
			// The view (Out) as the API answered it: structured, and as text.
			return &mcp.CallToolResult{
				StructuredContent: json.RawMessage(body),
				Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
			}, nil
		})
	}
	return t
}
