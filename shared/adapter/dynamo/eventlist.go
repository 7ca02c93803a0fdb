package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// eventListPKs are an event's partition keys in the listing indexes
// (table.EventIndexes); the lead ones are "" for an event of no lead.
type eventListPKs struct {
	tenant, byType, byLead, byLeadType string
}

// eventListKeys is the key builder of the events indexes.
func eventListKeys(t auth.Tenant, typ webhook.Type, leadID string) eventListPKs {
	k := eventListPKs{tenant: tenantPrefix(t) + "#EVENTS"}
	k.byType = k.tenant + "#TYPE#" + string(typ)
	if leadID != "" {
		k.byLead = k.tenant + "#LEAD#" + leadID
		k.byLeadType = k.byLead + "#TYPE#" + string(typ)
	}
	return k
}

// eventListSK is the events indexes' sort key (table.EventListSK).
func eventListSK(at, eventID string) string { return at + "#" + eventID }

// eventIndexFor is the index and partition key that serve q's filters.
func eventIndexFor(t auth.Tenant, q webhook.ListQuery) (table.Index, string) {
	k := eventListKeys(t, q.Type, q.LeadID)
	switch {
	case q.LeadID != "" && q.Type != "":
		return table.EventsByLeadType, k.byLeadType
	case q.LeadID != "":
		return table.EventsByLead, k.byLead
	case q.Type != "":
		return table.EventsByType, k.byType
	default:
		return table.EventsByTenant, k.tenant
	}
}

// ListEvents returns up to q.Limit of tenant t's listed events (never a
// webhook.test to one endpoint), newest first, and whether more follow.
// It is one keyed Query of the index that serves q's filters, between
// q.Oldest() and q.After (inclusive, so it reads the After event itself
// too and drops it): it reads at most q.Limit+2 items, however many
// events the tenant has, usually in one Query (more only when a page
// stops at DynamoDB's 1 MB cap). A failed query is upstream_failed.
func (s *Store) ListEvents(ctx context.Context, t auth.Tenant, q webhook.ListQuery) ([]webhook.Event, bool, error) {
	var after string
	if q.After != nil {
		after = eventListSK(q.After.At, q.After.ID)
		if after < lead.FormatTime(q.Oldest()) {
			return nil, false, nil // the cursor is past the oldest event q lists
		}
	}
	in, err := s.listEventsInput(t, q)
	if err != nil {
		return nil, false, err
	}
	want := q.Limit + 1
	var items []eventItem
	for {
		in.Limit = aws.Int32(int32(want - len(items) + 1)) // +1: the After event
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, false, upstream("query events", err)
		}
		var page []eventItem
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &page); err != nil {
			return nil, false, fmt.Errorf("unmarshal events: %w", err)
		}
		for _, it := range page {
			if it.ListSK != after && len(items) < want {
				items = append(items, it)
			}
		}
		if len(items) >= want || len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return pageOf(items, q.Limit, eventItem.event)
}

// listEventsInput is the first Query of a listing (no Limit set): the
// index's partition, sort key from q.Oldest() up to After (or all newer),
// newest first.
func (s *Store) listEventsInput(t auth.Tenant, q webhook.ListQuery) (*dynamodb.QueryInput, error) {
	ix, pk := eventIndexFor(t, q)
	sk := expression.Key(ix.SK)
	oldest := expression.Value(lead.FormatTime(q.Oldest()))
	kc := expression.Key(ix.PK).Equal(expression.Value(pk))
	if q.After != nil {
		kc = kc.And(sk.Between(oldest, expression.Value(eventListSK(q.After.At, q.After.ID))))
	} else {
		kc = kc.And(sk.GreaterThanEqual(oldest))
	}
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return nil, fmt.Errorf("build events query: %w", err)
	}
	return &dynamodb.QueryInput{
		TableName: aws.String(s.events), IndexName: aws.String(ix.Name),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ScanIndexForward:          aws.Bool(false),
		ReturnConsumedCapacity:    capacity,
	}, nil
}
