package dynamo

import (
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// AccessPattern documents one way the service reads or writes the table.
// The keys are rendered by the key builders themselves, with placeholders,
// so the README's table cannot drift from the code.
type AccessPattern struct {
	Pattern string
	Call    string
	Index   string // "" for the base table
	PK, SK  string
}

// AccessPatterns lists every access pattern, for the README.
func AccessPatterns() []AccessPattern {
	t := auth.Tenant{PartnerID: "<partner_id>", Mode: "<mode>"}
	var ps []AccessPattern
	add := func(pattern, call, index, pk, sk string) {
		ps = append(ps, AccessPattern{pattern, call, index, pk, sk})
	}
	pk, sk := apiKeyKey("<sha256(key)>")
	add("authenticate a key, count the request (rate limit) and set its last_used_at", "UpdateItem (conditional)", "", pk, sk)
	add("a partner's keys' last use (key listing)", "BatchGetItem (projection last_used_at)", "", pk, sk)
	pk, sk = apiKeyIDKey("<key_id>")
	add("find a key by id (revoke: then one transaction over both key records and its audit entry)", "GetItem / TransactWriteItems", "", pk, sk)
	pk, sk = partnerKeysIndex("<partner_id>", "<created_at>", "<key_id>")
	add("list a partner's keys", "Query", table.GSI1.Name, pk, sk)
	pk, sk = auditKey("<partner_id>", "<at>", "<random id>")
	add("a partner's audit trail (who changed which key, endpoint, secret, person): write with the change or right after; list newest first",
		"in TransactWriteItems or PutItem (conditional: new) / Query (ScanIndexForward false, Limit)", "", pk, sk)
	pk, sk = partnerKey("<partner_id>")
	add("read a partner's settings (rate card, beta features) for a request", "GetItem (strongly consistent)", "", pk, sk)
	add("change a partner's rate card, beta features or deposit settings", "UpdateItem (conditional; beta: ADD / DELETE on a string set)", "", pk, sk)
	pk, sk = leadKey(t, "<lead_id>")
	add("create / read / update one lead (getLead: one GetItem, and a second of its survey's inventory once inventory_ready)",
		"PutItem (conditional: never overwrites) / GetItem / UpdateItem", "", pk, sk)
	add("read a lead's current quote and latest deposit refs (quote_*, deposit_* attributes of the lead item)",
		"GetItem (strongly consistent)", "", pk, sk)
	pk, sk = leadListIndex(t, "<updated_at>", "<lead_id>")
	add("list leads by (updated_at, lead_id), delta sync", "Query (keyed range; continued past the 1 MB page cap to limit+1)", table.GSI1.Name, pk, sk)
	pk, sk = idempotencyKey(idempotency.Scope{PartnerID: "<partner_id>", Mode: "<mode>", Operation: "<operation>", Key: ""})
	add("claim / replay an Idempotency-Key", "PutItem (conditional; holds the response) / GetItem / UpdateItem (take over, release)", "", replaceHash(pk), sk)
	pk, sk = surveyKey(t, "<survey_id>")
	add("start a survey: survey + its id record + capture token record + lead (survey id and status, new → surveying, updated_at)",
		"TransactWriteItems (conditional: lead exists, its survey closed or none)", "", pk, sk)
	add("read a survey (getLead: its inventory alone, once inventory_ready); save its checklist",
		"GetItem (strongly consistent; getLead: projection inventory) / UpdateItem (conditional: open)", "", pk, sk)
	add("move a survey's state, with its lead's survey status, recommended estimate and updated_at",
		"TransactWriteItems (conditional: survey status as read)", "", pk, sk)
	pk, sk = captureTokenKey("<sha256(token)>")
	add("find a survey by capture token (then GetItem the survey); mint another link",
		"GetItem (strongly consistent; expires_at checked) / TransactWriteItems (token record + survey's token list)", "", pk, sk)
	pk, sk = clipKey(t, "<survey_id>", "<clip_id>")
	add("announce a clip (with the survey's clip count, at most 20) / read / advance one clip",
		"TransactWriteItems (conditional) / GetItem / UpdateItem (conditional: status as read)", "", pk, sk)
	add("list a survey's clips", "Query (strongly consistent; sort key begins_with CLIP#)", "", pk, sk)
	pk, _ = frameKey(t, "<survey_id>", "<clip_id>", 0)
	sk = frameSKPrefix + "<clip_id>#<slot:0000>"
	add("announce a clip's frames (with the survey's frame count, at most 60) / read / advance one frame",
		"TransactWriteItems (conditional: survey open, count; each frame new) / GetItem / UpdateItem (conditional: status as read)", "", pk, sk)
	add("list a survey's frames", "Query (strongly consistent; sort key begins_with FRAME#)", "", pk, sk)
	pk, sk = surveyRefKey("<survey_id>")
	add("find a survey's tenant by its id (operators' tools)", "GetItem", "", pk, sk)
	pk, sk = surveyKey(t, "<survey_id>")
	add("a survey's live video links (video_links, video_version): read; mint adds one, revoke empties it",
		"GetItem (strongly consistent) / in TransactWriteItems: Update (conditional: version as read), ConditionCheck (open: link in the set)", "", pk, sk)
	pk, sk = grantKey(t, "<survey_id>", "<grant_id>")
	add("a video link's grant (audit: label, created, expires, revoked): mint / revoke / list",
		"TransactWriteItems (with the survey's set) / Query (begins_with VGRANT#)", "", pk, sk)
	pk, sk = viewTokenKey("<sha256(token)>")
	add("find a video link by token; count an open in its hour (at most 20)",
		"GetItem (strongly consistent) / TransactWriteItems (live check + count + open log, all or nothing)", "", pk, sk)
	pk, _ = openKey(t, "<survey_id>", time.Time{}, "<grant_id>", "<request_id>")
	sk = openSKPrefix + "<at>#<grant_id>#<request_id>"
	add("log a video link's open (time, grant, user agent, truncated address) / read the log",
		"TransactWriteItems (with the count) / Query (begins_with VOPEN#)", "", pk, sk)
	pk, sk = eventKey(t, "<event_id>")
	add("a webhook event owed (outbox), in the events table, written with the state change that owes it; the events table's stream hands it on",
		"in TransactWriteItems (conditional put) / GetItem", "", pk, sk)
	eventPatterns(t, add)
	pk, sk = endpointKey("<endpoint_id>")
	add("a webhook endpoint: register / read / disable, re-enable, rotate (sealed secrets)", "PutItem (conditional) / GetItem / UpdateItem", "", pk, sk)
	pk, sk = endpointsIndex(t, "<created_at>", "<endpoint_id>")
	add("a tenant's webhook endpoints (fan-out)", "Query", table.GSI1.Name, pk, sk)
	pk, _ = endpointKey("<endpoint_id>")
	add("an event's delivery to an endpoint, and its attempts (the delivery log)",
		"PutItem (conditional: one per event) / UpdateItem (claim: conditional) / TransactWriteItems (attempt + outcome) / Query",
		"", pk, deliverySKPrefix+"<event_at>#<event_id> | "+attemptSKPrefix+"<event_at>#<event_id>#<n>")
	pk, _ = dueIndex(time.Time{}, "<endpoint_id>", "<event_id>")
	add("deliveries due for an attempt (the retrier)", "Query (gsi1sk <= now)", table.GSI1.Name, pk, "<next_at>#<endpoint_id>#<event_id>")
	pk, sk = quoteKey(t, "<lead_id>", "<quote_id>")
	add("create a quote: quote + its page token record + the superseded quote's stage + lead (status, quote ref; deposit ref removed; updated_at)",
		"TransactWriteItems (conditional: quote and token new; superseded quote open; lead status and quote id as read)", "", pk, sk)
	add("read a quote with its acceptance", "GetItem (strongly consistent)", "", pk, sk)
	add("accept / sign a quote: quote (stage, acceptance, evidence) + lead (status, quote ref's stage and times, updated_at)",
		"TransactWriteItems (conditional: quote open; lead status and quote id as read)", "", pk, sk)
	pk, sk = quoteTokenKey("<sha256(token)>")
	add("find a quote by page token and count the request (rate limit); add a fresh link",
		"UpdateItem (conditional) / PutItem (conditional: new)", "", pk, sk)
	pk, sk = depositKey(t, "<deposit_id>")
	add("create a deposit: deposit + its return page token record + lead (status, deposit ref, updated_at)",
		"TransactWriteItems (conditional: deposit and token new; lead status, quote id and deposit id as read)", "", pk, sk)
	add("read a deposit; claim a reconciliation against Stripe", "GetItem (strongly consistent) / UpdateItem (conditional: status and reconciled_at as read)", "", pk, sk)
	add("apply a Stripe event or reconciliation: deposit + event dedupe record + PaymentIntent record + lead (deposit status, booked) + events owed",
		"TransactWriteItems (conditional: deposit status as read; dedupe new; lead's deposit id, not lost or completed to book)", "", pk, sk)
	pk, sk = stripeEventKey("<stripe_event_id>")
	add("a Stripe event applied (dedupe; TTL 30 days)", "in TransactWriteItems (conditional put: new) / GetItem", "", pk, sk)
	pk, sk = paymentIntentKey("<mode>", "<payment_intent_id>")
	add("find a deposit by its PaymentIntent (disputes carry no metadata)", "in TransactWriteItems (put: new or the same deposit) / GetItem", "", pk, sk)
	return ps
}

// replaceHash swaps the digest of the empty key for a placeholder.
func replaceHash(pk string) string {
	const emptyDigest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	return pk[:len(pk)-len(emptyDigest)] + "<sha256(Idempotency-Key)>"
}

// eventPatterns are the events API's access patterns (eventlist.go).
func eventPatterns(t auth.Tenant, add func(pattern, call, index, pk, sk string)) {
	pk, sk := eventKey(t, "<event_id>")
	add("getEvent: one event (shown when within 30 days and not a webhook.test to one endpoint)", "GetItem (strongly consistent)", "", pk, sk)
	ek := eventListKeys(t, "<type>", "<lead_id>")
	esk := eventListSK("<at>", "<event_id>")
	for _, ix := range []struct {
		what string
		ix   table.Index
		pk   string
	}{
		{"", table.EventsByTenant, ek.tenant}, {" of one type", table.EventsByType, ek.byType},
		{" about one lead", table.EventsByLead, ek.byLead}, {" of one type about one lead", table.EventsByLeadType, ek.byLeadType},
	} {
		add("listEvents: a tenant's events"+ix.what+", newest first, within 30 days (and since created_since), keyset from the cursor",
			"Query (keyed range at >= oldest, <= cursor; newest first; limit+2 items at most)", ix.ix.Name, ix.pk, esk)
	}
}
