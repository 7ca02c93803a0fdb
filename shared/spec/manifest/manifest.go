// Package manifest is the single table of every Lambda function the service
// deploys: its slug (functions/<slug>), what triggers it (HTTP routes, S3
// object-created events, a DynamoDB stream, a schedule, a queue), and what it
// may touch (table items, bucket prefixes, secrets). For an HTTP route it also
// says how the request is authenticated, whether it is beta-gated or
// idempotent, how large a body it takes, what it answers (JSON or HTML) and
// how it is rate-limited.
//
// `make build`, the SAM template check, the CDK stack (functions, triggers,
// least-privilege grants), the local gateway, the OpenAPI checks, the request
// pipeline and the generated docs all read Functions; nothing else lists
// functions or routes. Adding a function takes one entry here, one tiny main
// under functions/<slug> and one feature package.
//
// It imports nothing from the AWS SDK, so the CDK app (its own module) reads it.
package manifest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// Function is one Lambda function: its slug and trigger, and its grants.
// Exactly one trigger field is set.
type Function struct {
	// Slug names the folder functions/<Slug> and, for an HTTP function, the
	// first segment of its pilot path.
	Slug    string
	Summary string

	// HTTP lists the routes API Gateway sends to the function (one per
	// partner operation; both path forms of each).
	HTTP []Route
	// S3 invokes the function for objects created in the clip bucket.
	S3 *S3Trigger
	// Stream invokes the function with batches of the events table's stream.
	Stream *StreamTrigger
	// Schedule invokes the function on a schedule.
	Schedule *ScheduleTrigger
	// Queue invokes the function with batches from an SQS queue.
	Queue *QueueTrigger

	// Table is what the function does to the table.
	Table TableAccess
	// Bucket is what the function does to the clip bucket.
	Bucket BucketAccess
	// Secrets names the secrets the function reads (see the Secret* names).
	Secrets []string
	// SendsTo names the queues (a QueueTrigger's Name) the function sends
	// messages to: sqs:SendMessage on each, and its URL in the variable
	// settings.QueueURLVar names.
	SendsTo []string
	// Detect allows the function to call Amazon Rekognition's DetectLabels
	// on the survey frames it reads (the inventory's detector in AWS).
	// DetectLabels on image bytes has no resource-level permissions, so
	// the grant is that one action on "*"; nothing else of Rekognition.
	Detect bool
}

// StripeWebhookBodyLimit is the largest Stripe event the receiver takes:
// Stripe's events for a Checkout Session or a charge are a few KB; 256 KiB
// leaves room for any metadata and is Stripe's own limit on a payload.
const StripeWebhookBodyLimit = 256 << 10

// DetectTimeout bounds one frame's detection by a function that sets
// Detect, the detector's own retries included (Rekognition: 30 s of
// attempts and backoff, plus one 10 s attempt): the deployed function's
// timeout leaves room for it and for settling the survey after.
const DetectTimeout = 40 * time.Second

// TriggerKind names what starts a function.
type TriggerKind string

// The trigger kinds, as AWS SAM's Events names them.
const (
	TriggerHTTP     TriggerKind = "HttpApi"
	TriggerS3       TriggerKind = "S3"
	TriggerStream   TriggerKind = "DynamoDB"
	TriggerSchedule TriggerKind = "Schedule"
	TriggerQueue    TriggerKind = "SQS"
)

// Trigger returns the kind of f's trigger, or "" when f declares none or
// more than one (a manifest error its tests catch).
func (f Function) Trigger() TriggerKind {
	var kinds []TriggerKind
	if len(f.HTTP) > 0 {
		kinds = append(kinds, TriggerHTTP)
	}
	if f.S3 != nil {
		kinds = append(kinds, TriggerS3)
	}
	if f.Stream != nil {
		kinds = append(kinds, TriggerStream)
	}
	if f.Schedule != nil {
		kinds = append(kinds, TriggerSchedule)
	}
	if f.Queue != nil {
		kinds = append(kinds, TriggerQueue)
	}
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

// TakesAgentKey reports whether one of f's routes authenticates
// AuthAgentKey, i.e. f serves the agent tool server's HTTP transport (the
// AgentToolsSlug function). Such a function, and no other, reads the
// browser origins it accepts (settings.AgentToolsAllowedOrigins): the CDK
// stack and the SAM template give that setting by this rule.
func (f Function) TakesAgentKey() bool {
	return slices.ContainsFunc(f.HTTP, func(r Route) bool { return r.Auth == AuthAgentKey })
}

// MaxDescription is the longest description Lambda accepts.
const MaxDescription = 256

// Description is f's Lambda description, as the CDK stack and the SAM
// template set it: the operations it serves (HTTP) or its trigger kind,
// then its summary (a function of many routes says how many). It must fit MaxDescription (a test holds every
// function to it).
func (f Function) Description() string {
	what := string(f.Trigger())
	if len(f.HTTP) > 0 {
		ops := make([]string, len(f.HTTP))
		for i, r := range f.HTTP {
			ops[i] = string(r.Operation)
		}
		what = strings.Join(ops, ", ")
		if len(what)+len(f.Summary)+2 > MaxDescription {
			what = fmt.Sprintf("%d routes", len(f.HTTP))
		}
	}
	return what + ": " + f.Summary
}

// WritesEvents reports whether f writes webhook events owed
// (table.EventKeys in its Table.Write), which live in the events table
// (table.EventsName): such a function, and no other, gets the events
// table's write grant; the CDK stack and the SAM template give it by
// this rule.
func (f Function) WritesEvents() bool { return slices.Contains(f.Table.Write, table.EventKeys) }

// UsesEvents reports whether f reads (Table.ReadEvents) or writes the
// events table: such a function, and no other, gets the events table's
// name (settings.EventsTable).
func (f Function) UsesEvents() bool { return f.WritesEvents() || f.Table.ReadEvents }

// S3Trigger starts a function for each object created under Prefix (and
// ending in Suffix, when set) in the clip bucket.
type S3Trigger struct {
	Prefix string
	Suffix string
}

// StreamTrigger starts a function with batches of the events table's stream
// (new and old images), reporting partial batch failures.
type StreamTrigger struct {
	BatchSize int
	// InsertsOf, when set, limits the records to INSERTs of items whose
	// "type" attribute is this value: the event source mapping's filter in
	// AWS, so other writes never invoke the function (the processor
	// ignores them too, for the local poller and a filter changed by hand).
	InsertsOf string
}

// FilterPattern is the event source mapping's filter pattern (Lambda's
// event-filtering syntax) for st: INSERT records whose new item's "type"
// is InsertsOf; nil (every record) without InsertsOf. The CDK stack
// deploys it and the SAM template is checked against it.
func (st StreamTrigger) FilterPattern() map[string]any {
	if st.InsertsOf == "" {
		return nil
	}
	return map[string]any{
		"eventName": []any{"INSERT"},
		"dynamodb":  map[string]any{"NewImage": map[string]any{"type": map[string]any{"S": []any{st.InsertsOf}}}},
	}
}

// ScheduleTrigger starts a function on a schedule expression, e.g.
// "rate(1 minute)".
type ScheduleTrigger struct {
	Expression string
}

// Every returns the interval of a rate expression ("rate(N unit)", unit
// minute(s), hour(s) or day(s), as EventBridge writes them); the local
// stack ticks at it. Other expressions (cron) fail.
func (s ScheduleTrigger) Every() (time.Duration, error) {
	inner, ok := strings.CutPrefix(s.Expression, "rate(")
	inner, ok2 := strings.CutSuffix(inner, ")")
	n, unit, ok3 := strings.Cut(inner, " ")
	v, err := strconv.Atoi(n)
	if !ok || !ok2 || !ok3 || err != nil || v < 1 {
		return 0, fmt.Errorf("manifest: schedule %q is not rate(N unit)", s.Expression)
	}
	units := map[string]time.Duration{"minute": time.Minute, "minutes": time.Minute, "hour": time.Hour, "hours": time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour}
	d, ok := units[unit]
	if !ok || (v == 1) != !strings.HasSuffix(unit, "s") {
		return 0, fmt.Errorf("manifest: schedule %q: unit %q (EventBridge wants minute for 1, minutes for more)", s.Expression, unit)
	}
	return time.Duration(v) * d, nil
}

// QueueTrigger starts a function with batches from the queue named Name
// (declared by the stack, with a dead-letter queue), reporting partial
// batch failures.
type QueueTrigger struct {
	Name      string
	BatchSize int
	// MaxConcurrency bounds how many invocations the queue's event source
	// mapping runs at once (Lambda's MaximumConcurrency, 2 to 1000).
	MaxConcurrency int
}

// QueueWebhookAttempts is the webhook attempts queue: one message per
// delivery attempt to make, from webhook-dispatcher (first attempts) and
// webhook-sender itself (second attempts, delayed 5 s).
const QueueWebhookAttempts = "webhook-attempts"

// TableAccess is what a function does to the table beyond authenticating
// and counting requests, which every partner-key route does with one
// conditional UpdateItem on its key's record (table.AuthKeyPrefix). It
// drives the deployed function's least-privilege grants.
type TableAccess struct {
	// Get allows GetItem on the table.
	Get bool
	// Query allows Query on the gsi1 index.
	Query bool
	// QueryItems allows Query on the table itself: reading one partition's
	// items (a survey and its clips).
	QueryItems bool
	// ReadEvents allows GetItem on the events table and Query on its
	// listing indexes (table.EventIndexes): listEvents and getEvent.
	ReadEvents bool
	// Write lists the leading (partition) key patterns, in IAM StringLike
	// syntax, of the items the function may PutItem and UpdateItem: the
	// table package's *Keys patterns. table.EventKeys grants the write on
	// the events table (WritesEvents), every other pattern on the main
	// table.
	Write []string
}

// BucketAccess lists the key prefixes of the clip bucket a function may
// read (GetObject, presigned GETs) and write (PutObject, presigned PUTs).
type BucketAccess struct {
	Read  []string
	Write []string
}

// ClipPrefix is the key prefix of survey clips in the clip bucket:
// clips/<partner>/<mode>/<survey_id>/<clip_id> (see survey.ObjectKey).
const ClipPrefix = "clips/"

// Secret names. Each is deployed as one secret and read by the functions
// that list it.
const (
	// SecretCursor signs listLeads' and listEvents' cursors (at least 32
	// random bytes).
	SecretCursor = "cursor-signing-key"
	// SecretWebhookSealing is the AES-256 key (32 random bytes) that seals
	// webhook endpoints' signing secrets in the table (webhook.Sealer):
	// a secret must be readable to sign, so the table holds it encrypted
	// and only the webhook functions and opctl can open it.
	SecretWebhookSealing = "webhook-sealing-key"
	// SecretStripeKeys holds the platform's Stripe secret API keys by
	// mode, as JSON text: {"test": "sk_test_…", "live": "sk_live_…"}. A
	// test-mode deposit is made with the test key, a live one with the
	// live key. The operator puts the keys in (docs/DEPOSITS.md).
	SecretStripeKeys = "stripe-api-keys"
	// SecretStripeWebhook holds the signing secrets of the Stripe Connect
	// webhook endpoints by mode, as JSON text: {"test": "whsec_…",
	// "live": "whsec_…"} (one endpoint per mode: /stripe-webhook/test and
	// /stripe-webhook/live).
	SecretStripeWebhook = "stripe-webhook-secrets"
	// SecretCaptureLink is the HMAC key (32 random bytes) getSurveyLink
	// derives a call's capture token from under an Idempotency-Key
	// (linktoken.Derive), so a replay answers the same link while the
	// table keeps only the token's hash.
	SecretCaptureLink = "capture-link-key"
)

// SignaturePrefix is the key prefix of signed quotes' signature images in
// the clip bucket: signatures/<partner>/<mode>/<quote_id>/<sha256>.png.
// No lifecycle rule expires it (signature evidence is kept) and no
// function is triggered by it.
const SignaturePrefix = "signatures/"

// Metrics that functions report (shared/edge/schedule writes them in CloudWatch's
// embedded metric format, dimension Function=<slug>) and the stack alarms
// on.
const (
	MetricNamespace = "MoveLeads"
	// MetricWebhookMostOverdue is how long past its due time the most
	// overdue webhook delivery was when webhook-retrier looked (seconds).
	MetricWebhookMostOverdue = "WebhookMostOverdueSeconds"
	// MetricWebhookDue counts the deliveries webhook-retrier found due.
	MetricWebhookDue = "WebhookDueDeliveries"
)

// Secrets lists every secret name.
var Secrets = []string{SecretCursor, SecretWebhookSealing, SecretStripeKeys, SecretStripeWebhook, SecretCaptureLink}

// Functions lists every Lambda function. Order is the order docs present
// them in.
var Functions = []Function{
	{
		Slug: "v1-leads", Summary: "Create a lead; returns an instant estimate when enough is known.",
		HTTP: []Route{{
			Operation: CreateLead, Method: "POST",
			PilotPath: "/v1-leads", LogicalPath: "/v1/leads",
			Auth: AuthPartnerKey, Scope: auth.LeadsWrite, Idempotent: true,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		// GetItem: the partner's settings (rate card), and a duplicate
		// polls the idempotency record it waits for.
		Table: TableAccess{Get: true, Write: []string{table.LeadKeys, table.IdempotencyKeys}},
	},
	{
		Slug: "v1-leads-list", Summary: "List leads by (updated_at, lead_id) with keyset pagination and delta sync.",
		HTTP: []Route{{
			Operation: ListLeads, Method: "GET",
			PilotPath: "/v1-leads-list", LogicalPath: "/v1/leads",
			Auth: AuthPartnerKey, Scope: auth.LeadsRead,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		Table:   TableAccess{Query: true},
		Secrets: []string{SecretCursor},
	},
	{
		Slug: "v1-lead-get", Summary: "Read one lead's status.",
		HTTP: []Route{{
			Operation: GetLead, Method: "GET",
			PilotPath: "/v1-lead-get/{lead_id}", LogicalPath: "/v1/leads/{id}", PathParamType: ParamUUID,
			Auth: AuthPartnerKey, Scope: auth.LeadsRead,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		Table: TableAccess{Get: true},
	},
	{
		Slug: "v1-events", Summary: "List the partner's events of the last 30 days, newest first, with keyset pagination and type, lead and time filters.",
		HTTP: []Route{{
			Operation: ListEvents, Method: "GET",
			PilotPath: "/v1-events", LogicalPath: "/v1/events",
			Auth: AuthPartnerKey, Scope: auth.EventsRead,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		Table:   TableAccess{ReadEvents: true},
		Secrets: []string{SecretCursor},
	},
	{
		Slug: "v1-event-get", Summary: "Read one of the partner's events of the last 30 days.",
		HTTP: []Route{{
			Operation: GetEvent, Method: "GET",
			PilotPath: "/v1-event-get/{event_id}", LogicalPath: "/v1/events/{id}", PathParamType: ParamEventID,
			Auth: AuthPartnerKey, Scope: auth.EventsRead,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		Table: TableAccess{ReadEvents: true},
	},
	{
		Slug: "v1-lead-survey", Summary: "Start (or continue) a lead's video survey and return a hosted capture link.",
		HTTP: []Route{{
			Operation: GetSurveyLink, Method: "POST",
			PilotPath: "/v1-lead-survey/{lead_id}", LogicalPath: "/v1/leads/{id}/video-survey", PathParamType: ParamUUID,
			Auth: AuthPartnerKey, Scope: auth.SurveysWrite, Idempotent: true,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		// GetItem: the lead, its survey, the partner's settings (link
		// lifetime) and a waited-for idempotency record.
		Table:   TableAccess{Get: true, Write: []string{table.LeadKeys, table.SurveyKeys, table.CaptureTokenKeys, table.SurveyRefKeys, table.IdempotencyKeys}},
		Secrets: []string{SecretCaptureLink},
	},
	{
		Slug: "v1-capture", Summary: "The hosted capture page a customer opens on a phone, and its JSON calls (request a clip upload, poll the verdicts, request frame uploads, save the checklist, finish).",
		HTTP: []Route{
			{
				Operation: CapturePage, Method: "GET", PilotPath: "/v1-capture/{token}",
				Auth: AuthCaptureToken, BodyLimit: 1 << 10, Response: HTML, RateLimit: PerToken,
			},
			{
				Operation: CaptureClip, Method: "POST", PilotPath: "/v1-capture/{token}/clips",
				Auth: AuthCaptureToken, BodyLimit: 4 << 10, Response: JSON, RateLimit: PerToken,
			},
			{
				// The page polls its clips' verdicts every few seconds
				// while one is being checked.
				Operation: CaptureClips, Method: "GET", PilotPath: "/v1-capture/{token}/clips",
				Auth: AuthCaptureToken, BodyLimit: 1 << 10, Response: JSON, RateLimit: PerToken,
			},
			{
				Operation: CaptureChecklist, Method: "PUT", PilotPath: "/v1-capture/{token}/checklist",
				Auth: AuthCaptureToken, BodyLimit: 64 << 10, Response: JSON, RateLimit: PerToken,
			},
			{
				// A clip's frames are announced in one call: 60 frames of
				// about 70 bytes each fit in 8 KB.
				Operation: CaptureFrames, Method: "POST", PilotPath: "/v1-capture/{token}/frames",
				Auth: AuthCaptureToken, BodyLimit: 8 << 10, Response: JSON, RateLimit: PerToken,
			},
			{
				Operation: CaptureFinish, Method: "POST", PilotPath: "/v1-capture/{token}/finish",
				Auth: AuthCaptureToken, BodyLimit: 4 << 10, Response: JSON, RateLimit: PerToken,
			},
		},
		// Token records count requests (per-token rate limit); clips,
		// checklist and transitions are survey items and move the lead
		// (a transition also writes the webhook events it owes);
		// clips and frames are read with a Query of the survey's
		// partition. Uploads are presigned PUTs; finishing checks which
		// announced clips and frames arrived (HeadObject, which needs
		// s3:GetObject) and writes the survey's finish marker (PutObject),
		// whose event has the clip processor settle the survey.
		Table:  TableAccess{Get: true, QueryItems: true, Write: []string{table.CaptureTokenKeys, table.SurveyKeys, table.LeadKeys, table.EventKeys}},
		Bucket: BucketAccess{Read: []string{ClipPrefix}, Write: []string{ClipPrefix}},
	},
	{
		Slug: "v1-survey-video-access", Summary: "Mint a forwardable, expiring link to a survey's walkthrough video, or revoke every live one.",
		HTTP: []Route{
			{
				Operation: CreateSurveyVideoAccess, Method: "POST",
				PilotPath: "/v1-survey-video-access/{survey_id}", LogicalPath: "/v1/surveys/{id}/video-access", PathParamType: ParamUUID,
				Auth: AuthPartnerKey, Scope: auth.SurveysRead,
				BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
			},
			{
				Operation: RevokeSurveyVideoAccess, Method: "DELETE",
				PilotPath: "/v1-survey-video-access/{survey_id}", LogicalPath: "/v1/surveys/{id}/video-access", PathParamType: ParamUUID,
				Auth: AuthPartnerKey, Scope: auth.SurveysRead,
				BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
			},
		},
		// GetItem: the survey's live set; Query: its clips (playable
		// count). A mint writes the survey's set, the grant (survey
		// partition) and the token's lookup record; a revoke the set and
		// the grants.
		Table: TableAccess{Get: true, QueryItems: true, Write: []string{table.SurveyKeys, table.ViewTokenKeys}},
	},
	{
		Slug: "v1-video", Summary: "The viewer page a video link opens: the survey's playable clips, each from a presigned address that lives 10 minutes.",
		HTTP: []Route{{
			Operation: VideoPage, Method: "GET", PilotPath: "/v1-video/{token}",
			Auth: AuthViewToken, BodyLimit: 1 << 10, Response: HTML, RateLimit: PerToken,
		}},
		// GetItem: the token's lookup record, the partner (display
		// name); Query: the survey's clips. An open checks the grant is
		// in the survey's live set, counts on the lookup record and logs
		// the open in the survey's partition, in one transaction. Clip
		// addresses are presigned GETs.
		Table:  TableAccess{Get: true, QueryItems: true, Write: []string{table.ViewTokenKeys, table.SurveyKeys}},
		Bucket: BucketAccess{Read: []string{ClipPrefix}},
	},
	{
		Slug: "v1-lead-quote", Summary: "Make a quote for a lead (beta): its terms, the id the deposit names it by, and the hosted quote page the customer accepts it on.",
		HTTP: []Route{{
			Operation: CreateQuote, Method: "POST",
			PilotPath: "/v1-lead-quote/{lead_id}", LogicalPath: "/v1/leads/{id}/quote", PathParamType: ParamUUID,
			Auth: AuthPartnerKey, Scope: auth.DepositsWrite, Beta: partner.Deposits, Idempotent: true,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		// GetItem: the lead, its current quote, the partner (company
		// name, currency) and a waited-for idempotency record. The quote
		// is an item of the lead's partition; the superseded quote, the
		// lead and the page token's record are written in one
		// transaction.
		Table: TableAccess{Get: true, Write: []string{table.LeadKeys, table.QuoteTokenKeys, table.IdempotencyKeys}},
	},
	{
		Slug: "v1-accept", Summary: "Record a lead's quote acceptance (beta): non-binding with an email address, binding with an electronic signature and its evidence. Never books.",
		HTTP: []Route{{
			Operation: AcceptQuote, Method: "POST",
			PilotPath: "/v1-accept/{lead_id}", LogicalPath: "/v1/leads/{id}/accept", PathParamType: ParamUUID,
			Auth: AuthPartnerKey, Scope: auth.DepositsWrite, Beta: partner.Deposits, Idempotent: true,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		// GetItem: the lead and its quote. The signature image goes to
		// the bucket (PutObject) before the quote and the lead are
		// written in one transaction.
		Table:  TableAccess{Get: true, Write: []string{table.LeadKeys, table.IdempotencyKeys}},
		Bucket: BucketAccess{Write: []string{SignaturePrefix}},
	},
	{
		Slug: "v1-deposits", Summary: "Create a lead's date-holding deposit (beta): a Stripe Checkout Session on the partner's connected account, no platform fee.",
		HTTP: []Route{{
			Operation: CreateDeposit, Method: "POST",
			PilotPath: "/v1-deposits", LogicalPath: "/v1/deposits",
			Auth: AuthPartnerKey, Scope: auth.DepositsWrite, Beta: partner.Deposits, Idempotent: true,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		// GetItem: the lead, its quote, its open deposit, the partner
		// (carrier identity, connected account, default deposit). The
		// deposit, the lead and the return page's token record are
		// written in one transaction after Stripe answered.
		Table:   TableAccess{Get: true, Write: []string{table.LeadKeys, table.DepositKeys, table.QuoteTokenKeys, table.IdempotencyKeys}},
		Secrets: []string{SecretStripeKeys},
	},
	{
		Slug: "v1-deposit-status", Summary: "Read a deposit's status (beta), reconciled against Stripe at most once a minute while it is pending.",
		HTTP: []Route{{
			Operation: GetDeposit, Method: "GET",
			PilotPath: "/v1-deposit-status/{deposit_id}", LogicalPath: "/v1/deposits/{id}", PathParamType: ParamUUID,
			Auth: AuthPartnerKey, Scope: auth.DepositsRead, Beta: partner.Deposits, Idempotent: true,
			BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		// GetItem: the deposit. A reconciliation marks the deposit, asks
		// Stripe, and applies what it learnt as the webhook receiver
		// does (deposit, lead, webhook events owed, PaymentIntent index).
		Table:   TableAccess{Get: true, Write: []string{table.DepositKeys, table.LeadKeys, table.EventKeys, table.StripeKeys, table.IdempotencyKeys}},
		Secrets: []string{SecretStripeKeys},
	},
	{
		Slug: "v1-quote", Summary: "The hosted quote page a customer opens, and its own JSON calls (accept or sign; start the deposit's checkout).",
		HTTP: []Route{
			{
				Operation: QuotePage, Method: "GET", PilotPath: "/v1-quote/{token}",
				Auth: AuthQuoteToken, BodyLimit: 1 << 10, Response: HTML, RateLimit: PerToken,
			},
			{
				Operation: QuoteAccept, Method: "POST", PilotPath: "/v1-quote/{token}/accept",
				Auth: AuthQuoteToken, Beta: partner.Deposits, BodyLimit: DefaultBodyLimit, Response: JSON, RateLimit: PerToken,
			},
			{
				Operation: QuoteDeposit, Method: "POST", PilotPath: "/v1-quote/{token}/deposit",
				Auth: AuthQuoteToken, Beta: partner.Deposits, BodyLimit: 1 << 10, Response: JSON, RateLimit: PerToken,
			},
		},
		// The token's record counts requests; then as v1-accept and
		// v1-deposits (the page's deposit is the quote's). Accepting and
		// paying are the beta's, as through the API; the page itself
		// opens without it (it says what the customer can do). It reads
		// the signature image back for the signed copy.
		Table:   TableAccess{Get: true, Write: []string{table.QuoteTokenKeys, table.LeadKeys, table.DepositKeys}},
		Bucket:  BucketAccess{Read: []string{SignaturePrefix}, Write: []string{SignaturePrefix}},
		Secrets: []string{SecretStripeKeys},
	},
	{
		Slug: "stripe-webhook", Summary: "Receive Stripe's Connect webhook events for deposits (signature-checked): move the deposit, book the lead on payment, and owe the partner's webhooks.",
		HTTP: []Route{{
			Operation: StripeWebhook, Method: "POST", PilotPath: "/stripe-webhook/{mode}",
			Auth: AuthProcessorSignature, BodyLimit: StripeWebhookBodyLimit, Response: JSON, RateLimit: NoRateLimit,
		}},
		// GetItem: the deposit, a dispute's PaymentIntent record. An
		// applied event is one transaction: the deposit, its event id
		// (dedupe), the PaymentIntent record, the lead and the webhook
		// events owed.
		Table:   TableAccess{Get: true, Write: []string{table.DepositKeys, table.LeadKeys, table.EventKeys, table.StripeKeys}},
		Secrets: []string{SecretStripeWebhook},
	},
	{
		Slug: "clip-processor", Summary: "Validate each uploaded clip (container, codec, duration, size) and frame (a JPEG as announced, then the detector's labels), and settle the survey: inventory and recommended estimate, or failed.",
		S3: &S3Trigger{Prefix: ClipPrefix},
		// GetItem: the clip or frame, the survey, the lead (addresses)
		// and the partner (rate card); the clips and frames of a survey
		// by Query. Settling a survey writes the webhook events it owes.
		// Each valid frame goes to Rekognition's DetectLabels as bytes.
		Table:  TableAccess{Get: true, QueryItems: true, Write: []string{table.SurveyKeys, table.LeadKeys, table.EventKeys}},
		Bucket: BucketAccess{Read: []string{ClipPrefix}},
		Detect: true,
	},
	{
		Slug: "webhook-dispatcher", Summary: "Fan each webhook event owed (an event item written with the state change that owes it) out to the partner's endpoints of its mode: write each delivery and hand it to the attempts queue, without waiting for any endpoint.",
		Stream: &StreamTrigger{BatchSize: 10, InsertsOf: "event"},
		// GetItem: an endpoint, a delivery; Query (gsi1): the tenant's
		// endpoints. Deliveries, attempts and endpoint health are items of
		// the endpoint's partition. It links the attempt code (and so
		// holds the sealing key) though the sender makes the attempts.
		Table:   TableAccess{Get: true, Query: true, Write: []string{table.WebhookKeys}},
		Secrets: []string{SecretWebhookSealing},
		SendsTo: []string{QueueWebhookAttempts},
	},
	{
		Slug: "webhook-sender", Summary: "Make the webhook delivery attempts the attempts queue holds, many at once, each within its 10 s timeout (a second attempt goes back to the queue for 5 s): one partner's slow endpoint delays only its own deliveries.",
		// Up to 50 batches of 10 at once. A hanging endpoint holds one
		// slot per message for at most webhook.AttemptTimeout: other
		// partners wait only when hanging messages fill every slot.
		Queue: &QueueTrigger{Name: QueueWebhookAttempts, BatchSize: 10, MaxConcurrency: 50},
		// GetItem: the delivery, its endpoint; then claim, record and
		// endpoint health, as the retrier.
		Table:   TableAccess{Get: true, Write: []string{table.WebhookKeys}},
		Secrets: []string{SecretWebhookSealing},
		SendsTo: []string{QueueWebhookAttempts},
	},
	{
		Slug: "webhook-retrier", Summary: "Every minute, attempt the webhook deliveries that are due again (the schedule's 5 min to 24 h waits, redeliveries, attempts a crash interrupted) and report how late the most overdue one is.",
		Schedule: &ScheduleTrigger{Expression: "rate(1 minute)"},
		// Query (gsi1): the due deliveries; then as the dispatcher.
		Table:   TableAccess{Get: true, Query: true, Write: []string{table.WebhookKeys}},
		Secrets: []string{SecretWebhookSealing},
	},
	{
		Slug: AgentToolsSlug, Summary: "The agent tool server's remote transport (MCP over streamable HTTP, stateless, JSON): the partner operations as tools, with the key in X-Partner-Key on every request.",
		HTTP: []Route{{
			Operation: AgentTools, Method: "POST",
			PilotPath: "/v1-mcp", LogicalPath: "/v1/mcp",
			Auth: AuthAgentKey, BodyLimit: AgentToolsBodyLimit, Response: JSON, RateLimit: PerKey,
		}},
		// What the functions of AgentToolOperations do, since it runs
		// their operations: no more, no less (TestAgentToolsGrants
		// checks it is their union).
		Table: TableAccess{Get: true, Query: true, QueryItems: true, ReadEvents: true, Write: []string{
			table.LeadKeys, table.IdempotencyKeys, table.SurveyKeys, table.CaptureTokenKeys, table.SurveyRefKeys,
			table.ViewTokenKeys, table.QuoteTokenKeys, table.DepositKeys, table.EventKeys, table.StripeKeys,
		}},
		Bucket:  BucketAccess{Write: []string{SignaturePrefix}},
		Secrets: []string{SecretCursor, SecretStripeKeys, SecretCaptureLink},
	},
	{
		Slug: DashboardSlug, Summary: "The partner dashboard: passkey sign-in from an invitation, sessions, people and their passkeys, the audit log, Developers (API keys, webhook endpoints and deliveries, events), the leads and their surveys; every page under /dashboard.",
		HTTP: DashboardRoutes(),
		// Every item is a DASH# item: people, passkeys, invitations,
		// sessions, ceremonies, audit entries and attempt counts; Query
		// (gsi1): a partner's people; Query (table): a person's
		// passkeys, a partner's audit trail.
		// Developers: API keys (AUTH#), webhook endpoints and deliveries
		// (WEBHOOK#), test events, and reading the events.
		// The leads pages: Query (gsi1) a tenant's leads, GetItem a lead,
		// Query its survey's clips and its events (ReadEvents), presigned
		// GETs of the clips; a fresh capture link writes what getSurveyLink
		// writes.
		Table: TableAccess{Get: true, Query: true, QueryItems: true, ReadEvents: true, Write: []string{
			table.DashboardKeys, table.AuditKeys, table.AuthKeys, table.WebhookKeys, table.EventKeys,
			table.LeadKeys, table.SurveyKeys, table.CaptureTokenKeys, table.SurveyRefKeys}},
		Bucket:  BucketAccess{Read: []string{ClipPrefix}},
		Secrets: []string{SecretCursor, SecretWebhookSealing},
	},
	{
		Slug: "route-not-found", Summary: "Answer every request no route matches with the API's error body (404, or 405 with Allow).",
		HTTP: []Route{{
			Operation: RouteNotFound, Method: AnyMethod, PilotPath: DefaultPath,
			Auth: AuthNone, Response: JSON, RateLimit: NoRateLimit,
		}},
	},
}

// DashboardSlug is the partner dashboard's function.
const DashboardSlug = "dashboard"

// DashboardBodyLimit bounds a dashboard call: a form, or a WebAuthn
// response (an attestation is a few KB).
const DashboardBodyLimit = 32 << 10

// DashboardRoutes are the dashboard's routes; every page and call a later
// dashboard page adds goes here, and the security matrix
// (shared/app/dashboard's tests) iterates them.
func DashboardRoutes() []Route {
	page := func(op Operation, path string) Route {
		return Route{Operation: op, Method: "GET", PilotPath: path, Auth: AuthDashboardSession,
			BodyLimit: 1 << 10, Response: HTML, RateLimit: NoRateLimit}
	}
	call := func(op Operation, path string) Route {
		return Route{Operation: op, Method: "POST", PilotPath: path, Auth: AuthDashboardSession,
			BodyLimit: DashboardBodyLimit, Response: JSON, RateLimit: NoRateLimit}
	}
	open := func(op Operation, method, path string, resp ContentType) Route {
		return Route{Operation: op, Method: method, PilotPath: path, Auth: AuthNone,
			BodyLimit: DashboardBodyLimit, Response: resp, RateLimit: PerClient}
	}
	asset := Route{Operation: DashboardAsset, Method: "GET", PilotPath: "/dashboard/assets/{name}",
		Auth: AuthNone, BodyLimit: 1 << 10, Response: HTML, RateLimit: NoRateLimit}
	remove := call(DashboardPersonRemove, "/dashboard/settings/people/{person_id}/remove")
	remove.PathParamType, remove.Admin, remove.RecentSignIn = ParamUUID, true, true
	audit := page(DashboardAudit, "/dashboard/settings/audit")
	audit.Admin = true
	// admin marks a route admin-only; recent also needs a recent sign-in
	// (it hands out or ends a credential).
	// An admin's form: it answers with a page or a redirect, and a
	// refusal with the error body like every call.
	admin := func(op Operation, path string, recent bool) Route {
		r := call(op, path)
		r.Admin, r.RecentSignIn = true, recent
		return r
	}
	event := page(DashboardEvent, "/dashboard/developers/events/{event_id}")
	event.PathParamType = ParamEventID
	hook := "/dashboard/developers/webhooks/{endpoint_id}"
	leadPage := page(DashboardLead, "/dashboard/leads/{lead_id}")
	leadPage.PathParamType = ParamUUID
	// A form's POST; it answers the lead's page, with the fresh link, as
	// sign-out and the mode switch answer a redirect.
	surveyLink := call(DashboardLeadSurveyLink, "/dashboard/leads/{lead_id}/survey-link")
	surveyLink.PathParamType = ParamUUID
	return []Route{
		asset,
		open(DashboardSignInPage, "GET", "/dashboard/sign-in", HTML),
		open(DashboardSignInBegin, "POST", "/dashboard/sign-in/begin", JSON),
		open(DashboardSignInFinish, "POST", "/dashboard/sign-in/finish", JSON),
		open(DashboardInvitationPage, "GET", "/dashboard/invitations/{token}", HTML),
		open(DashboardInvitationBegin, "POST", "/dashboard/invitations/{token}/begin", JSON),
		open(DashboardInvitationFinish, "POST", "/dashboard/invitations/{token}/finish", JSON),
		page(DashboardHome, "/dashboard"),
		call(DashboardSignOut, "/dashboard/sign-out"),
		call(DashboardMode, "/dashboard/mode"),
		call(DashboardReauthBegin, "/dashboard/reauth/begin"),
		call(DashboardReauthFinish, "/dashboard/reauth/finish"),
		page(DashboardPeople, "/dashboard/settings/people"),
		call(DashboardPasskeyBegin, "/dashboard/settings/passkeys/begin"),
		call(DashboardPasskeyFinish, "/dashboard/settings/passkeys/finish"),
		remove,
		audit,
		page(DashboardKeys, "/dashboard/developers/keys"),
		admin(DashboardKeyCreate, "/dashboard/developers/keys/create", true),
		admin(DashboardKeyRevoke, "/dashboard/developers/keys/{key_id}/revoke", true),
		page(DashboardWebhooks, "/dashboard/developers/webhooks"),
		admin(DashboardWebhookAdd, "/dashboard/developers/webhooks/add", false),
		page(DashboardWebhook, hook),
		admin(DashboardWebhookDisable, hook+"/disable", false),
		admin(DashboardWebhookEnable, hook+"/enable", false),
		admin(DashboardWebhookRotate, hook+"/rotate", true),
		admin(DashboardWebhookTest, hook+"/test", false),
		admin(DashboardRedeliver, hook+"/redeliver", false),
		page(DashboardEvents, "/dashboard/developers/events"),
		event,
		page(DashboardLeads, "/dashboard/leads"),
		leadPage,
		surveyLink,
	}
}

// AgentToolsSlug is the agent tool server's function.
const AgentToolsSlug = "v1-mcp"

// AgentToolsBodyLimit bounds one request to the agent tool server: one
// JSON-RPC message whose arguments are at most one operation's body
// (DefaultBodyLimit, an acceptQuote with its signature image), with room
// for the envelope and JSON escaping.
const AgentToolsBodyLimit = 2 * DefaultBodyLimit

// AgentToolsAnswerLimit bounds one answer of the agent tool server's HTTP
// transport: safely under Lambda's 6 MB synchronous response limit, past
// which AWS would answer 5xx. A larger answer is refused with an error
// that says to ask for less; it is never truncated.
const AgentToolsAnswerLimit = 5 << 20

// AgentToolOperations are the partner operations the agent tool server
// offers as tools, in its tools/list order.
var AgentToolOperations = []Operation{
	CreateLead, ListLeads, GetLead, GetSurveyLink,
	CreateSurveyVideoAccess, RevokeSurveyVideoAccess,
	CreateQuote, AcceptQuote, CreateDeposit, GetDeposit,
	ListEvents, GetEvent,
}

// BySlug returns the function named slug.
func BySlug(slug string) (Function, bool) {
	for _, f := range Functions {
		if f.Slug == slug {
			return f, true
		}
	}
	return Function{}, false
}

// Routes returns every HTTP route of every function, in table order, each
// with its function's Slug filled in. The $default route comes last. The
// slice is the caller's.
func Routes() []Route { return slices.Clone(index().routes) }

// routeIndex is Routes with each operation's place in it, built once per
// version of Functions: ByOperation is called on every tool call and at
// every function's init, and rebuilding the list each time cost 6–24 µs
// a call (a loop of Routes calls, measured once on this project's 2-core
// machines).
type routeIndex struct {
	base   *Function // &Functions[0] and len(Functions) it was built from
	n      int
	routes []Route
	byOp   map[Operation]int
}

var (
	indexMu sync.Mutex
	cached  *routeIndex
)

// index returns the route index of Functions as they are now (tests may
// replace Functions; a new slice gets a new index). Changing an element
// of Functions in place is not seen: nothing does.
func index() *routeIndex {
	indexMu.Lock()
	defer indexMu.Unlock()
	var base *Function
	if len(Functions) > 0 {
		base = &Functions[0]
	}
	if cached != nil && cached.base == base && cached.n == len(Functions) {
		return cached
	}
	ix := &routeIndex{base: base, n: len(Functions), byOp: map[Operation]int{}}
	var dflt []Route
	for _, f := range Functions {
		for _, r := range f.HTTP {
			r.Slug = f.Slug
			if r.IsDefault() {
				dflt = append(dflt, r)
				continue
			}
			ix.routes = append(ix.routes, r)
		}
	}
	ix.routes = append(ix.routes, dflt...)
	for i, r := range ix.routes {
		if _, dup := ix.byOp[r.Operation]; !dup {
			ix.byOp[r.Operation] = i
		}
	}
	cached = ix
	return ix
}

// PartnerRoutes returns the routes of the partner API: those a partner
// calls with its API key (the OpenAPI document describes exactly these).
// The $default route and the token routes of hosted pages (the capture
// page and its calls, docs/CAPTURE.md) are not partner API.
func PartnerRoutes() []Route {
	var out []Route
	for _, r := range index().routes {
		if r.Auth == AuthPartnerKey {
			out = append(out, r)
		}
	}
	return out
}

// ByOperation returns the route of op. It panics when op has none, a
// programming error every test that builds a handler catches.
func ByOperation(op Operation) Route {
	ix := index()
	if i, ok := ix.byOp[op]; ok {
		return ix.routes[i]
	}
	panic(fmt.Sprintf("manifest: no route for operation %q", op))
}

// Function returns the function that serves r.
func (r Route) Function() Function {
	f, ok := BySlug(r.Slug)
	if !ok {
		panic(fmt.Sprintf("manifest: route %s has no function %q", r.Operation, r.Slug))
	}
	return f
}

// FunctionOf returns the function serving op. It panics when there is none.
func FunctionOf(op Operation) Function { return ByOperation(op).Function() }
