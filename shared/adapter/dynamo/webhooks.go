package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// Webhook endpoints and deliveries. An endpoint is one item in its own
// partition (WHEP#<endpoint_id> / ENDPOINT), listed per tenant through
// gsi1; its deliveries (one per event: DLV#<event time>#<event_id>) and
// their attempts (ATT#…) share that partition, so the delivery log of an
// endpoint is one Query. A pending delivery is also in gsi1 under the
// partition WHDUE, sorted by when its next attempt is due, which is how
// the retrier finds the deliveries due (a single partition is ample for
// the pilot's volume; shard it by a suffix past a few hundred writes a
// second).
const (
	endpointSK       = "ENDPOINT"
	deliverySKPrefix = "DLV#"
	attemptSKPrefix  = "ATT#"
	duePK            = "WHDUE"
)

func endpointKey(id string) (pk, sk string) { return table.WebhookPrefix + id, endpointSK }

// endpointsIndex places an endpoint in its tenant's listing.
func endpointsIndex(t auth.Tenant, createdAt, id string) (gsi1pk, gsi1sk string) {
	return tenantPrefix(t) + "#WEBHOOKS", createdAt + "#" + id
}

// deliveryKey is event e's delivery to endpoint id. The event's time
// leads, so an endpoint's deliveries list in time order.
func deliveryKey(endpointID string, e webhook.Event) (pk, sk string) {
	return table.WebhookPrefix + endpointID, deliverySKPrefix + lead.FormatTime(e.At) + "#" + e.ID
}

// attemptKey is attempt n of the delivery whose sort key is dlvSK.
func attemptKey(endpointID, dlvSK string, n int) (pk, sk string) {
	return table.WebhookPrefix + endpointID, attemptSKPrefix + dlvSK[len(deliverySKPrefix):] + "#" + fmt.Sprintf("%02d", n)
}

// dueIndex places a pending delivery by when its next attempt is due.
func dueIndex(next time.Time, endpointID, eventID string) (gsi1pk, gsi1sk string) {
	return duePK, lead.FormatTime(next) + "#" + endpointID + "#" + eventID
}

type endpointItem struct {
	PK             string   `dynamodbav:"pk"`
	SK             string   `dynamodbav:"sk"`
	GSI1PK         string   `dynamodbav:"gsi1pk"`
	GSI1SK         string   `dynamodbav:"gsi1sk"`
	Type           string   `dynamodbav:"type"`
	EndpointID     string   `dynamodbav:"endpoint_id"`
	PartnerID      string   `dynamodbav:"partner_id"`
	Mode           string   `dynamodbav:"mode"`
	URL            string   `dynamodbav:"url"`
	Events         []string `dynamodbav:"events,omitempty"`
	CreatedAt      string   `dynamodbav:"created_at"`
	Disabled       bool     `dynamodbav:"disabled"`
	DisabledReason string   `dynamodbav:"disabled_reason,omitempty"`
	DisabledAt     string   `dynamodbav:"disabled_at,omitempty"`
	FailingSince   string   `dynamodbav:"failing_since,omitempty"`
	Secret         string   `dynamodbav:"secret_sealed"`
	Previous       string   `dynamodbav:"previous_secret_sealed,omitempty"`
	PreviousUntil  string   `dynamodbav:"previous_until,omitempty"`
}

func newEndpointItem(e webhook.Endpoint) endpointItem {
	pk, sk := endpointKey(e.ID)
	created := lead.FormatTime(e.CreatedAt)
	g1pk, g1sk := endpointsIndex(e.Tenant, created, e.ID)
	it := endpointItem{
		PK: pk, SK: sk, GSI1PK: g1pk, GSI1SK: g1sk, Type: "webhook_endpoint", EndpointID: e.ID,
		PartnerID: e.Tenant.PartnerID, Mode: string(e.Tenant.Mode), URL: e.URL, CreatedAt: created,
		Disabled: e.Disabled, DisabledReason: e.DisabledReason, Secret: e.Sealed.Current, Previous: e.Sealed.Previous,
	}
	for _, t := range e.Types {
		it.Events = append(it.Events, string(t))
	}
	if !e.DisabledAt.IsZero() {
		it.DisabledAt = lead.FormatTime(e.DisabledAt)
	}
	if !e.FailingSince.IsZero() {
		it.FailingSince = lead.FormatTime(e.FailingSince)
	}
	if !e.Sealed.PreviousUntil.IsZero() {
		it.PreviousUntil = lead.FormatTime(e.Sealed.PreviousUntil)
	}
	return it
}

func (it endpointItem) endpoint() (webhook.Endpoint, error) {
	e := webhook.Endpoint{
		ID: it.EndpointID, Tenant: auth.Tenant{PartnerID: it.PartnerID, Mode: auth.Mode(it.Mode)}, URL: it.URL,
		Disabled: it.Disabled, DisabledReason: it.DisabledReason,
		Sealed: webhook.SealedSecrets{Current: it.Secret, Previous: it.Previous},
	}
	for _, t := range it.Events {
		e.Types = append(e.Types, webhook.Type(t))
	}
	times := []struct {
		attr, v string
		dst     *time.Time
	}{
		{"created_at", it.CreatedAt, &e.CreatedAt}, {"disabled_at", it.DisabledAt, &e.DisabledAt},
		{"failing_since", it.FailingSince, &e.FailingSince}, {"previous_until", it.PreviousUntil, &e.Sealed.PreviousUntil},
	}
	for _, tm := range times {
		if tm.v == "" {
			continue
		}
		v, err := parseTime(it.PK, tm.attr, tm.v)
		if err != nil {
			return webhook.Endpoint{}, err
		}
		*tm.dst = v
	}
	return e, nil
}

// PutEndpoint stores a new endpoint (never overwriting one with its id),
// with the audit entries given in the same transaction. An existing id →
// conflict; any other failure → upstream_failed.
func (s *Store) PutEndpoint(ctx context.Context, e webhook.Endpoint, audits ...audit.Entry) error {
	var created bool
	var err error
	if len(audits) == 0 {
		created, err = s.putIfNew(ctx, newEndpointItem(e), "put webhook endpoint")
	} else {
		created, err = s.putWithAudit(ctx, newEndpointItem(e), audits)
	}
	if err == nil && !created {
		return errcode.New(errcode.Conflict, "A webhook endpoint with id %s already exists; nothing was written.", e.ID)
	}
	return err
}

// putWithAudit puts item unless its key exists, with audits, in one
// transaction; false when the item exists (nothing written).
func (s *Store) putWithAudit(ctx context.Context, item any, audits []audit.Entry) (bool, error) {
	put, err := s.putNew(item)
	if err != nil {
		return false, err
	}
	puts, err := s.auditPuts(audits)
	if err != nil {
		return false, err
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: append([]types.TransactWriteItem{put}, puts...), ReturnConsumedCapacity: capacity,
	})
	if hasReason(err, "ConditionalCheckFailed") {
		return false, nil
	}
	if err != nil {
		return false, upstream(fmt.Sprintf("put %T with its audit entry", item), err)
	}
	return true, nil
}

// putIfNew puts item unless its key exists, and reports whether it did. A
// failure is upstream_failed naming what.
func (s *Store) putIfNew(ctx context.Context, item any, what string) (bool, error) {
	put, err := s.putNew(item)
	if err != nil {
		return false, err
	}
	return s.putOnce(ctx, put, what)
}

// putOnce runs the conditional put of a putNew transaction item on its
// own: false when the item exists.
func (s *Store) putOnce(ctx context.Context, put types.TransactWriteItem, what string) (bool, error) {
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: put.Put.TableName, Item: put.Put.Item, ConditionExpression: put.Put.ConditionExpression,
		ExpressionAttributeNames: put.Put.ExpressionAttributeNames, ReturnConsumedCapacity: capacity,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return false, nil
	}
	if err != nil {
		return false, upstream(what, err)
	}
	return true, nil
}

// GetEndpoint returns endpoint id (strongly consistent), or not_found.
func (s *Store) GetEndpoint(ctx context.Context, id string) (webhook.Endpoint, error) {
	pk, sk := endpointKey(id)
	var it endpointItem
	if err := s.getItem(ctx, pk, sk, "webhook endpoint", &it); err != nil {
		return webhook.Endpoint{}, err
	}
	return it.endpoint()
}

// TenantEndpoints lists tenant t's endpoints, oldest first, from gsi1
// (eventually consistent: an endpoint added a moment ago may be missing
// for about a second).
func (s *Store) TenantEndpoints(ctx context.Context, t auth.Tenant) ([]webhook.Endpoint, error) {
	g1pk, _ := endpointsIndex(t, "", "")
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(table.GSI1.PK).Equal(expression.Value(g1pk))).Build()
	if err != nil {
		return nil, fmt.Errorf("build endpoints query: %w", err)
	}
	return queryAll(ctx, s, &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(table.GSI1.Name),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity,
	}, "webhook endpoints", endpointItem.endpoint)
}

// UpdateEndpoint sets endpoint id's state to e's (disabled and why,
// failing since, sealed secrets), conditioned on the endpoint existing,
// with the audit entries given in the same transaction. Unknown id →
// not_found (nothing written); any other failure → upstream_failed.
func (s *Store) UpdateEndpoint(ctx context.Context, e webhook.Endpoint, audits ...audit.Entry) error {
	it := newEndpointItem(e)
	set := func(u expression.UpdateBuilder, attr, v string) expression.UpdateBuilder {
		if v == "" {
			return u.Remove(expression.Name(attr))
		}
		return u.Set(expression.Name(attr), expression.Value(v))
	}
	upd := expression.Set(expression.Name("disabled"), expression.Value(it.Disabled)).
		Set(expression.Name("secret_sealed"), expression.Value(it.Secret))
	upd = set(upd, "disabled_reason", it.DisabledReason)
	upd = set(upd, "disabled_at", it.DisabledAt)
	upd = set(upd, "failing_since", it.FailingSince)
	upd = set(upd, "previous_secret_sealed", it.Previous)
	upd = set(upd, "previous_until", it.PreviousUntil)
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(expression.AttributeExists(expression.Name(table.PK))).Build()
	if err != nil {
		return fmt.Errorf("build endpoint update: %w", err)
	}
	pk, sk := endpointKey(e.ID)
	if len(audits) > 0 {
		return s.updateWithAudit(ctx, s.update(pk, sk, expr), audits)
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: keyAV(pk, sk), UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return notFound("webhook endpoint")
	}
	if err != nil {
		return upstream("update webhook endpoint", err)
	}
	return nil
}

// updateWithAudit runs upd (an endpoint's) with audits in one
// transaction; a failed condition → not_found.
func (s *Store) updateWithAudit(ctx context.Context, upd types.TransactWriteItem, audits []audit.Entry) error {
	puts, err := s.auditPuts(audits)
	if err != nil {
		return err
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: append([]types.TransactWriteItem{upd}, puts...), ReturnConsumedCapacity: capacity,
	})
	if hasReason(err, "ConditionalCheckFailed") {
		return notFound("webhook endpoint")
	}
	if err != nil {
		return upstream("update webhook endpoint with its audit entry", err)
	}
	return nil
}

type deliveryItem struct {
	PK         string `dynamodbav:"pk"`
	SK         string `dynamodbav:"sk"`
	GSI1PK     string `dynamodbav:"gsi1pk,omitempty"`
	GSI1SK     string `dynamodbav:"gsi1sk,omitempty"`
	Type       string `dynamodbav:"type"`
	EndpointID string `dynamodbav:"endpoint_id"`
	EventID    string `dynamodbav:"event_id"`
	EventType  string `dynamodbav:"event_type"`
	Mode       string `dynamodbav:"mode"`
	At         string `dynamodbav:"at"`
	Data       string `dynamodbav:"data"`
	Status     string `dynamodbav:"status"`
	Attempts   int    `dynamodbav:"attempts"`
	RoundStart int    `dynamodbav:"round_start,omitempty"`
	NextAt     string `dynamodbav:"next_at,omitempty"`
}

func newDeliveryItem(d webhook.Delivery) deliveryItem {
	pk, sk := deliveryKey(d.EndpointID, d.Event)
	it := deliveryItem{
		PK: pk, SK: sk, Type: "webhook_delivery", EndpointID: d.EndpointID, EventID: d.Event.ID,
		EventType: string(d.Event.Type), Mode: d.Event.Mode, At: lead.FormatTime(d.Event.At), Data: string(d.Event.Data),
		Status: string(d.Status), Attempts: d.Attempts, RoundStart: d.RoundStart,
	}
	if d.Status == webhook.Pending {
		it.NextAt = lead.FormatTime(d.NextAt)
		it.GSI1PK, it.GSI1SK = dueIndex(d.NextAt, d.EndpointID, d.Event.ID)
	}
	return it
}

func (it deliveryItem) delivery() (webhook.Delivery, error) {
	at, err := parseTime(it.PK, "at", it.At)
	if err != nil {
		return webhook.Delivery{}, err
	}
	d := webhook.Delivery{
		EndpointID: it.EndpointID, Status: webhook.DeliveryStatus(it.Status), Attempts: it.Attempts, RoundStart: it.RoundStart,
		Event: webhook.Event{ID: it.EventID, Type: webhook.Type(it.EventType), Mode: it.Mode, At: at, Data: json.RawMessage(it.Data)},
	}
	if it.NextAt != "" {
		if d.NextAt, err = parseTime(it.PK, "next_at", it.NextAt); err != nil {
			return webhook.Delivery{}, err
		}
	}
	return d, nil
}

// CreateDelivery stores d (pending, no attempt yet) unless the delivery of
// its event to its endpoint exists: created is false then, and nothing
// changed (a duplicate stream record makes no second delivery).
func (s *Store) CreateDelivery(ctx context.Context, d webhook.Delivery) (created bool, err error) {
	return s.putIfNew(ctx, newDeliveryItem(d), "create webhook delivery")
}

// GetDelivery returns event e's delivery to endpoint endpointID.
func (s *Store) GetDelivery(ctx context.Context, endpointID string, e webhook.Event) (webhook.Delivery, error) {
	pk, sk := deliveryKey(endpointID, e)
	var it deliveryItem
	if err := s.getItem(ctx, pk, sk, "webhook delivery", &it); err != nil {
		return webhook.Delivery{}, err
	}
	return it.delivery()
}

// EndpointDeliveries returns up to limit of endpoint endpointID's
// deliveries, newest event first (the delivery log an operator reads),
// from its partition (strongly consistent). An unknown endpoint has none:
// the answer is empty, never nil. A failed read is upstream_failed.
func (s *Store) EndpointDeliveries(ctx context.Context, endpointID string, limit int) ([]webhook.Delivery, error) {
	if limit < 1 {
		return []webhook.Delivery{}, nil
	}
	in, err := s.deliveriesQuery(endpointID, nil)
	if err != nil {
		return nil, err
	}
	in.Limit = aws.Int32(int32(min(limit, 1000)))
	return s.queryDeliveries(ctx, in, limit)
}

// FindDelivery returns event eventID's delivery to endpoint endpointID
// when only the event's id is known (a webhook-id an operator quotes; the
// delivery's key holds the event's time too): one Query of the endpoint's
// deliveries, newest first, filtered on the event id, read until found.
// None → not_found; a failed read → upstream_failed.
func (s *Store) FindDelivery(ctx context.Context, endpointID, eventID string) (webhook.Delivery, error) {
	filter := expression.Name("event_id").Equal(expression.Value(eventID))
	in, err := s.deliveriesQuery(endpointID, &filter)
	if err != nil {
		return webhook.Delivery{}, err
	}
	ds, err := s.queryDeliveries(ctx, in, 1)
	if err != nil {
		return webhook.Delivery{}, err
	}
	if len(ds) == 0 {
		return webhook.Delivery{}, notFound("webhook delivery")
	}
	return ds[0], nil
}

// deliveriesQuery is the Query of endpoint endpointID's delivery items
// (never its attempts), newest first, keeping those that pass filter when
// it is set.
func (s *Store) deliveriesQuery(endpointID string, filter *expression.ConditionBuilder) (*dynamodb.QueryInput, error) {
	pk, _ := endpointKey(endpointID)
	b := expression.NewBuilder().WithKeyCondition(expression.Key(table.PK).Equal(expression.Value(pk)).
		And(expression.Key(table.SK).BeginsWith(deliverySKPrefix)))
	if filter != nil {
		b = b.WithFilter(*filter)
	}
	expr, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build deliveries query: %w", err)
	}
	return &dynamodb.QueryInput{
		TableName: &s.table, ConsistentRead: aws.Bool(true), ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity,
	}, nil
}

// queryDeliveries runs in page by page until it has limit deliveries or
// no page is left.
func (s *Store) queryDeliveries(ctx context.Context, in *dynamodb.QueryInput, limit int) ([]webhook.Delivery, error) {
	out := []webhook.Delivery{}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() && len(out) < limit {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, upstream("query webhook deliveries", err)
		}
		var items []deliveryItem
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
			return nil, fmt.Errorf("unmarshal webhook deliveries: %w", err)
		}
		for _, it := range items {
			if len(out) == limit {
				break
			}
			d, err := it.delivery()
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// ClaimAttempt takes delivery d (as read: pending with d.Attempts made)
// for its next attempt: it counts the attempt and moves the delivery's due
// time to now+lease, in one UpdateItem conditioned on the delivery still
// being as read. So two dispatchers never make the same attempt, and an
// attempt whose sender crashed is due again when the lease ends. It
// returns the claimed delivery (Attempts counting this one). A delivery
// no longer as read → conflict wrapping ErrChanged.
func (s *Store) ClaimAttempt(ctx context.Context, d webhook.Delivery, now time.Time, lease time.Duration) (webhook.Delivery, error) {
	claimed := d
	claimed.Attempts++
	claimed.NextAt = now.Add(lease)
	g1pk, g1sk := dueIndex(claimed.NextAt, d.EndpointID, d.Event.ID)
	upd := expression.Set(expression.Name("attempts"), expression.Value(claimed.Attempts)).
		Set(expression.Name("next_at"), expression.Value(lead.FormatTime(claimed.NextAt))).
		Set(expression.Name(table.GSI1.PK), expression.Value(g1pk)).
		Set(expression.Name(table.GSI1.SK), expression.Value(g1sk))
	cond := expression.Name("status").Equal(expression.Value(string(webhook.Pending))).
		And(expression.Name("attempts").Equal(expression.Value(d.Attempts)))
	if err := s.updateDelivery(ctx, d, upd, cond); err != nil {
		return webhook.Delivery{}, err
	}
	return claimed, nil
}

// FinishAttempt records attempt a of claimed delivery d (as ClaimAttempt
// returned it) and its outcome, in one transaction: the attempt's log
// item, and the delivery delivered (a 2xx), pending until next (a failure
// with attempts left: next is not zero), or failed (none left, or the
// endpoint disabled: next zero). Conditioned on the delivery still being
// d, so a late finish of a stale claim changes nothing (conflict wrapping
// ErrChanged).
func (s *Store) FinishAttempt(ctx context.Context, d webhook.Delivery, a webhook.Attempt, next time.Time) (webhook.Delivery, error) {
	out := d
	var upd expression.UpdateBuilder
	switch {
	case a.OK():
		out.Status, out.NextAt = webhook.Delivered, time.Time{}
	case !next.IsZero():
		out.NextAt = next
	default:
		out.Status, out.NextAt = webhook.Failed, time.Time{}
	}
	upd = expression.Set(expression.Name("status"), expression.Value(string(out.Status)))
	if out.Status == webhook.Pending {
		g1pk, g1sk := dueIndex(out.NextAt, d.EndpointID, d.Event.ID)
		upd = upd.Set(expression.Name("next_at"), expression.Value(lead.FormatTime(out.NextAt))).
			Set(expression.Name(table.GSI1.PK), expression.Value(g1pk)).
			Set(expression.Name(table.GSI1.SK), expression.Value(g1sk))
	} else {
		upd = upd.Remove(expression.Name("next_at")).Remove(expression.Name(table.GSI1.PK)).Remove(expression.Name(table.GSI1.SK))
	}
	cond := expression.Name("status").Equal(expression.Value(string(webhook.Pending))).
		And(expression.Name("attempts").Equal(expression.Value(d.Attempts)))
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return webhook.Delivery{}, fmt.Errorf("build delivery update: %w", err)
	}
	_, dsk := deliveryKey(d.EndpointID, d.Event)
	apk, ask := attemptKey(d.EndpointID, dsk, a.N)
	body := a.Body
	if len(body) > webhook.MaxLoggedBody {
		body = body[:webhook.MaxLoggedBody]
	}
	logItem, err := s.putNew(attemptItem{
		PK: apk, SK: ask, Type: "webhook_attempt", EventID: d.Event.ID, N: a.N, At: lead.FormatTime(a.At),
		Status: a.Status, LatencyMS: a.Latency.Milliseconds(), LatencyUS: a.Latency.Microseconds(), Body: body, Error: a.Error,
	})
	if err != nil {
		return webhook.Delivery{}, err
	}
	pk, sk := deliveryKey(d.EndpointID, d.Event)
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{s.update(pk, sk, expr), logItem}, ReturnConsumedCapacity: capacity,
	})
	if err == nil {
		return out, nil
	}
	tx := cancelled(err)
	if failed, _ := tx.failedAt(0); failed {
		return webhook.Delivery{}, changed("webhook delivery")
	}
	if failed, _ := tx.failedAt(1); failed {
		return webhook.Delivery{}, changed("webhook delivery (attempt already logged)")
	}
	return webhook.Delivery{}, tx.otherwise("webhook delivery", "finish webhook attempt")
}

// Redeliver makes delivery d (as read) pending again, due at now, whatever
// its status, starting a new round of the schedule (same webhook-id): its
// attempts keep counting, so the log keeps every earlier attempt, and
// RoundStart moves to them. Conditioned on the attempts being as read, so
// it never races an attempt in flight (conflict wrapping ErrChanged: read
// again and retry).
func (s *Store) Redeliver(ctx context.Context, d webhook.Delivery, now time.Time) (webhook.Delivery, error) {
	out := d
	out.Status, out.RoundStart, out.NextAt = webhook.Pending, d.Attempts, now
	g1pk, g1sk := dueIndex(now, d.EndpointID, d.Event.ID)
	upd := expression.Set(expression.Name("status"), expression.Value(string(webhook.Pending))).
		Set(expression.Name("round_start"), expression.Value(d.Attempts)).
		Set(expression.Name("next_at"), expression.Value(lead.FormatTime(now))).
		Set(expression.Name(table.GSI1.PK), expression.Value(g1pk)).
		Set(expression.Name(table.GSI1.SK), expression.Value(g1sk))
	if err := s.updateDelivery(ctx, d, upd, expression.Name("attempts").Equal(expression.Value(d.Attempts))); err != nil {
		return webhook.Delivery{}, err
	}
	return out, nil
}

// updateDelivery applies upd to d's item under cond.
func (s *Store) updateDelivery(ctx context.Context, d webhook.Delivery, upd expression.UpdateBuilder, cond expression.ConditionBuilder) error {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("build delivery update: %w", err)
	}
	pk, sk := deliveryKey(d.EndpointID, d.Event)
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: keyAV(pk, sk), UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return changed("webhook delivery")
	}
	if err != nil {
		return upstream("update webhook delivery", err)
	}
	return nil
}

// DueDeliveries returns up to limit pending deliveries whose next attempt
// is due at now, earliest first, from gsi1 (eventually consistent: a
// delivery is claimed under a condition before any attempt).
func (s *Store) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]webhook.Delivery, error) {
	kc := expression.Key(table.GSI1.PK).Equal(expression.Value(duePK)).
		And(expression.Key(table.GSI1.SK).LessThanEqual(expression.Value(lead.FormatTime(now) + "#~")))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return nil, fmt.Errorf("build due query: %w", err)
	}
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(table.GSI1.Name), Limit: aws.Int32(int32(limit)),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity,
	})
	if err != nil {
		return nil, upstream("query due deliveries", err)
	}
	var items []deliveryItem
	if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
		return nil, fmt.Errorf("unmarshal due deliveries: %w", err)
	}
	ds := make([]webhook.Delivery, 0, len(items))
	for _, it := range items {
		d, err := it.delivery()
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

type attemptItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	EventID   string `dynamodbav:"event_id"`
	N         int    `dynamodbav:"n"`
	At        string `dynamodbav:"at"`
	Status    int    `dynamodbav:"status"`
	LatencyMS int64  `dynamodbav:"latency_ms"`
	// LatencyUS is the latency in microseconds: a nearby endpoint answers
	// within a millisecond, which latency_ms shows as 0. Attempts logged
	// before it have latency_ms alone.
	LatencyUS int64  `dynamodbav:"latency_us,omitempty"`
	Body      string `dynamodbav:"body,omitempty"`
	Error     string `dynamodbav:"error,omitempty"`
}

// Attempts returns the attempts logged for event eventAt/eventID's
// delivery to endpoint endpointID, in order.
func (s *Store) Attempts(ctx context.Context, endpointID string, e webhook.Event) ([]webhook.Attempt, error) {
	_, dsk := deliveryKey(endpointID, e)
	pk, prefix := attemptKey(endpointID, dsk, 0)
	prefix = prefix[:len(prefix)-2]
	kc := expression.Key(table.PK).Equal(expression.Value(pk)).And(expression.Key(table.SK).BeginsWith(prefix))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return nil, fmt.Errorf("build attempts query: %w", err)
	}
	return queryAll(ctx, s, &dynamodb.QueryInput{
		TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity,
	}, "webhook attempts", func(it attemptItem) (webhook.Attempt, error) {
		at, err := parseTime(it.PK, "at", it.At)
		latency := time.Duration(it.LatencyMS) * time.Millisecond
		if it.LatencyUS > 0 {
			latency = time.Duration(it.LatencyUS) * time.Microsecond
		}
		return webhook.Attempt{N: it.N, At: at, Status: it.Status, Latency: latency, Body: it.Body, Error: it.Error}, err
	})
}
