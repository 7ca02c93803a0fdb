package dynamo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// streamRecords returns every record the stream of the table named name
// holds, from the start of each shard.
func streamRecords(t *testing.T, db *dynamodb.Client, name string) []streamtypes.Record {
	t.Helper()
	ctx := context.Background()
	o := db.Options()
	st := dynamodbstreams.New(dynamodbstreams.Options{Region: o.Region, Credentials: o.Credentials, BaseEndpoint: o.BaseEndpoint})
	arn := aws.ToString(describe(t, db, name).LatestStreamArn)
	desc, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: &arn})
	if err != nil {
		t.Fatalf("describe stream of %s: %v", name, err)
	}
	var out []streamtypes.Record
	for _, sh := range desc.StreamDescription.Shards {
		it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
			StreamArn: &arn, ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
		})
		if err != nil {
			t.Fatalf("shard iterator: %v", err)
		}
		// An open shard always answers a next iterator: stop at the
		// first empty page, everything written before is in.
		for next := it.ShardIterator; next != nil; {
			page, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next})
			if err != nil {
				t.Fatalf("get records: %v", err)
			}
			if len(page.Records) == 0 {
				break
			}
			out = append(out, page.Records...)
			next = page.NextShardIterator
		}
	}
	return out
}

// TestOnlyEventsAreStreamed: the main table has no stream, so a request's
// rate-limit count, a lead and a survey's move leave no stream record; the
// events the move owes land in the events table, whose stream carries
// them and nothing else.
func TestOnlyEventsAreStreamed(t *testing.T) {
	db := newClient(t)
	name := fmt.Sprintf("test-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	t.Cleanup(func() { _ = DeleteTables(context.Background(), db, name) })
	if err := CreateTablesWithStream(context.Background(), db, name); err != nil {
		t.Fatal(err)
	}
	s := New(db, name)
	ctx := context.Background()

	if d := describe(t, db, name); d.StreamSpecification != nil || d.LatestStreamArn != nil {
		t.Errorf("main table: stream %+v, arn %s; want none", d.StreamSpecification, aws.ToString(d.LatestStreamArn))
	}
	key, _ := newKey(t, s, newPartner(t, s), auth.Test)
	if _, u, err := s.Admit(ctx, auth.Digest(key), t0, 100); err != nil || !u.Admitted {
		t.Fatalf("Admit = %+v, %v; want admitted", u, err)
	}
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
	if got := streamRecords(t, db, s.EventsTable()); len(got) != 0 {
		t.Fatalf("events stream holds %d records after a count, a lead and a survey; want 0", len(got))
	}

	for _, to := range []survey.Status{survey.Recording, survey.Processing} {
		from := map[survey.Status]survey.Status{survey.Recording: survey.Invited, survey.Processing: survey.Recording}[to]
		if err := s.AdvanceSurvey(ctx, surveyTenant, record.SurveyTransition{LeadID: "lead_1", SurveyID: sv.ID, From: from, To: to, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	est := &estimate.Estimate{Min: 700, Max: 1100, Currency: "usd"}
	evs, err := webhook.SurveyEvents(string(surveyTenant.Mode), "lead_1", sv.ID, survey.InventoryReady, nil, est, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceSurvey(ctx, surveyTenant, record.SurveyTransition{LeadID: "lead_1", SurveyID: sv.ID,
		From: survey.Processing, To: survey.InventoryReady, At: t0, Recommended: est, Events: evs}); err != nil {
		t.Fatal(err)
	}

	recs := streamRecords(t, db, s.EventsTable())
	if len(recs) != len(evs) {
		t.Fatalf("events stream holds %d records; want %d (one INSERT per event)", len(recs), len(evs))
	}
	for i, r := range recs {
		img, err := attributevalue.FromDynamoDBStreamsMap(r.Dynamodb.NewImage)
		if err != nil {
			t.Fatal(err)
		}
		_, e, ok, err := EventFromImage(img)
		if r.EventName != streamtypes.OperationTypeInsert || !ok || err != nil || e.ID != evs[i].ID {
			t.Errorf("record %d: %s of event %q (ok %v, %v); want the INSERT of %s", i, r.EventName, e.ID, ok, err, evs[i].ID)
		}
	}
	// The event items are in the events table only.
	pk, sk := eventKey(surveyTenant, evs[0].ID)
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item != nil {
		t.Errorf("main table holds event %s: %v, %v; want none", evs[0].ID, out.Item, err)
	}
	out, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table.EventsName(name)), Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		t.Errorf("events table lacks event %s: %v", evs[0].ID, err)
	}
}
