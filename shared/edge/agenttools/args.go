package agenttools

// The tools' arguments. Each is the operation's path parameter, its body
// (or query) under the API's own field names, and, for the operations
// that honour one, idempotency_key (the Idempotency-Key header). The
// descriptions are written for a model: what the field is and its form.
// The input schemas are inferred from these types (jsonschema-go, through
// the MCP SDK): a struct admits no other properties, a field without
// omitempty is required.

// idempotencyDoc describes every idempotency_key argument (set on the
// inferred schemas by inputSchema).
const idempotencyDoc = "Optional. Any unique string (e.g. a UUID) you generate for this action. If you are not sure an earlier call went through, call again with the same idempotency_key and the same arguments: the original answer comes back and nothing is done twice. Reusing it with different arguments is an error."

// LeadFields are createLead's body (the spec's Lead creation request).
type LeadFields struct {
	CustomerName string   `json:"customer_name,omitempty" jsonschema:"The customer's full name. At least one of customer_name, email and phone is required."`
	Email        string   `json:"email,omitempty" jsonschema:"The customer's email address. Needed, with from_address, to_address and home_size, for an instant price estimate."`
	Phone        string   `json:"phone,omitempty" jsonschema:"The customer's phone number, as the customer gave it (digits, spaces, +, -, parentheses)."`
	FromAddress  string   `json:"from_address,omitempty" jsonschema:"The address the customer is moving from: street, city, state and ZIP code as one line."`
	ToAddress    string   `json:"to_address,omitempty" jsonschema:"The address the customer is moving to: street, city, state and ZIP code as one line."`
	HomeSize     string   `json:"home_size,omitempty" jsonschema:"The size of the home being moved, in the customer's words: e.g. studio, 2 bedroom, 3 bed house, 1800 sq ft."`
	MoveDate     string   `json:"move_date,omitempty" jsonschema:"The planned moving day as YYYY-MM-DD."`
	SpecialItems []string `json:"special_items,omitempty" jsonschema:"Items that need special handling, one per element: e.g. piano, gun safe, pool table."`
	Source       string   `json:"source,omitempty" jsonschema:"Where the lead came from, for the mover's records: e.g. phone call, website, Yelp."`
}

// CreateLeadArgs are create_lead's arguments.
type CreateLeadArgs struct {
	LeadFields
	IdempotencyKey string `json:"idempotency_key,omitempty"` // described by idempotencyDoc
}

// ListLeadsArgs are list_leads' arguments (listLeads' query).
type ListLeadsArgs struct {
	Limit        *int   `json:"limit,omitempty" jsonschema:"How many leads to return, 1 to 100 (default 25)."`
	UpdatedSince string `json:"updated_since,omitempty" jsonschema:"Only leads created or changed at or after this time (ISO 8601 date-time, e.g. 2026-11-23T09:00:00Z)."`
	Cursor       string `json:"cursor,omitempty" jsonschema:"To get the next page, the next_cursor of the previous answer, exactly as it was. Keep the other arguments the same."`
}

// ListEventsArgs are list_events' arguments (listEvents' query).
type ListEventsArgs struct {
	Limit        *int   `json:"limit,omitempty" jsonschema:"How many events to return, 1 to 100 (default 25)."`
	Type         string `json:"type,omitempty" jsonschema:"Only events of this type, e.g. survey.completed, estimate.ready, deposit.paid, lead.booked."`
	LeadID       string `json:"lead_id,omitempty" jsonschema:"Only events about this lead (its id, a UUID)."`
	CreatedSince string `json:"created_since,omitempty" jsonschema:"Only events that happened at or after this time (ISO 8601 date-time, e.g. 2026-11-23T09:00:00Z); never older than 30 days."`
	Cursor       string `json:"cursor,omitempty" jsonschema:"To get the next page, the next_cursor of the previous answer, exactly as it was. Keep the other arguments the same."`
}

// EventArgs name one event.
type EventArgs struct {
	EventID string `json:"event_id" jsonschema:"The event's id (evt_...), as list_events returned it."`
}

// LeadArgs name one lead.
type LeadArgs struct {
	LeadID string `json:"lead_id" jsonschema:"The lead's id (a UUID), as create_lead or list_leads returned it."`
}

// SurveyLinkArgs are get_survey_link's arguments.
type SurveyLinkArgs struct {
	LeadArgs
	IdempotencyKey string `json:"idempotency_key,omitempty"` // described by idempotencyDoc
}

// SurveyArgs name one survey.
type SurveyArgs struct {
	SurveyID string `json:"survey_id" jsonschema:"The survey's id (a UUID): the survey_id of get_survey_link or get_lead. It is not the lead's id."`
}

// VideoAccessFields are createSurveyVideoAccess' body.
type VideoAccessFields struct {
	TTLHours *float64 `json:"ttl_hours,omitempty" jsonschema:"How many hours the link keeps working (default 72; at most 168, more is capped at 168)."`
	Label    string   `json:"label,omitempty" jsonschema:"A note for the mover's own records, e.g. who the link was sent to (at most 120 characters)."`
}

// CreateVideoAccessArgs are create_video_access' arguments.
type CreateVideoAccessArgs struct {
	SurveyArgs
	VideoAccessFields
}

// QuoteFields are createQuote's body.
type QuoteFields struct {
	EstimateType  string `json:"estimate_type" jsonschema:"The kind of quote: non_binding (the final price may differ), binding (the price is fixed) or binding_not_to_exceed (the customer pays at most the price). A binding quote is signed by the customer on the quote page."`
	PriceCents    int64  `json:"price_cents" jsonschema:"The quoted price in cents of the mover's currency (245000 is $2,450.00)."`
	DepositCents  *int64 `json:"deposit_cents,omitempty" jsonschema:"The deposit that books the move, in cents (100 to 500000, at most the price). Leave it out, or 0, for no deposit."`
	ExpiresInDays *int   `json:"expires_in_days,omitempty" jsonschema:"How many days the customer has to accept, 1 to 90 (default 30)."`
}

// CreateQuoteArgs are create_quote's arguments.
type CreateQuoteArgs struct {
	LeadArgs
	QuoteFields
	IdempotencyKey string `json:"idempotency_key,omitempty"` // described by idempotencyDoc
}

// AcceptFields are acceptQuote's body (the spec's Accept request).
type AcceptFields struct {
	AccepterEmail       string `json:"accepter_email,omitempty" jsonschema:"The email address of the customer accepting a non-binding quote."`
	SignerName          string `json:"signer_name,omitempty" jsonschema:"Binding quotes only: the full name of the customer signing."`
	SignerEmail         string `json:"signer_email,omitempty" jsonschema:"Binding quotes only: the signer's email address."`
	SignatureImageB64   string `json:"signature_image_b64,omitempty" jsonschema:"Binding quotes only: the customer's drawn signature as a PNG in base64. An agent cannot draw one: send the customer the quote_url of create_quote to sign instead."`
	LiabilityElection   string `json:"liability_election,omitempty" jsonschema:"Binding quotes only: the customer's choice of liability coverage, released_value or full_value_protection."`
	ESignConsentChecked *bool  `json:"esign_consent_checked,omitempty" jsonschema:"Binding quotes only: true when the customer agreed to sign electronically."`
}

// AcceptQuoteArgs are accept_quote's arguments.
type AcceptQuoteArgs struct {
	LeadArgs
	AcceptFields
	IdempotencyKey string `json:"idempotency_key,omitempty"` // described by idempotencyDoc
}

// DepositFields are createDeposit's body (the spec's Deposit create
// request).
type DepositFields struct {
	LeadID           string `json:"lead_id" jsonschema:"The lead's id (a UUID)."`
	QuoteShareLinkID string `json:"quote_share_link_id" jsonschema:"The quote_share_link_id that create_quote returned for the quote the customer accepted."`
	AmountCents      *int64 `json:"amount_cents,omitempty" jsonschema:"The deposit in cents (100 to 500000). Leave it out to use the quote's deposit_cents, or else the mover's default deposit."`
}

// CreateDepositArgs are create_deposit's arguments.
type CreateDepositArgs struct {
	DepositFields
	IdempotencyKey string `json:"idempotency_key,omitempty"` // described by idempotencyDoc
}

// DepositArgs name one deposit.
type DepositArgs struct {
	DepositID string `json:"deposit_id" jsonschema:"The deposit's id (a UUID), as create_deposit returned it."`
}
