// Package table is the single source of truth for the DynamoDB tables'
// schema: the main table's key attributes, its global secondary indexes,
// its TTL attribute, and the small events table that alone carries a
// stream. The DynamoDB adapter creates local tables from
// it and the CDK stack declares the deployed table from it.
//
// It imports nothing from the AWS SDK so that every consumer (including the
// CDK app, in its own module) can read it.
package table

// Key attribute names of the base table. Both are strings.
const (
	PK = "pk"
	SK = "sk"
)

// Index is a global secondary index with a string partition and sort key,
// projecting all attributes.
type Index struct {
	Name string
	PK   string
	SK   string
	// Purpose is the access pattern the index serves, for docs.
	Purpose string
}

// GSI1 serves "a partner's leads in (updated_at, lead_id) order" and "a
// partner's API keys".
var GSI1 = Index{
	Name: "gsi1", PK: "gsi1pk", SK: "gsi1sk",
	Purpose: "partner's leads by (updated_at, lead_id); partner's API keys",
}

// Indexes lists every global secondary index.
var Indexes = []Index{GSI1}

// EventListSK is the sort key of every events index: the event's time
// (lead.TimeLayout, whose string order is the time order) and its id,
// "<at>#<event_id>". listEvents reads an index newest first.
const EventListSK = "list_sk"

// The events table's indexes (listEvents, getEvent's table is the base
// table): one per filter combination, so that every listing is one keyed
// Query whose reads do not grow with the partner's other events. Each
// partition key starts with the tenant, PARTNER#<partner>#MODE#<mode>.
// They are sparse: a webhook.test sent to one endpoint has none of
// them (it is not listed), and an event without a lead none of the lead
// ones.
var (
	// EventsByTenant: a tenant's events.
	EventsByTenant = Index{Name: "events_by_tenant", PK: "tenant_pk", SK: EventListSK,
		Purpose: "tenant's events, newest first (listEvents)"}
	// EventsByType: a tenant's events of one type (…#TYPE#<type>).
	EventsByType = Index{Name: "events_by_type", PK: "type_pk", SK: EventListSK,
		Purpose: "tenant's events of one type, newest first (listEvents?type=)"}
	// EventsByLead: a tenant's events about one lead (…#LEAD#<lead_id>).
	EventsByLead = Index{Name: "events_by_lead", PK: "lead_pk", SK: EventListSK,
		Purpose: "tenant's events about one lead, newest first (listEvents?lead_id=)"}
	// EventsByLeadType: both (…#LEAD#<lead_id>#TYPE#<type>).
	EventsByLeadType = Index{Name: "events_by_lead_type", PK: "lead_type_pk", SK: EventListSK,
		Purpose: "tenant's events of one type about one lead, newest first (listEvents?lead_id=&type=)"}
)

// EventIndexes lists the events table's global secondary indexes.
var EventIndexes = []Index{EventsByTenant, EventsByType, EventsByLead, EventsByLeadType}

// TTLAttribute holds an item's expiry as epoch seconds. DynamoDB deletes
// expired items within days, so readers also check it themselves.
const TTLAttribute = "expires_at"

// StreamView is what the events table's stream records carry of a
// changed item (a DynamoDB StreamViewType). The outgoing-webhook
// dispatcher reads the "event owed" item from the new image of its INSERT;
// the old image shows what a REMOVE (TTL) deleted. The main table has no
// stream: only the events table's items are streamed, so the dispatcher
// never reads past the rate-limit counter's update on every request (half
// of all writes), and DynamoDB Local, whose every write to a streamed
// table slows as stream records pile up, stays fast. The local tables
// (dynamo.CreateTablesWithStream) and the deployed one (infra/stack) both
// enable the events table's stream with this view.
const StreamView = "NEW_AND_OLD_IMAGES"

// The events table holds only the webhook events owed (the outbox items,
// EventKeys), under the same key attributes (PK, SK) and TTL attribute as
// the main table, with the listing indexes EventIndexes; its stream
// (StreamView) triggers the webhook dispatcher. A state change writes its
// events in its own transaction, which names both tables.
//
// EventsName is the events table's name locally (make dev, tests, tools)
// for main table name: main + "-events". Deployed functions get the
// deployed name in settings.EventsTable instead.
func EventsName(main string) string { return main + "-events" }

// AuthKeyPrefix starts the partition key of every API key's authentication
// record ("APIKEY#<sha256 of the key>"). Every function updates those
// records (authenticate and count), and only those: the deployed grants
// restrict that update to partition keys with this prefix.
const AuthKeyPrefix = "APIKEY#"

// CaptureTokenPrefix starts the partition key of every capture token's
// lookup record ("CAPTURE#<sha256 of the token>"): the capture page finds
// its survey from the token alone, before it knows the tenant.
const CaptureTokenPrefix = "CAPTURE#"

// ViewTokenPrefix starts the partition key of every video link's lookup
// record ("VIEW#<sha256 of the token>"): the viewer page finds the link's
// survey from the token alone.
const ViewTokenPrefix = "VIEW#"

// SurveyRefPrefix starts the partition key of every survey's id record
// ("SURVEYID#<survey_id>"): from a survey id to its tenant and lead, for
// operators, who know a survey by its id only.
const SurveyRefPrefix = "SURVEYID#"

// WebhookPrefix starts the partition key of every webhook endpoint's
// partition ("WHEP#<endpoint_id>": the endpoint, its deliveries and their
// attempts).
const WebhookPrefix = "WHEP#"

// QuoteTokenPrefix starts the partition key of every quote page token's
// lookup record ("QUOTEPAGE#<sha256 of the token>"): the quote page finds
// its lead and quote from the token alone.
const QuoteTokenPrefix = "QUOTEPAGE#"

// StripePrefix starts the partition key of the records the Stripe webhook
// receiver keeps: the ids of the events it applied
// ("STRIPE#EVT#<event_id>", for dedupe) and each deposit's PaymentIntent
// ("STRIPE#PI#<mode>#<pi_id>"), by which a dispute, whose metadata is
// empty, finds its deposit.
const StripePrefix = "STRIPE#"

// AuditSuffix ends the partition key of every partner's audit trail
// ("PARTNER#<partner_id>#AUDIT": who changed which key, endpoint, secret
// or person, and when).
const AuditSuffix = "#AUDIT"

// DashboardPrefix starts the partition key of every item of the partner
// dashboard's sign-in: people and their passkeys ("DASH#PERSON#<id>"),
// invitations, sessions and WebAuthn ceremonies by their token's hash
// ("DASH#INVITE#", "DASH#SESSION#", "DASH#CEREMONY#"), a partner's people
// and sign-in attempt counts ("DASH#RATE#"). Its audit entries are the
// partner's trail (AuditSuffix).
const DashboardPrefix = "DASH#"

// DefaultName is the table name used when TABLE_NAME is not set locally.
const DefaultName = "partner-api"

// Leading-key patterns (IAM StringLike syntax, for dynamodb:LeadingKeys
// conditions) of the items functions write. The dynamo adapter's key
// builders produce keys that match them; its tests check that.
const (
	// AuthKeys matches API keys' authentication records.
	AuthKeys = AuthKeyPrefix + "*"
	// LeadKeys matches leads: PARTNER#<partner>#MODE#<mode>#LEAD#<lead_id>.
	LeadKeys = "PARTNER#*#MODE#*#LEAD#*"
	// IdempotencyKeys matches Idempotency-Key records:
	// PARTNER#<partner>#MODE#<mode>#IDEM#<operation>#<sha256>.
	IdempotencyKeys = "PARTNER#*#MODE#*#IDEM#*"
	// SurveyKeys matches video surveys and their clips, which share the
	// survey's partition: PARTNER#<partner>#MODE#<mode>#SURVEY#<survey_id>.
	SurveyKeys = "PARTNER#*#MODE#*#SURVEY#*"
	// CaptureTokenKeys matches capture tokens' lookup records:
	// CAPTURE#<sha256 of the token>.
	CaptureTokenKeys = CaptureTokenPrefix + "*"
	// ViewTokenKeys matches video links' lookup records:
	// VIEW#<sha256 of the token>.
	ViewTokenKeys = ViewTokenPrefix + "*"
	// SurveyRefKeys matches surveys' id records: SURVEYID#<survey_id>.
	SurveyRefKeys = SurveyRefPrefix + "*"
	// EventKeys matches webhook events owed (the outbox), the only items
	// of the events table (EventsName):
	// PARTNER#<partner>#MODE#<mode>#EVENT#<event_id>.
	EventKeys = "PARTNER#*#MODE#*#EVENT#*"
	// WebhookKeys matches webhook endpoints' partitions: WHEP#<endpoint_id>.
	WebhookKeys = WebhookPrefix + "*"
	// DepositKeys matches deposits:
	// PARTNER#<partner>#MODE#<mode>#DEPOSIT#<deposit_id>. (A lead's
	// quotes share the lead's partition: LeadKeys.)
	DepositKeys = "PARTNER#*#MODE#*#DEPOSIT#*"
	// QuoteTokenKeys matches quote page tokens' lookup records:
	// QUOTEPAGE#<sha256 of the token>.
	QuoteTokenKeys = QuoteTokenPrefix + "*"
	// StripeKeys matches the Stripe receiver's records (StripePrefix).
	StripeKeys = StripePrefix + "*"
	// AuditKeys matches partners' audit trails:
	// PARTNER#<partner_id>#AUDIT.
	AuditKeys = "PARTNER#*" + AuditSuffix
	// DashboardKeys matches the dashboard's sign-in items
	// (DashboardPrefix).
	DashboardKeys = DashboardPrefix + "*"
)

// WritePatterns lists the leading-key patterns a function's manifest entry
// may name in its Table.Write. AuthKeys is for the dashboard alone, which
// creates and revokes keys; functions that only authenticate keys get
// their UpdateItem on it apart.
var WritePatterns = []string{AuthKeys, LeadKeys, IdempotencyKeys, SurveyKeys, CaptureTokenKeys, ViewTokenKeys, SurveyRefKeys, EventKeys, WebhookKeys, DepositKeys, QuoteTokenKeys, StripeKeys, AuditKeys, DashboardKeys}
