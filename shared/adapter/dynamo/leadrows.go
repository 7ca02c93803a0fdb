package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// filteredReads is how many listing items one filtered Query reads: a
// status filter drops items after DynamoDB read them, so a page is filled
// from a bounded read and may hold fewer rows than asked.
const filteredReads = 250

// ListLeadRows is ListLeads for the dashboard: each lead with what its
// item carries about its survey, quote and deposit (gsi1 projects the
// whole item, so it is the same one Query), optionally only leads in
// status. It answers the position after which the next page starts, nil
// at the end. Unfiltered it reads q.Limit+1 items as ListLeads does;
// filtered, one Query of filteredReads items, so a page of matches may be
// short (or empty) with more to follow. A failed query is upstream_failed.
func (s *Store) ListLeadRows(ctx context.Context, t auth.Tenant, q lead.ListQuery, status lead.Status) ([]record.LeadRow, *lead.Position, error) {
	var filter []expression.ConditionBuilder
	if status != "" {
		filter = append(filter, expression.Name("status").Equal(expression.Value(string(status))))
	}
	in, err := s.listLeadsInput(t, q, filter...)
	if err != nil {
		return nil, nil, err
	}
	in.Limit = aws.Int32(int32(q.Limit + 1))
	if status != "" {
		in.Limit = aws.Int32(filteredReads)
	}
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, nil, upstream("query leads", err)
	}
	var items []leadWithSurvey
	if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
		return nil, nil, fmt.Errorf("unmarshal leads: %w", err)
	}
	var next *lead.Position
	switch {
	case len(items) > q.Limit:
		items = items[:q.Limit]
		last := items[len(items)-1]
		next = &lead.Position{UpdatedAt: last.UpdatedAt, LeadID: last.LeadID}
	case len(out.LastEvaluatedKey) > 0:
		next = positionOf(out.LastEvaluatedKey)
	}
	rows := make([]record.LeadRow, len(items))
	for i, it := range items {
		if rows[i], err = it.row(); err != nil {
			return nil, nil, err
		}
	}
	return rows, next, nil
}

// positionOf is the listing position of a gsi1 key (updated_at#lead_id);
// nil when it is not one.
func positionOf(key map[string]types.AttributeValue) *lead.Position {
	sk, ok := key[table.GSI1.SK].(*types.AttributeValueMemberS)
	if !ok {
		return nil
	}
	at, id, ok := strings.Cut(sk.Value, "#")
	if !ok {
		return nil
	}
	return &lead.Position{UpdatedAt: at, LeadID: id}
}

// row is the list row of a lead item.
func (it leadWithSurvey) row() (record.LeadRow, error) {
	l, err := it.lead()
	if err != nil {
		return record.LeadRow{}, err
	}
	ls := record.LeadSurvey{SurveyID: it.SurveyID, Status: survey.Status(it.SurveyStatus), Recommended: it.Recommended}
	if ls.Quote, ls.Deposit, err = it.refs(it.PK); err != nil {
		return record.LeadRow{}, err
	}
	if ls.SurveyID == "" {
		ls.Status = survey.None
	}
	return record.LeadRow{Lead: l, Survey: ls}, nil
}
